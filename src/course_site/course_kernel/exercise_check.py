"""Run an exercise's hidden check after the learner's code and say, in plain words, what failed.

Shared by the browser (the Pyodide worker) and by the site build (which proves
that every solution passes its check and every starter fails it). Pure standard
library; numpy is imported only to compare arrays.

The check is Python that runs after the learner's code, seeing the learner's
names. It fails at its first failing statement, and the learner reads one
sentence about it, never a traceback from inside the check:

- ``assert cond, "message"`` gives ``message``;
- a bare ``assert cond`` gives ``check failed: `assert cond```;
- a name the learner did not define gives ``"`name` is not defined — …"``;
- an exception raised in the learner's code (a function the check calls)
  gives ``"your code raised … when the check ran `statement`"``;
- anything else names the check's statement and the exception.

The check also sees the helpers `expect_defined`, `expect_equal` and
`expect_close`. Its own names do not leak into the learner's namespace.
"""

from __future__ import annotations

import ast
import contextlib
import io
import numbers
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CheckResult",
    "expect_close",
    "expect_equal",
    "run_check",
    "run_exercise",
]

try:
    from course_kernel.strings import t  # the site's catalogue: exercise.* (course_site/catalogues/)
except ImportError:  # pasted into a lesson's notebook, whose first cell defines `t` over the lesson's words
    pass

CHECK_FILE = "<check>"
_REPR_LIMIT = 80

RunCell = Callable[..., bool]  # cell_exec.run_cell(code, namespace, *, filename, emit) -> ok
Emit = Callable[[str, object], None]


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one run: ``passed``, and the sentence the learner reads."""

    passed: bool
    message: str
    stage: str = "check"  # what ran last: "setup" or "code" raised (the checks did not run), or the "check"


def run_exercise(
    setup: str,
    code: str,
    check: str,
    *,
    run_cell: RunCell,
    emit: Emit,
    namespace: dict[str, Any] | None = None,
    setup_file: str = "<setup>",
    code_file: str = "<exercise>",
) -> CheckResult:
    """Run ``setup``, then the learner's ``code``, then the ``check``, in one namespace.

    ``run_cell`` runs code as a cell does (it emits output and tracebacks
    through ``emit`` and returns whether no exception escaped); ``namespace``
    defaults to a fresh ``__main__``. The check runs only if both ran cleanly.
    """
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    if setup.strip() and not run_cell(setup, namespace, filename=setup_file, emit=emit):
        return CheckResult(False, t("exercise.setup_raised"), "setup")
    if not run_cell(code, namespace, filename=code_file, emit=emit):
        return CheckResult(False, t("exercise.code_raised"), "code")
    return run_check(check, namespace)


def run_check(check: str, namespace: dict[str, Any]) -> CheckResult:
    """Run ``check`` over a copy of ``namespace`` plus the helpers; stop at its first failure.

    What the check prints is discarded. ``KeyboardInterrupt`` and ``SystemExit``
    (a Stop, or the learner's code exiting) propagate.
    """
    scope = {**namespace, **_helpers(namespace)}
    try:
        compiled = compile(check, CHECK_FILE, "exec")
    except SyntaxError as exc:
        return CheckResult(False, t("exercise.check_syntax", line=exc.lineno, reason=exc.msg))
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compiled, scope)
    except Exception as exc:
        return CheckResult(False, _failure_message(exc, check))
    return CheckResult(True, t("exercise.passed"))


# --------------------------------------------------------------------------- helpers


def _helpers(namespace: dict[str, Any]) -> dict[str, Callable[..., None]]:
    def expect_defined(*names: str) -> None:
        """Fail unless the learner's code defined every one of ``names``."""
        for name in names:
            if name not in namespace:
                raise AssertionError(_undefined(name))

    return {"expect_defined": expect_defined, "expect_equal": expect_equal, "expect_close": expect_close}


def expect_equal(actual: object, expected: object, *, name: str | None = None) -> None:
    """Fail unless ``actual == expected`` (arrays: same shape and entries).

    >>> expect_equal(3, 4, name="period")
    Traceback (most recent call last):
    AssertionError: `period` is 3, expected 4
    """
    name = t("exercise.the_result") if name is None else name
    if _is_array(actual) or _is_array(expected):
        import numpy as np

        got, want = np.asarray(actual), np.asarray(expected)
        _expect_shape(got, want, name)
        if not np.array_equal(got, want):
            index = tuple(int(i) for i in np.argwhere(got != want)[0])
            raise AssertionError(
                t("exercise.differs_at", name=name, index=list(index), got=_short(got[index]), want=_short(want[index]))
            )
        return
    if actual != expected:
        raise AssertionError(t("exercise.differs", name=name, got=_short(actual), want=_short(expected)))


def expect_close(
    actual: object,
    expected: object,
    *,
    name: str | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-8,
) -> None:
    """Fail unless ``|actual - expected| <= atol + rtol * |expected|`` entry by entry.

    Numbers compare as they are; anything else is compared as a numpy array,
    first by shape, then by value (NaN matches NaN). The message gives both
    shapes, or the largest difference and where it is.

    >>> expect_close([[1.0, 2.0]], [1.0, 2.0], name="pe")
    Traceback (most recent call last):
    AssertionError: `pe` has shape (1, 2), expected shape (2,)
    """
    name = t("exercise.the_result") if name is None else name
    if _is_number(actual) and _is_number(expected):
        difference = abs(actual - expected)
        if not difference <= atol + rtol * abs(expected):
            raise AssertionError(
                t(
                    "exercise.not_close_scalar",
                    name=name,
                    got=_short(actual),
                    want=_short(expected),
                    difference=f"{difference:.3g}",
                )
            )
        return
    import numpy as np

    got = np.asarray(actual)
    if got.dtype.kind not in "biufc":
        raise AssertionError(t("exercise.not_numbers", name=name, got=_short(actual)))
    got, want = got.astype(float) if got.dtype.kind == "b" else got, np.asarray(expected)
    _expect_shape(got, want, name)
    difference = np.abs(got - want)
    close = (difference <= atol + rtol * np.abs(want)) | (np.isnan(got) & np.isnan(want))
    if close.all():
        return
    index = np.unravel_index(np.argmax(np.where(close, -1.0, np.nan_to_num(difference, nan=np.inf))), got.shape)
    where = t("exercise.at_index", index=[int(i) for i in index]) if got.ndim else ""
    raise AssertionError(
        t(
            "exercise.not_close",
            name=name,
            differ=int((~close).sum()),
            count=close.size,
            difference=_short(difference[index]),
            where=where,
            got=_short(got[index]),
            want=_short(want[index]),
        )
    )


def _expect_shape(got: Any, want: Any, name: str) -> None:
    if got.shape != want.shape:
        raise AssertionError(t("exercise.shape", name=name, got=got.shape, want=want.shape))


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Number) and not _is_array(value)


