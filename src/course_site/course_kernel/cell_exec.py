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
``("figure", {"png": bytes, "alt": str, "scheme": str, "text_px": float, "png_dark": bytes?})``
    every open matplotlib figure, in order (then closed): at each
    ``plt.show()`` and after the cell. ``png`` is drawn for the first of the
    colour schemes that :func:`set_figure_schemes` chose (``scheme``: Material's
    ``default`` or ``slate``); the build asks for both, and ``png_dark`` is the
    ``slate`` one (``figure_style.py``). ``text_px`` is the height of its smallest
    text in the PNG's pixels (its font size), so that a page can tell how tall its text
    is as shown.

A cell that awaits at top level (``await``, ``async for``, ``async with``, as
in Jupyter) makes :func:`run_cell` return a coroutine instead of a bool: the
host awaits it (the browser's worker on Pyodide's event loop, the build with
``loop.run_until_complete``).

The first run patches two functions for the cells: ``matplotlib.pyplot.show``
(once pyplot is imported) emits the figures, and ``os._exit`` flushes stdout
and stderr before it ends the process (in Pyodide: the runtime).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import importlib.abc
import importlib.util
import inspect
import io
import linecache
import os
import re
import sys
import traceback
from collections.abc import Callable, Coroutine, Iterable, Iterator
from types import CodeType, ModuleType
from typing import Any, NoReturn

__all__ = [
    "THREAD_HINT",
    "install_input_guard",
    "module_references",
    "run_cell",
    "run_cells",
    "set_figure_schemes",
    "set_module_hint",
]

Emit = Callable[[str, object], None]

#: What running a cell gives: True/False at once, or a coroutine giving it (a cell that awaits).
Outcome = bool | Coroutine[Any, Any, bool]

#: Note added to an uncaught ``ModuleNotFoundError``; ``{name}`` is the module.
#: The host sets the course's own with :func:`set_module_hint` (the plugin's ``module_hint``).
_module_hint = "module {name!r} is not available in this course"

#: Message of the ``RuntimeError`` raised by ``input()`` once the guard is installed.
_INPUT_MESSAGE = "input() is not available in the course's cells; set the value in code instead, e.g. name = 'Ada'"

#: Line added to the error of a thread started where Python has one thread (Pyodide).
THREAD_HINT = "Hint: threads are not available in the browser (Pyodide runs Python on one thread); use asyncio instead."

# The RuntimeError that threading.Thread.start raises where threads cannot start.
_NO_THREAD_MESSAGE = "can't start new thread"

# Filenames of code run through run_cell; their frames are the learner's and are
# kept in tracebacks (a function defined in one cell may fail when called in another).
_CELL_FILES: set[str] = set()

FIGURE_DPI = 100
#: The colour schemes each figure is saved in (Material's "default" and/or "slate"), in order.
_figure_schemes: tuple[str, ...] = ("default",)
FIGURE_ALT_ATTRIBUTE = "alt_text"  # fig.alt_text = "…": the author's own alt text for a figure


def set_figure_schemes(schemes: Iterable[str]) -> None:
    """Save each figure in these colour schemes: the page's one in the browser, both at build time."""
    global _figure_schemes
    _figure_schemes = tuple(schemes) or ("default",)


def set_module_hint(text: str) -> None:
    """Use ``text`` as the note on an uncaught ``ModuleNotFoundError``; ``{name}`` is the module."""
    global _module_hint
    _module_hint = text


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
) -> Outcome:
    """Execute ``code`` in ``namespace``; give True if no exception escaped.

    All statements are executed; a final bare expression is evaluated and its
    ``repr`` emitted as ``("result", …)`` when it is not ``None`` (like a REPL;
    as in Jupyter, a trailing ``;`` hides it).
    An exception is emitted as ``("error", traceback_text)`` with line numbers
    relative to ``code`` (1-based); ``SystemExit`` as its last line only.
    ``plt.show()`` emits every open figure at that point as
    ``("figure", {"png", "alt"})`` and closes it; afterwards, the figures still
    open are emitted and closed the same way — also after an error.

    A cell that awaits at top level (``await``, ``async for``, ``async with``)
    is not run yet: the return value is then a coroutine that runs it, with
    the same outputs, and gives the same bool. Any other cell runs at once.
    """
    _register_source(filename, code)
    run = _CellRun(emit)
    try:
        body, last = _compile_cell(code, filename)
    except BaseException as exc:
        run.fail(exc)
        return run.end()
    if _awaits(body) or _awaits(last):
        return run.run_awaiting(body, last, namespace)
    return run.run(body, last, namespace)


