"""Run one course cell the way a notebook/REPL does.

Called through ``course_kernel.bridge`` by the one cell runner, in the browser's worker
and in the build's Python under Node, and by the lesson tests in CPython.  Pure
standard library; nothing here imports ``js`` or ``pyodide``.

The host owns stdout/stderr (the worker streams them with ``setStdout``; the
build redirects ``sys.stdout``).  Everything else a cell produces goes through
``emit(kind, payload)``:

``("result", str)``
    ``repr`` of a final bare expression, unless it is ``None``.
``("error", str)``
    a traceback trimmed to the learner's frames, plus the exception line.
``("figure", {"png": bytes, "alt": str, "scheme": str, "text_px": float, "png_dark": bytes?})``
    every open matplotlib figure, in order (then closed): at each
    ``plt.show()`` and after the cell (``figures.figure``). ``png`` is drawn for the
    first of the run's :attr:`Session.schemes` (``scheme``: Material's ``default`` or
    ``slate``); the build asks for both, and ``png_dark`` is the ``slate`` one
    (``figure_style.py``). ``text_px`` is the height of its smallest text in the PNG's
    pixels (its font size), so that a page can tell how tall its text is as shown.

What a host decides for a run (the figures' colour schemes, the note on a missing
module) is a :class:`Session`, passed to each run; this module keeps no setting
between runs.

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
import codeop
import contextlib
import contextvars
import functools
import importlib.abc
import importlib.util
import inspect
import linecache
import os
import sys
import traceback
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from types import CodeType, ModuleType
from typing import Any, NoReturn

from course_kernel import figures
from course_kernel.strings import t

__all__ = [
    "Session",
    "install_input_guard",
    "module_references",
    "needs_more_input",
    "run_cell",
    "run_cells",
]

Emit = Callable[[str, object], None]

#: What running a cell gives: True/False at once, or a coroutine giving it (a cell that awaits).
Outcome = bool | Coroutine[Any, Any, bool]

#: Message of the ``RuntimeError`` raised by ``input()`` once the guard is installed.
_INPUT_MESSAGE = "input() is not available in the course's cells; set the value in code instead, e.g. name = 'Ada'"

#: Line added to the error of a thread started where Python has one thread (Pyodide).

# The RuntimeError that threading.Thread.start raises where threads cannot start.
_NO_THREAD_MESSAGE = "can't start new thread"

# Filenames of code run through run_cell; their frames are the learner's and are
# kept in tracebacks (a function defined in one cell may fail when called in another).
_CELL_FILES: set[str] = set()


@dataclass(frozen=True)
class Session:
    """What a host decides for its runs: passed to :func:`run_cell` and :func:`run_cells`.

    ``schemes``: the colour schemes each figure is saved in, Material's ``default`` and/or
    ``slate``, the first one sent as ``png`` (the page's own in the browser, both at build time).
    ``module_hint``: the note on an uncaught ``ModuleNotFoundError``; ``{name}`` is the module
    (the plugin's ``module_hint``). ``alt``: the alt text of the run's figures (a fence's ``alt``),
    ``{name}`` filled from the namespace after the run (`figures.alt_text`); "" describes each figure.

    >>> Session(schemes=("slate",)).schemes
    ('slate',)
    """

    schemes: tuple[str, ...] = ("default",)
    module_hint: str = ""  # "": the catalogue's python.module_hint
    alt: str = ""

    def __post_init__(self) -> None:
        known = tuple(scheme for scheme in self.schemes if scheme in figures.SCHEME_ORDER)
        object.__setattr__(self, "schemes", known or ("default",))


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


def needs_more_input(source: str) -> bool:
    r"""Whether a console's ``source`` is an unfinished statement, as Python's own prompt decides.

    ``codeop.compile_command`` in ``"single"`` mode (``code.InteractiveConsole``'s rule): an open
    bracket, string or ``:`` block waits for more, and a block ends with an empty line. Several
    statements at once (a paste) are judged as a module: they wait only while the last line is
    indented, that is while a block goes on. A last line of only spaces is an empty line (an editor
    indents the line after a block's first). Code that can never compile is finished: running it
    makes Python say what is wrong.

    >>> needs_more_input("def f():"), needs_more_input("def f():\n    return 1")
    (True, True)
    >>> needs_more_input("def f():\n    return 1\n"), needs_more_input("x + 1"), needs_more_input("1 +")
    (False, False, False)
    >>> needs_more_input("x = 1\nfor i in range(2):\n    print(i)"), needs_more_input("x = 1\ny = 2")
    (True, False)
    >>> needs_more_input("def f():\n    return 1\n    "), needs_more_input("x = (1,\n    ")
    (False, True)
    """
    if not source.strip():
        return False
    lines = source.split("\n")
    if len(lines) > 1 and not lines[-1].strip():
        source = source.rstrip() + "\n"  # an empty line (an editor may have indented it) ends a block
    try:
        return codeop.compile_command(source, "<console>", "single") is None
    except (SyntaxError, OverflowError, ValueError):
        pass
    try:
        if codeop.compile_command(source, "<console>", "exec") is None:
            return True
    except (SyntaxError, OverflowError, ValueError):
        return False
    last = source.rsplit("\n", 1)[-1]
    return last[:1].isspace()


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
    session: Session = Session(),
) -> Outcome:
    """Execute ``code`` in ``namespace``; give True if no exception escaped.

    All statements are executed; a final bare expression is evaluated and its
    ``repr`` emitted as ``("result", …)`` when it is not ``None`` (like a REPL;
    as in Jupyter, a trailing ``;`` hides it).
    An exception is emitted as ``("error", traceback_text)`` with line numbers
    relative to ``code`` (1-based); ``SystemExit`` as its last line only.
    ``plt.show()`` emits every open figure at that point as
    ``("figure", {"png", "alt", …})`` and closes it; afterwards, the figures still
    open are emitted and closed the same way — also after an error. ``session``
    gives the figures' colour schemes and the note on a missing module.

    A cell that awaits at top level (``await``, ``async for``, ``async with``)
    is not run yet: the return value is then a coroutine that runs it, with
    the same outputs, and gives the same bool. Any other cell runs at once.
    """
    _register_source(filename, code)
    run = _CellRun(emit, session, namespace)
    try:
        body, last = _compile_cell(code, filename)
    except BaseException as exc:
        run.fail(exc)
        return run.end()
    if _awaits(body) or _awaits(last):
        return run.run_awaiting(body, last, namespace)
    return run.run(body, last, namespace)


def run_cells(
    sources: Iterable[tuple[str, str]], namespace: dict[str, Any], *, emit: Emit, session: Session = Session()
) -> Outcome:
    """Run ``(code, filename)`` pairs with :func:`run_cell` in order, up to the first that fails.

    True if all succeeded. Synchronous as long as no cell awaits at top level;
    from the first one that does, the rest runs in the coroutine returned.
    """
    pending = iter(sources)
    for code, filename in pending:
        outcome = run_cell(code, namespace, filename=filename, emit=emit, session=session)
        if not isinstance(outcome, bool):
            return _await_in_order(outcome, pending, namespace, emit, session)
        if not outcome:
            return False
    return True


async def _await_in_order(
    first: Coroutine[Any, Any, bool],
    rest: Iterator[tuple[str, str]],
    namespace: dict[str, Any],
    emit: Emit,
    session: Session,
) -> bool:
    if not await first:
        return False
    for code, filename in rest:
        outcome = run_cell(code, namespace, filename=filename, emit=emit, session=session)
        if not (outcome if isinstance(outcome, bool) else await outcome):
            return False
    return True


class _CellRun:
    """One run of one cell: where its output goes, and whether something failed."""

    def __init__(self, emit: Emit, session: Session, namespace: dict[str, Any]) -> None:
        self.emit = emit
        self.session = session
        self.namespace = namespace  # where an alt text's {name} is looked up
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
        _show_figures_on_pyplot_show()
        _flush_std_before_os_exit()
        token = _CURRENT_RUN.set(self)
        try:
            yield
        finally:
            _CURRENT_RUN.reset(token)

    def show_result(self, value: object, namespace: dict[str, Any]) -> None:
        if value is not None:
            namespace["_"] = value
            _flush_std()
            self.emit("result", repr(value))

    def fail(self, exc: BaseException) -> None:
        self.ok = False
        _flush_std()
        self.emit("error", _format_exception(exc, self.session.module_hint))

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
                try:
                    fig, number = plt.figure(num), self.figures + 1
                    alt = figures.alt_text(fig, number, self.session.alt, self.namespace)
                    shown = figures.figure(fig, alt, self.session.schemes)
                except Exception as exc:
                    self.fail(exc)
                    continue
                self.figures += 1
                _flush_std()
                self.emit("figure", shown)
        finally:
            plt.close("all")

    def end(self) -> bool:
        self.show_figures()
        _flush_std()
        return self.ok


#: The run whose cell is executing now, in this thread or task: ``plt.show()`` emits its figures there.
_CURRENT_RUN: contextvars.ContextVar[_CellRun | None] = contextvars.ContextVar("cell_run", default=None)


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


def _format_exception(exc: BaseException, module_hint: str) -> str:
    """Traceback text of ``exc`` limited to frames of code run by :func:`run_cell`.

    ``SystemExit`` (``sys.exit()``, ``exit()``) is its last line only, as in
    IPython: the cell stopped, Python did not.
    """
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        _add_note_once(exc, module_hint.format(name=top) if module_hint else t("python.module_hint", name=repr(top)))
    if isinstance(exc, RuntimeError) and str(exc) == _NO_THREAD_MESSAGE:
        _add_note_once(exc, t("python.thread_hint"))
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
    run = _CURRENT_RUN.get()
    if run is None:
        return _pyplot_show.__wrapped__(*args, **kwargs)
    run.show_figures()
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
