"""Run one course cell the way a notebook/REPL does.

Shared by the browser (the Pyodide worker imports it from
``assets/course/py/cell_exec.py``) and by the site build (the MkDocs
plugin imports it in CPython to precompute outputs).  Pure standard library;
nothing here imports ``js`` or ``pyodide``.

The host owns stdout/stderr (the worker streams them with ``setStdout``; the
build redirects ``sys.stdout``).  Everything else a cell produces goes through
``emit(kind, payload)``:

``("result", str)``
    ``repr`` of a final bare expression, unless it is ``None``.
``("error", str)``
    a traceback trimmed to the learner's frames, plus the exception line.
``("figure", {"png": bytes, "alt": str})``
    every open matplotlib figure after the cell, in order (then closed).
"""

from __future__ import annotations

import ast
import builtins
import io
import linecache
import sys
import traceback
from collections.abc import Callable
from typing import Any

__all__ = [
    "INPUT_MESSAGE",
    "MODULE_HINT",
    "emit_figures",
    "format_exception",
    "install_input_guard",
    "module_references",
    "run_cell",
]

Emit = Callable[[str, object], None]

#: Note added to an uncaught ``ModuleNotFoundError``; ``{name}`` is the module.
MODULE_HINT = "module {name!r} is not available in this course (it ships numpy, matplotlib and posenc)"

#: Message of the ``RuntimeError`` raised by ``input()`` once the guard is installed.
INPUT_MESSAGE = "input() is not available in the course's cells; set the value in code instead, e.g. name = 'Ada'"

# Filenames of code run through run_cell; their frames are the learner's and are
# kept in tracebacks (a function defined in one cell may fail when called in another).
_CELL_FILES: set[str] = set()

FIGURE_DPI = 100