def run_cells(sources: Iterable[tuple[str, str]], namespace: dict[str, Any], *, emit: Emit) -> Outcome:
    """Run ``(code, filename)`` pairs with :func:`run_cell` in order, up to the first that fails.

    True if all succeeded. Synchronous as long as no cell awaits at top level;
    from the first one that does, the rest runs in the coroutine returned.
    """
    pending = iter(sources)
    for code, filename in pending:
        outcome = run_cell(code, namespace, filename=filename, emit=emit)
        if not isinstance(outcome, bool):
            return _await_in_order(outcome, pending, namespace, emit)
        if not outcome:
            return False
    return True


async def _await_in_order(
    first: Coroutine[Any, Any, bool], rest: Iterator[tuple[str, str]], namespace: dict[str, Any], emit: Emit
) -> bool:
    if not await first:
        return False
    for code, filename in rest:
        outcome = run_cell(code, namespace, filename=filename, emit=emit)
        if not (outcome if isinstance(outcome, bool) else await outcome):
            return False
    return True


class _CellRun:
    """One run of one cell: where its output goes, and whether something failed."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.ok = True
        self.figures = 0  # figures emitted so far (they are numbered across plt.show() calls)

    def run(self, body: CodeType | None, last: CodeType | None, namespace: dict[str, Any]) -> bool:
        with self._running():
            try:
                if body is not None:
                    exec(body, namespace)
                if last is not None:
                    self.show_result(eval(last, namespace), namespace)
            except BaseException as exc:
                self.fail(exc)
            return self.end()

    async def run_awaiting(self, body: CodeType | None, last: CodeType | None, namespace: dict[str, Any]) -> bool:
        with self._running():
            try:
                if body is not None:
                    await _evaluate(body, namespace)
                if last is not None:
                    self.show_result(await _evaluate(last, namespace), namespace)
            except BaseException as exc:
                self.fail(exc)
            return self.end()

    @contextlib.contextmanager
    def _running(self) -> Iterator[None]:
        """Make this run the one that ``plt.show()`` emits to, while it runs."""
        global _current_run
        _show_figures_on_pyplot_show()
        _flush_std_before_os_exit()
        outer, _current_run = _current_run, self
        try:
            yield
        finally:
            _current_run = outer

    def show_result(self, value: object, namespace: dict[str, Any]) -> None:
        if value is not None:
            namespace["_"] = value
            _flush_std()
            self.emit("result", repr(value))

    def fail(self, exc: BaseException) -> None:
        self.ok = False
        _flush_std()
        self.emit("error", _format_exception(exc))

    def show_figures(self) -> None:
        """Emit and close all open matplotlib figures (an error for one that cannot be saved).

        Does nothing unless ``matplotlib.pyplot`` has already been imported (never
        imports matplotlib itself).
        """
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None:
            return
        try:
            for num in plt.get_fignums():
                fig = plt.figure(num)
                try:
                    pngs = _figure_pngs(fig)
                except Exception as exc:
                    self.fail(exc)
                    continue
                self.figures += 1
                _flush_std()
                scheme = _figure_schemes[0]
                alt = _figure_alt(fig, self.figures)
                figure = {"png": pngs[scheme], "alt": alt, "scheme": scheme, "text_px": _smallest_text_px(fig)}
                if len(pngs) > 1 and "slate" in pngs:
                    figure["png_dark"] = pngs["slate"]
                self.emit("figure", figure)
        finally:
            plt.close("all")

    def end(self) -> bool:
        self.show_figures()
        _flush_std()
        return self.ok


# The run whose cell is executing now: plt.show() emits its figures there.
_current_run: _CellRun | None = None


def _compile_cell(code: str, filename: str) -> tuple[CodeType | None, CodeType | None]:
    """The cell's statements and its final bare expression (each None when absent), compiled.

    Compiled as Jupyter does, with top-level ``await`` allowed: a code object
    that awaits has ``CO_COROUTINE`` set, and evaluating it gives a coroutine.
    """
    tree = ast.parse(code, filename=filename, mode="exec")
    last: ast.expr | None = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(code, tree.body[-1]):
        last = tree.body.pop().value
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = compile(tree, filename, "exec", flags=flags) if tree.body else None
    expression = compile(ast.Expression(last), filename, "eval", flags=flags) if last is not None else None
    return body, expression


def _awaits(code: CodeType | None) -> bool:
    return code is not None and bool(code.co_flags & inspect.CO_COROUTINE)


async def _evaluate(code: CodeType, namespace: dict[str, Any]) -> object:
    """The value of ``code`` in ``namespace``, awaited if the code awaits at top level."""
    value = eval(code, namespace)
    return await value if _awaits(code) else value


def _format_exception(exc: BaseException) -> str:
    """Traceback text of ``exc`` limited to frames of code run by :func:`run_cell`.

    ``SystemExit`` (``sys.exit()``, ``exit()``) is its last line only, as in
    IPython: the cell stopped, Python did not.
    """
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        _add_note_once(exc, _module_hint.format(name=exc.name.partition(".")[0]))
    if isinstance(exc, RuntimeError) and str(exc) == _NO_THREAD_MESSAGE:
        _add_note_once(exc, THREAD_HINT)
    if isinstance(exc, SystemExit):
        return "".join(traceback.format_exception_only(exc))
    te = traceback.TracebackException.from_exception(exc, capture_locals=False)
    _trim(te, set())
    text = "".join(te.format())
    return text.rstrip("\n") + "\n"


def _show_figures_on_pyplot_show() -> None:
    """Make ``plt.show()`` emit the figures of the cell that calls it (see :func:`_pyplot_show`).

    pyplot is patched now if it is imported, else as soon as a cell imports it.
    """
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        _patch_pyplot_show(plt)
    elif not any(isinstance(finder, _PyplotImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PyplotImportHook())


def _flush_std_before_os_exit() -> None:
    """Make ``os._exit`` flush stdout and stderr first, so that the last words of a cell reach the page.

    In Pyodide ``os._exit(n)`` ends the runtime at once (the worker sees a JS
    error named "Exit" with ``status`` n), dropping a line printed without a newline.
    """
    if hasattr(os._exit, "__wrapped__"):
        return
    exit_now = os._exit

    @functools.wraps(exit_now)
    def _exit(status: int) -> NoReturn:
        _flush_std()
        exit_now(status)

    os._exit = _exit


def _patch_pyplot_show(plt: ModuleType) -> None:
    if plt.show is _pyplot_show:
        return
    # Always wrap matplotlib's own show (another copy of this module may have patched it).
    _pyplot_show.__wrapped__ = getattr(plt.show, "__wrapped__", plt.show)
    plt.show = _pyplot_show


def _pyplot_show(*args: Any, **kwargs: Any) -> None:
    """``plt.show()`` in a cell: emit every open figure now and close it, as Jupyter's inline backend does.

    Agg's own show only warns that it cannot show anything. Outside a cell,
    matplotlib's show runs.
    """
    if _current_run is None:
        return _pyplot_show.__wrapped__(*args, **kwargs)
    _current_run.show_figures()
    return None


class _PyplotImportHook(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Patches ``plt.show`` right after ``matplotlib.pyplot`` is first imported, then leaves ``sys.meta_path``."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "matplotlib.pyplot":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            self._loader = spec.loader
            spec.loader = self
        return spec

    def create_module(self, spec: Any) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _patch_pyplot_show(module)


def _figure_pngs(fig: Any) -> dict[str, bytes]:
    """``fig`` as a PNG in each colour scheme of ``_figure_schemes`` (``figure_style.restyle`` recolours it)."""
    pngs = {}
    # "tight" draws the figure twice: only for figures whose layout nobody chose.
    tight = None if laid_out(fig) else "tight"
    for scheme in sorted(_figure_schemes, key=("default", "slate").index):  # restyling goes one way
        if scheme != "default":
            _figure_style().restyle(fig, scheme)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches=tight)
        pngs[scheme] = buf.getvalue()
    return pngs


def _smallest_text_px(fig: Any) -> float:
    """The font size, in the PNG's pixels, of the figure's smallest visible text (0.0 without text)."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return round(min(sizes) * FIGURE_DPI / 72, 2) if sizes else 0.0


