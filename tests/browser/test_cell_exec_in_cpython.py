"""cell_exec.run_cell in CPython (the module the Pyodide worker also runs).

Not a browser test: the plugin imports the same file at build time, so its
behaviour is pinned here without Chromium.
"""

from __future__ import annotations

import builtins
import io
import sys
from pathlib import Path

import pytest

from course_kernel import cell_exec, figures

RUNTIME = Path(cell_exec.__file__)


@pytest.fixture(scope="module")
def runtime():
    return cell_exec


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def __call__(self, kind: str, payload: object) -> None:
        self.events.append((kind, payload))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]

    def one(self, kind: str):
        found = [payload for k, payload in self.events if k == kind]
        assert len(found) == 1, self.events
        return found[0]


def run(runtime, code: str, namespace: dict | None = None, filename: str = "<cell 1>"):
    emit = Recorder()
    ns = {"__name__": "__main__"} if namespace is None else namespace
    ok = runtime.run_cell(code, ns, filename=filename, emit=emit)
    return ok, emit, ns


def test_last_expression_repr(runtime):
    ok, emit, ns = run(runtime, "x = 20\nx * 2 + 2")
    assert ok
    assert emit.events == [("result", "42")]
    assert ns["x"] == 20


def test_repr_not_str(runtime):
    _, emit, _ = run(runtime, "'text'")
    assert emit.events == [("result", "'text'")]


def test_none_and_statements_emit_nothing(runtime):
    for code in ("None", "x = 1", "print", "", "# only a comment", "def f():\n    pass\nf()"):
        ok, emit, _ = run(runtime, code)
        assert ok
        if code == "print":
            assert emit.kinds() == ["result"]
        else:
            assert emit.events == [], code


def test_only_a_final_bare_expression_is_shown(runtime):
    _, emit, _ = run(runtime, "1 + 1\nx = 3")
    assert emit.events == []
    _, emit, _ = run(runtime, "for i in range(2):\n    i")
    assert emit.events == []


def test_trailing_semicolon_hides_the_result(runtime):
    ok, emit, _ = run(runtime, "x = 3\nx * 2;")
    assert ok and emit.events == []
    _, emit, _ = run(runtime, "x = 3\nx * 2  ;  # hidden")
    assert emit.events == []
    _, emit, _ = run(runtime, "s = 'a;b'\ns")
    assert emit.events == [("result", "'a;b'")]
    _, emit, _ = run(runtime, "é = 'é'; é")
    assert emit.events == [("result", "'é'")]


def test_namespace_is_shared(runtime):
    ns: dict = {"__name__": "__main__"}
    run(runtime, "a = 5", ns, "<cell 1>")
    _, emit, _ = run(runtime, "a + 1", ns, "<cell 2>")
    assert emit.events == [("result", "6")]


def test_traceback_trimmed_to_the_cells_lines(runtime):
    ns: dict = {"__name__": "__main__"}
    run(runtime, "def ratio(a, b):\n    return a / b\n", ns, "<cell 1>")
    ok, emit, _ = run(runtime, "x = 1\n\nratio(x, 0)", ns, "<cell 2>")
    assert not ok
    text = emit.one("error")
    assert text.startswith("Traceback (most recent call last):\n")
    assert 'File "<cell 2>", line 3, in <module>\n    ratio(x, 0)' in text
    assert 'File "<cell 1>", line 2, in ratio\n    return a / b' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "cell_exec" not in text
    assert str(RUNTIME) not in text


def test_traceback_hides_library_frames(runtime):
    _, emit, _ = run(runtime, "import json\njson.loads('{')")
    text = emit.one("error")
    assert 'File "<cell 1>", line 2' in text
    assert "json/decoder.py" not in text and "json/__init__.py" not in text
    assert "JSONDecodeError" in text


def test_syntax_error_shows_line_and_caret(runtime):
    ok, emit, _ = run(runtime, "x = 1\ny = 1 +* 2\n")
    assert not ok
    text = emit.one("error")
    assert "Traceback" not in text
    assert 'File "<cell 1>", line 2\n    y = 1 +* 2\n' in text
    assert "^" in text
    assert text.rstrip().endswith("SyntaxError: invalid syntax")


def test_error_keeps_earlier_statements(runtime):
    ok, emit, ns = run(runtime, "done = True\nraise ValueError('bad')\nlater = 1")
    assert not ok
    assert ns["done"] is True and "later" not in ns
    assert emit.one("error").rstrip().endswith("ValueError: bad")


def test_missing_module_gets_a_hint(runtime):
    _, emit, _ = run(runtime, "import surely_not_a_module.sub")
    text = emit.one("error")
    assert "ModuleNotFoundError: No module named 'surely_not_a_module'" in text
    assert "module 'surely_not_a_module' is not available in this course" in text