def module_references(code: str) -> set[str]:
    """Dotted module names that ``code`` imports or reaches by attribute.

    ``import a.b`` and ``from a import b`` give ``a``, ``a.b``; ``x = a.b.c(...)``
    gives ``a.b`` and ``a.b.c`` too, so a package needed by ``posenc.plot`` is
    found when the cell only says ``import posenc``. Unparsable code gives nothing.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted:
                found.add(dotted)
    return found


def _dotted(node: ast.Attribute) -> str | None:
    """``a.b.c`` for an attribute chain on a plain name, else None."""
    parts = [node.attr]
    while isinstance(node.value, ast.Attribute):
        node = node.value
        parts.append(node.attr)
    if not isinstance(node.value, ast.Name):
        return None
    return ".".join([node.value.id, *reversed(parts)])


def run_cell(
    code: str,
    namespace: dict[str, Any],
    *,
    filename: str,
    emit: Emit,
) -> bool:
    """Execute ``code`` in ``namespace``; return True if no exception escaped.

    All statements are executed; a final bare expression is evaluated and its
    ``repr`` emitted as ``("result", …)`` when it is not ``None`` (like a REPL;
    as in Jupyter, a trailing ``;`` hides it).
    An exception is emitted as ``("error", traceback_text)`` with line numbers
    relative to ``code`` (1-based).  Afterwards, if ``matplotlib.pyplot`` has been
    imported, every open figure is emitted as ``("figure", {"png", "alt"})`` and
    closed — also after an error.
    """
    _register_source(filename, code)
    ok = True
    try:
        tree = ast.parse(code, filename=filename, mode="exec")
        last: ast.expr | None = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(code, tree.body[-1]):
            last = tree.body.pop().value
        if tree.body:
            exec(compile(tree, filename, "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last), filename, "eval"), namespace)
            if value is not None:
                namespace["_"] = value
                _flush_std()
                emit("result", repr(value))
    except BaseException as exc:
        ok = False
        _flush_std()
        emit("error", format_exception(exc))
    if not emit_figures(emit):
        ok = False
    return ok


def format_exception(exc: BaseException) -> str:
    """Traceback text of ``exc`` limited to frames of code run by :func:`run_cell`."""
    if isinstance(exc, ModuleNotFoundError) and exc.name and not _has_hint(exc):
        top = exc.name.partition(".")[0]
        exc.add_note(MODULE_HINT.format(name=top))
    te = traceback.TracebackException.from_exception(exc, capture_locals=False)
    _trim(te, set())
    text = "".join(te.format())
    return text.rstrip("\n") + "\n"


def emit_figures(emit: Emit) -> bool:
    """Emit and close all open matplotlib figures; False if saving one failed.

    Does nothing unless ``matplotlib.pyplot`` has already been imported (never
    imports matplotlib itself).
    """
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return True
    ok = True
    try:
        for index, num in enumerate(plt.get_fignums(), start=1):
            fig = plt.figure(num)
            try:
                buf = io.BytesIO()
                # "tight" draws the figure twice: only for figures whose layout nobody chose.
                tight = None if laid_out(fig) else "tight"
                fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches=tight)
            except Exception as exc:
                ok = False
                _flush_std()
                emit("error", format_exception(exc))
                continue
            emit("figure", {"png": buf.getvalue(), "alt": figure_alt(fig, index)})
    finally:
        plt.close("all")
    return ok


def laid_out(fig: Any) -> bool:
    """Whether a figure's layout was chosen: a layout engine, or margins set with ``subplots_adjust``.

    Such a figure is saved as it is; any other is cropped to what it draws
    (``bbox_inches="tight"``, as in a notebook), so no label is cut off.
    """
    if fig.get_layout_engine() is not None:
        return True
    import matplotlib

    params = fig.subplotpars
    names = ("left", "right", "bottom", "top", "wspace", "hspace")
    return any(getattr(params, name) != matplotlib.rcParams[f"figure.subplot.{name}"] for name in names)


def figure_alt(fig: Any, index: int) -> str:
    """Alt text for a figure: its suptitle, else the first axes title, else 'Figure N'."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text().strip():
        return sup.get_text().strip()
    for ax in fig.get_axes():
        for loc in ("center", "left", "right"):
            title = ax.get_title(loc=loc).strip()
            if title:
                return title
    return f"Figure {index}"


def install_input_guard() -> None:
    """Make ``input()`` raise a RuntimeError that explains what to do instead."""

    def _no_input(prompt: object = "", /) -> str:
        raise RuntimeError(INPUT_MESSAGE)

    _no_input.__name__ = "input"
    _no_input.__qualname__ = "input"
    builtins.input = _no_input


# --------------------------------------------------------------------------- helpers


def _register_source(filename: str, code: str) -> None:
    """Make the cell's source visible to linecache so tracebacks show its lines."""
    _CELL_FILES.add(filename)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)


def _ends_with_semicolon(code: str, node: ast.stmt) -> bool:
    """Whether the statement is followed by ``;`` on its last line (Jupyter's "hide the result")."""
    lines = code.splitlines()
    if node.end_lineno is None or node.end_col_offset is None or node.end_lineno > len(lines):
        return False
    rest = lines[node.end_lineno - 1].encode()[node.end_col_offset :].decode(errors="replace")
    return rest.lstrip().startswith(";")


def _is_cell_frame(frame: traceback.FrameSummary) -> bool:
    return frame.filename in _CELL_FILES


def _trim(te: traceback.TracebackException, seen: set[int]) -> None:
    if id(te) in seen:
        return
    seen.add(id(te))
    frames = [f for f in te.stack if _is_cell_frame(f)]
    te.stack = traceback.StackSummary.from_list(frames)
    for other in (te.__cause__, te.__context__):
        if other is not None:
            _trim(other, seen)
    for sub in getattr(te, "exceptions", None) or ():
        _trim(sub, seen)


def _has_hint(exc: BaseException) -> bool:
    return any("is not available in this course" in n for n in getattr(exc, "__notes__", ()))


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