def _figure_style() -> ModuleType:
    """``figure_style.py``, which lies beside this file (imported by name where the host put both on the path)."""
    try:
        import figure_style
    except ImportError:  # this file was loaded by its path (the tests): load its neighbour the same way
        path = os.path.join(os.path.dirname(__file__), "figure_style.py")
        spec = importlib.util.spec_from_file_location("figure_style", path)
        figure_style = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(figure_style)
    return figure_style


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


def _figure_alt(fig: Any, index: int) -> str:
    """Alt text for a figure: the author's ``fig.alt_text``, else a description of its axes, else 'Figure N'.

    The description is the suptitle, then what each panel is (heatmap, line plot, …)
    with its title, size, axis labels and named lines; colorbars are left out.
    """
    explicit = getattr(fig, FIGURE_ALT_ATTRIBUTE, None)
    if isinstance(explicit, str) and explicit.strip():
        return explicit.strip()
    sentences = [_plain_label(fig.get_suptitle())]
    panels = [ax for ax in fig.get_axes() if ax.get_visible() and getattr(ax, "_colorbar", None) is None]
    for number, ax in enumerate(panels, start=1):
        described = _axes_alt(ax)
        sentences.append(f"Panel {number}: {described}" if len(panels) > 1 else described[:1].upper() + described[1:])
    text = ". ".join(sentence.rstrip(".") for sentence in sentences if sentence)
    return text or f"Figure {index}"