def test_input_guard(runtime, monkeypatch):
    monkeypatch.setattr(builtins, "input", builtins.input)
    runtime.install_input_guard()
    _, emit, _ = run(runtime, "name = input('Name? ')")
    text = emit.one("error")
    assert "RuntimeError: input() is not available in the course's cells" in text


def test_stdout_is_flushed_before_the_result(runtime, monkeypatch):
    order: list[str] = []

    class Stream(io.StringIO):
        def flush(self) -> None:
            if self.getvalue():
                order.append("stdout:" + self.getvalue())
                self.seek(0)
                self.truncate()

    monkeypatch.setattr(sys, "stdout", Stream())
    emit = Recorder()
    runtime.run_cell("print('a')\n1", {}, filename="<cell 1>", emit=lambda k, p: (order.append(k), emit(k, p)))
    assert order == ["stdout:a\n", "result"]


def test_keyboard_interrupt_is_reported(runtime):
    ok, emit, _ = run(runtime, "raise KeyboardInterrupt")
    assert not ok
    assert emit.one("error").rstrip().endswith("KeyboardInterrupt")


def test_recursion_error_is_a_short_traceback(runtime):
    _, emit, _ = run(runtime, "def f():\n    return f()\nf()")
    text = emit.one("error")
    assert "RecursionError" in text
    assert "Previous line repeated" in text
    assert len(text) < 5000


# -- figures ---------------------------------------------------------------------------


@pytest.fixture
def plt():
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")


def test_figures_emitted_in_order_then_closed(runtime, plt):
    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.figure(); plt.plot([1, 2, 3]); plt.title('Rising')\n"
        "fig = plt.figure(); fig.suptitle('Overall'); fig.add_subplot().set_title('inner')\n"
        "plt.figure(); plt.plot([3, 2, 1])\n"
    )
    ok, emit, _ = run(runtime, code)
    assert ok
    figures = [payload for kind, payload in emit.events if kind == "figure"]
    assert [f["alt"] for f in figures] == [
        "Line plot titled “Rising”",
        "Overall. Empty plot titled “inner”",
        "Line plot",
    ]
    for figure in figures:
        assert figure["png"].startswith(b"\x89PNG\r\n\x1a\n")
    assert plt.get_fignums() == []


def png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_figures_keep_a_chosen_layout_and_crop_the_others(runtime, plt):
    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.figure(figsize=(4, 2)); plt.plot([1, 2]); plt.xlabel('cut off unless cropped')\n"
        "fig = plt.figure(figsize=(4, 2)); fig.subplots_adjust(bottom=0.3); fig.add_subplot().plot([1, 2])\n"
        "plt.figure(figsize=(4, 2), layout='constrained'); plt.plot([1, 2])\n"
    )
    ok, emit, _ = run(runtime, code)
    assert ok
    sizes = [png_size(payload["png"]) for kind, payload in emit.events if kind == "figure"]
    dpi = figures.FIGURE_DPI
    # Cropped to its content (tight), so not the 4 x 2 in canvas; the two laid-out ones are saved as they are.
    assert sizes[0] != (4 * dpi, 2 * dpi)
    assert sizes[1:] == [(4 * dpi, 2 * dpi)] * 2


def test_posenc_figures_are_laid_out(runtime, plt):
    import posenc
    import posenc.plot

    for fig in (posenc.plot.heatmap(posenc.sinusoidal(8, 8)), posenc.plot.compare(8, 8)):
        assert figures.laid_out(fig)


def test_figures_come_after_the_result(runtime, plt):
    _, emit, _ = run(runtime, "import matplotlib.pyplot as plt\nplt.plot([1])\n'value'")
    assert emit.kinds() == ["result", "figure"]


def test_figures_emitted_after_an_error_too(runtime, plt):
    ok, emit, _ = run(runtime, "import matplotlib.pyplot as plt\nplt.plot([1])\n1 / 0")
    assert not ok
    assert emit.kinds() == ["error", "figure"]
    assert plt.get_fignums() == []


def test_no_figures_without_pyplot(runtime, monkeypatch):
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    _, emit, _ = run(runtime, "1")
    assert emit.kinds() == ["result"]
    assert "matplotlib.pyplot" not in sys.modules


def test_module_imports_without_js_or_pyodide(runtime):
    assert "js" not in sys.modules
    assert "pyodide" not in sys.modules


def test_module_references_find_imports_and_attribute_chains(runtime):
    code = "import numpy as np\nimport posenc\nfrom matplotlib import pyplot\nfig = posenc.plot.heatmap(np.eye(2))"
    found = runtime.module_references(code)
    assert {"numpy", "posenc", "matplotlib", "matplotlib.pyplot", "posenc.plot", "posenc.plot.heatmap"} <= found
    assert runtime.module_references("def broken(:") == set()
