"""Notebook habits in cells, in CPython: top-level ``await``, ``plt.show()``, threads, ``sys.exit``.

The module under test is the one the Pyodide worker runs and the build
imports (``course_kernel.cell_exec``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

from course_kernel import cell_exec as kernel
from course_kernel.strings import t

CELL_EXEC = kernel.__file__


def complete(coroutine):
    """``asyncio.run`` in a thread of its own: in a full test run, Playwright's sync API keeps an event loop
    running in the main thread (its session-wide browser), where ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture(scope="module")
def cell_exec():
    return kernel


class Outputs:
    """What a cell wrote and emitted, in order; stdout is recorded as it is written."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def __call__(self, kind: str, payload: object) -> None:
        self.events.append((kind, payload))

    def write(self, text: str) -> int:
        self.events.append(("stdout", text))
        return len(text)

    def flush(self) -> None:
        pass

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]

    def one(self, kind: str):
        found = [payload for k, payload in self.events if k == kind]
        assert len(found) == 1, self.events
        return found[0]


def run(cell_exec, code: str, namespace: dict | None = None):
    """``(outcome, outputs, namespace)`` of run_cell, with stdout recorded among the outputs."""
    outputs = Outputs()
    ns = {"__name__": "__main__"} if namespace is None else namespace
    stdout = sys.stdout
    sys.stdout = outputs
    try:
        outcome = cell_exec.run_cell(code, ns, filename="<cell 1>", emit=outputs)
    finally:
        sys.stdout = stdout
    return outcome, outputs, ns


def run_awaiting(cell_exec, code: str, namespace: dict | None = None):
    """Like :func:`run`, for a cell that awaits: run_cell gives a coroutine, run here to its end."""
    outcome, outputs, ns = run(cell_exec, code, namespace)
    assert asyncio.iscoroutine(outcome), outcome
    stdout = sys.stdout
    sys.stdout = outputs
    try:
        ok = complete(outcome)
    finally:
        sys.stdout = stdout
    return ok, outputs, ns


# -- top-level await (item 3) -------------------------------------------------------------


def test_a_cell_without_await_runs_at_once(cell_exec):
    outcome, outputs, _ = run(cell_exec, "x = 6\nx * 7")
    assert outcome is True
    assert outputs.events == [("result", "42")]


def test_await_at_top_level_runs_and_shows_the_awaited_value(cell_exec):
    code = "import asyncio\nprint('before')\nawait asyncio.sleep(0.01)\nawait asyncio.sleep(0, result='slept')"
    ok, outputs, ns = run_awaiting(cell_exec, code)
    assert ok is True
    assert outputs.events == [("stdout", "before"), ("stdout", "\n"), ("result", "'slept'")]
    assert ns["_"] == "slept"


def test_await_of_a_coroutine_the_cell_defines(cell_exec):
    code = "async def answer():\n    return 41\n\nvalue = await answer() + 1\nvalue"
    ok, outputs, ns = run_awaiting(cell_exec, code)
    assert ok is True and ns["value"] == 42
    assert outputs.events == [("result", "42")]


def test_only_the_last_expression_awaiting_is_enough(cell_exec):
    ok, outputs, _ = run_awaiting(cell_exec, "import asyncio\nawait asyncio.sleep(0, result=[1, 2])")
    assert ok is True
    assert outputs.events == [("result", "[1, 2]")]


def test_async_for_and_async_with_at_top_level(cell_exec):
    code = (
        "import asyncio, contextlib\n"
        "async def count(n):\n"
        "    for i in range(n):\n"
        "        await asyncio.sleep(0)\n"
        "        yield i\n"
        "@contextlib.asynccontextmanager\n"
        "async def opened():\n"
        "    yield 'inside'\n"
        "async with opened() as where:\n"
        "    seen = [i async for i in count(3)]\n"
        "async for i in count(2):\n"
        "    seen.append(i)\n"
        "where, seen"
    )
    ok, outputs, _ = run_awaiting(cell_exec, code)
    assert ok is True
    assert outputs.events == [("result", "('inside', [0, 1, 2, 0, 1])")]


def test_trailing_semicolon_hides_an_awaited_result(cell_exec):
    ok, outputs, _ = run_awaiting(cell_exec, "import asyncio\nawait asyncio.sleep(0, result=3);")
    assert ok is True and outputs.events == []


def test_error_after_await_is_trimmed_to_the_cells_lines(cell_exec):
    code = "import asyncio\n\nasync def ratio(a, b):\n    await asyncio.sleep(0)\n    return a / b\n\nawait ratio(1, 0)"
    ok, outputs, _ = run_awaiting(cell_exec, code)
    assert ok is False
    text = outputs.one("error")
    assert text.startswith("Traceback (most recent call last):\n")
    assert 'File "<cell 1>", line 7, in <module>\n    await ratio(1, 0)' in text
    assert 'File "<cell 1>", line 5, in ratio\n    return a / b' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "asyncio" not in text.replace("import asyncio", "").replace("asyncio.sleep", "")
    assert str(CELL_EXEC) not in text


def test_error_keeps_what_ran_before_it(cell_exec):
    ok, outputs, ns = run_awaiting(
        cell_exec, "import asyncio\nawait asyncio.sleep(0)\ndone = 1\nraise ValueError('bad')"
    )
    assert ok is False and ns["done"] == 1
    assert outputs.one("error").rstrip().endswith("ValueError: bad")


def test_keyboard_interrupt_in_an_awaiting_cell_is_reported(cell_exec):
    ok, outputs, _ = run_awaiting(cell_exec, "import asyncio\nawait asyncio.sleep(0)\nraise KeyboardInterrupt")
    assert ok is False
    assert outputs.one("error").rstrip().endswith("KeyboardInterrupt")


def test_await_inside_a_plain_function_is_still_a_syntax_error(cell_exec):
    outcome, outputs, _ = run(cell_exec, "def f():\n    await g()\n")
    assert outcome is False
    assert "SyntaxError" in outputs.one("error")


def test_run_cells_stays_synchronous_until_a_cell_awaits(cell_exec):
    ns: dict = {"__name__": "__main__"}
    outputs = Outputs()
    sources = [("a = 1", "<setup 1>"), ("a + 1", "<cell 1>")]
    assert cell_exec.run_cells(sources, ns, emit=outputs) is True
    assert outputs.events == [("result", "2")]

    outputs = Outputs()
    sources = [("import asyncio\nb = await asyncio.sleep(0, result=2)", "<setup 2>"), ("a + b", "<cell 2>")]
    outcome = cell_exec.run_cells(sources, ns, emit=outputs)
    assert complete(outcome) is True
    assert outputs.events == [("result", "3")]


def test_run_cells_stops_at_the_first_failure(cell_exec):
    ns: dict = {"__name__": "__main__"}
    outputs = Outputs()
    sources = [("import asyncio\nawait asyncio.sleep(0)\n1 / 0", "<setup 1>"), ("reached = True", "<cell 1>")]
    assert complete(cell_exec.run_cells(sources, ns, emit=outputs)) is False
    assert "reached" not in ns
    assert outputs.kinds() == ["error"]
    assert cell_exec.run_cells([("1 / 0", "<setup 2>"), ("reached = True", "<cell 2>")], ns, emit=outputs) is False
    assert "reached" not in ns


# -- threads and exits (item 7) ----------------------------------------------------------


def test_a_thread_that_cannot_start_gets_one_hint_line(cell_exec):
    # The error the pinned Pyodide raises from threading.Thread.start (checked in Pyodide under Node).
    code = 'def start():\n    raise RuntimeError("can\'t start new thread")\nstart()'
    ok, outputs, _ = run(cell_exec, code)
    assert ok is False
    lines = outputs.one("error").rstrip("\n").splitlines()
    assert lines[-2:] == ["RuntimeError: can't start new thread", t("python.thread_hint")]
    _, outputs, _ = run(cell_exec, "raise RuntimeError('something else')")
    assert t("python.thread_hint") not in outputs.one("error")


def test_sys_exit_is_reported_plainly(cell_exec):
    ok, outputs, _ = run(cell_exec, "import sys\nprint('leaving')\nsys.exit(3)\nprint('not reached')")
    assert ok is False
    assert outputs.events == [("stdout", "leaving"), ("stdout", "\n"), ("error", "SystemExit: 3\n")]
    _, outputs, _ = run(cell_exec, "raise SystemExit")
    assert outputs.one("error") == "SystemExit\n"


# -- plt.show() (item 4) -----------------------------------------------------------------


@pytest.fixture
def plt(monkeypatch):
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    # With a display set, Agg's own show warns "FigureCanvasAgg is non-interactive" on Linux too.
    monkeypatch.setenv("DISPLAY", ":0")
    plt.close("all")
    yield plt
    plt.close("all")


def figures(outputs: Outputs) -> list[str]:
    return [payload["alt"] for kind, payload in outputs.events if kind == "figure"]


def test_plt_show_shows_the_figure_there_once_and_without_a_warning(cell_exec, plt):
    code = (
        "import matplotlib.pyplot as plt\n"
        "print('before')\n"
        "plt.plot([1, 2]); plt.title('Shown')\n"
        "plt.show()\n"
        "print('after')\n"
        "plt.figure(); plt.plot([2, 1]);\n"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok, outputs, _ = run(cell_exec, code)
    assert ok is True
    assert [w.message for w in caught] == []
    assert outputs.kinds() == ["stdout", "stdout", "figure", "stdout", "stdout", "figure"]
    assert figures(outputs) == ["Line plot titled “Shown”", "Line plot"]
    assert plt.get_fignums() == []


def test_plt_show_shows_every_open_figure_and_a_closed_one_is_not_shown(cell_exec, plt):
    code = (
        "import matplotlib.pyplot as plt\n"
        "first = plt.figure(); first.suptitle('First')\n"
        "dropped = plt.figure(); dropped.suptitle('Dropped')\n"
        "second = plt.figure(); second.suptitle('Second')\n"
        "plt.close(dropped)\n"
        "plt.show()\n"
        "plt.show()\n"
        "last = plt.figure(); last.suptitle('Closed before the end')\n"
        "plt.close(last)\n"
    )
    ok, outputs, _ = run(cell_exec, code)
    assert ok is True
    assert figures(outputs) == ["First", "Second"]


def test_plt_show_after_posenc_plot(cell_exec, plt):
    code = (
        "import matplotlib.pyplot as plt\n"
        "import posenc, posenc.plot\n"
        "posenc.plot.heatmap(posenc.sinusoidal(8, 8))\n"
        "plt.show()\n"
        "print('shown')\n"
    )
    ok, outputs, _ = run(cell_exec, code)
    assert ok is True
    assert outputs.kinds() == ["figure", "stdout", "stdout"]
    assert outputs.events[0][1]["png"].startswith(b"\x89PNG")


def test_plt_show_in_an_awaiting_cell(cell_exec, plt):
    code = "import asyncio\nimport matplotlib.pyplot as plt\nplt.plot([1])\nawait asyncio.sleep(0)\nplt.show()\n'end'"
    ok, outputs, _ = run_awaiting(cell_exec, code)
    assert ok is True
    assert outputs.kinds() == ["figure", "result"]


def test_plt_show_outside_a_cell_is_matplotlibs(cell_exec, plt):
    run(cell_exec, "import matplotlib.pyplot as plt")  # patches plt.show
    assert plt.show.__wrapped__ is not plt.show
    plt.figure()
    with pytest.warns(UserWarning, match="non-interactive"):
        plt.show()


def test_a_host_can_stop_an_awaiting_cell_by_cancelling_its_task(cell_exec):
    outputs = Outputs()
    code = "import asyncio\nprint('waiting')\nawait asyncio.sleep(60)\nreached = True"
    ns: dict = {"__name__": "__main__"}

    async def start_then_stop() -> bool:
        task = asyncio.ensure_future(cell_exec.run_cell(code, ns, filename="<cell 1>", emit=outputs))
        await asyncio.sleep(0.01)
        task.cancel()
        return await task

    stdout = sys.stdout
    sys.stdout = outputs
    try:
        ok = complete(start_then_stop())
    finally:
        sys.stdout = stdout
    assert ok is False and "reached" not in ns
    text = outputs.one("error")
    assert 'File "<cell 1>", line 3, in <module>\n    await asyncio.sleep(60)' in text
    assert text.rstrip().endswith("CancelledError")


def test_os_exit_in_a_cell_keeps_what_was_printed():
    # stdout is a pipe here, so block-buffered: without a flush, os._exit would drop the text.
    program = (
        "from course_kernel import cell_exec\n"
        "code = \"import os\\nprint('last words', end='')\\nos._exit(3)\"\n"
        "cell_exec.run_cell(code, {}, filename='<cell 1>', emit=print)\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 3
    assert done.stdout == "last words"


def test_docstring_examples():
    import doctest

    from course_kernel import figures

    for module in (kernel, figures):
        assert doctest.testmod(module).failed == 0