def _axes_alt(ax: Any) -> str:
    """One panel in words: its kind and title, then size, axis labels and named lines, as there are."""
    title = next((ax.get_title(loc=loc) for loc in ("center", "left", "right") if ax.get_title(loc=loc).strip()), "")
    kind, size = _plot_kind(ax)
    parts = [f"{kind} titled “{_plain_label(title)}”" if title.strip() else kind]
    parts += [size] if size else []
    for axis, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
        if label.strip():
            parts.append(f"{axis} axis: {_plain_label(label)}")
    named = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    if named:
        parts.append("lines: " + ", ".join(f"“{_plain_label(name)}”" for name in named))
    return "; ".join(parts)


def _plot_kind(ax: Any) -> tuple[str, str]:
    """``(kind, size)`` of what an axes draws: an image of a 2-D array is a heatmap of its rows by columns."""
    if ax.images:
        shape = ax.images[0].get_array().shape
        kind = "heatmap" if len(shape) == 2 else "image"
        return kind, f"{shape[0]} rows by {shape[1]} columns"
    if ax.get_lines():
        return "line plot", ""
    if any(type(container).__name__ == "BarContainer" for container in ax.containers):
        return "bar chart", ""
    if ax.collections:
        return "scatter plot", ""
    return "empty plot", ""


_MATH_FONT = re.compile(r"\\math[a-z]+\{([^{}]*)\}")
_MATH_SYMBOLS = {r"\cdot": "·", r"\times": "×"}


def _plain_label(text: str) -> str:
    """A label's text without matplotlib's mathtext markup: ``$\\mathrm{PE}_p \\cdot x$`` reads ``PE_p · x``."""
    if "$" not in text:
        return text.strip()
    text = _MATH_FONT.sub(r"\1", text.replace("$", ""))
    for command, symbol in _MATH_SYMBOLS.items():
        text = text.replace(command, symbol)
    return re.sub(r"\\([A-Za-z]+)", r"\1", text).replace("{", "").replace("}", "").strip()


def install_input_guard() -> None:
    """Make ``input()`` raise a RuntimeError that explains what to do instead."""

    def _no_input(prompt: object = "", /) -> str:
        raise RuntimeError(_INPUT_MESSAGE)

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


def _add_note_once(exc: BaseException, note: str) -> None:
    """Add ``note`` unless it is there (a later cell may raise the same exception object again)."""
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