def _is_array(value: object) -> bool:
    """A numpy array (or anything with a shape), without importing numpy."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and getattr(value, "ndim", 0) > 0


def _short(value: object) -> str:
    text = repr(value.item() if hasattr(value, "item") and getattr(value, "ndim", 1) == 0 else value)
    text = " ".join(text.split())
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 1] + "…"


def _undefined(name: str) -> str:
    return t("exercise.undefined", name=name)


# --------------------------------------------------------------------------- messages


def _failure_message(exc: Exception, check: str) -> str:
    """One sentence for the check's failure, about the check's statement that was running."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = max((k for k, frame in enumerate(frames) if frame.filename == CHECK_FILE), default=-1)
    statement = _statement(check, frames[last].lineno) if last >= 0 else ""
    # Code run from text (a cell, the learner's code) has a "<...>" file name; libraries have paths.
    if any(frame.filename.startswith("<") for frame in frames[last + 1 :]):
        return t("exercise.code_raised_in_check", error=_exception_line(exc), statement=statement)
    if isinstance(exc, AssertionError):
        return str(exc) if str(exc) else t("exercise.check_failed", statement=statement)
    if isinstance(exc, NameError) and exc.name and last == len(frames) - 1:
        return _undefined(exc.name)
    return t("exercise.check_raised", statement=statement, error=_exception_line(exc))


def _statement(source: str, line: int | None) -> str:
    """The innermost statement of ``source`` on ``line``, on one line."""
    innermost: ast.stmt | None = None
    for node in ast.walk(ast.parse(source)):  # breadth first: a nested statement comes later
        if isinstance(node, ast.stmt) and node.lineno <= (line or 0) <= (node.end_lineno or node.lineno):
            if innermost is None or _span(node) <= _span(innermost):
                innermost = node
    text = ast.get_source_segment(source, innermost) if innermost else None
    return " ".join((text or "").split())


def _span(node: ast.stmt) -> int:
    return (node.end_lineno or node.lineno) - node.lineno


def _exception_line(exc: BaseException) -> str:
    """``TypeError: message``, named by its first public class, without the module."""
    name = next(cls.__name__ for cls in type(exc).__mro__ if not cls.__name__.startswith("_"))
    return f"{name}: {exc}" if str(exc) else name
