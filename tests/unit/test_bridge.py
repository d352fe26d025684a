"""course_kernel/bridge.py (the Python side of the cell runner, in the worker and in the build) in CPython.

The JS module ``_course_host`` and ``pyodide.ffi`` exist only in Pyodide; small
Python stand-ins record what the bridge sends to its host.
"""

from __future__ import annotations

import asyncio
import builtins
import importlib
import sys
import types
import zipfile
import zipimport
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from course_kernel.strings import t


class Host:
    """Stand-in for the worker's ``_course_host``: records emit_text and emit_figure calls."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def emit_text(self, kind: str, text: str) -> None:
        self.sent.append((kind, text))

    def emit_figure(self, png, alt: str, scheme: str, text_px: float, png_dark=None) -> None:
        self.sent.append(("figure", png, alt, scheme, text_px, png_dark))


def complete(coroutine):
    """``asyncio.run`` in a thread of its own: in a full test run, Playwright's sync API keeps an event loop
    running in the main thread (its session-wide browser), where ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture
def bridge(monkeypatch):
    host = Host()
    host_module = types.ModuleType("_course_host")
    host_module.emit_text = host.emit_text
    host_module.emit_figure = host.emit_figure
    host_module.official_stdlib = lambda: pytest.fail("CPython's stdlib is whole: nothing to fetch")
    ffi = types.ModuleType("pyodide.ffi")
    ffi.to_js = lambda value: ("js", value)
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    monkeypatch.setitem(sys.modules, "_course_host", host_module)
    monkeypatch.setitem(sys.modules, "pyodide", pyodide)
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    monkeypatch.setattr(builtins, "input", builtins.input)  # the bridge installs the input guard
    monkeypatch.setenv("MPLBACKEND", "agg")
    if "matplotlib.pyplot" in sys.modules:  # a worker's pyplot holds no figure of another test's
        sys.modules["matplotlib.pyplot"].close("all")
    # Imported afresh (then forgotten): importing it installs its stdlib finder and the zip caches' patch.
    monkeypatch.delitem(sys.modules, "course_kernel.bridge", raising=False)
    module = importlib.import_module("course_kernel.bridge")
    monkeypatch.delitem(sys.modules, "course_kernel.bridge")
    monkeypatch.setattr(module, "__main__", types.ModuleType("__main__"))
    module.host = host
    return module


def cell(code: str, setup: str = "", filename: str = "<cell 1>", **fields) -> dict:
    """A run's payload, as run.js sends it."""
    return {"code": code, "setup": setup, "filename": filename, **fields}


def exercise(code: str, setup: str, check: str, filename: str = "<cell 2>", **fields) -> dict:
    return cell(code, setup, filename, check=check, **fields)


def test_run_sends_the_result_as_text(bridge):
    assert bridge.run(cell("x = 20\nx * 2 + 2")) is True
    assert bridge.host.sent == [("result", "42")]


def test_setup_runs_first_in_the_same_namespace(bridge):
    assert bridge.run(cell("base + 1", "base = 1")) is True
    assert bridge.host.sent == [("result", "2")]
    assert bridge.__main__.base == 1


def test_failed_setup_skips_the_cell(bridge):
    assert bridge.run(cell("reached = True", "1 / 0")) is False
    assert [kind for kind, *_ in bridge.host.sent] == ["error"]
    assert "ZeroDivisionError" in bridge.host.sent[0][1]
    assert not hasattr(bridge.__main__, "reached")


def test_an_exercise_runs_in_a_fresh_namespace_and_gives_its_verdict(bridge):
    bridge.__main__.done = 1  # a cell ran before: the exercise does not see its names
    verdict = bridge.run_exercise(exercise("x = done", "", "expect_defined('x')"))
    assert verdict == {"ok": False, "passed": False, "message": t("exercise.code_raised")}
    assert "NameError: name 'done' is not defined" in bridge.host.sent[0][1]
    assert 'File "<cell 2>", line 1' in bridge.host.sent[0][1]


def test_an_exercise_that_runs_but_fails_its_check_is_ok_with_the_checks_message(bridge):
    verdict = bridge.run_exercise(exercise("x = y + 1", "y = 1", "assert x == 3, 'x should be 3'"))
    assert verdict == {"ok": True, "passed": False, "message": "x should be 3"}
    verdict = bridge.run_exercise(exercise("x = y + 2", "y = 1", "assert x == 3, 'x should be 3'"))
    assert verdict == {"ok": True, "passed": True, "message": t("exercise.passed")}
    assert not hasattr(bridge.__main__, "x")


def test_an_exercise_whose_setup_raises_did_not_run(bridge):
    verdict = bridge.run_exercise(exercise("x = 1", "1 / 0", "assert x"))
    assert verdict == {"ok": False, "passed": False, "message": t("exercise.setup_raised")}
    assert 'File "<setup 2>", line 1' in bridge.host.sent[0][1]


def test_figure_goes_to_js_as_converted_bytes(bridge):
    bridge.emit("figure", {"png": b"\x89PNG", "alt": "a plot", "scheme": "slate", "text_px": 13.89})
    assert bridge.host.sent == [("figure", ("js", b"\x89PNG"), "a plot", "slate", 13.89, None)]


def test_a_figure_drawn_in_both_schemes_sends_its_dark_png_too(bridge):
    figure = {"png": b"\x89PNG", "png_dark": b"\x89dark", "alt": "a plot", "scheme": "default", "text_px": 12.0}
    bridge.emit("figure", figure)
    assert bridge.host.sent == [("figure", ("js", b"\x89PNG"), "a plot", "default", 12.0, ("js", b"\x89dark"))]


def test_each_run_draws_its_figures_in_the_scheme_it_gives(bridge):
    import matplotlib.pyplot as plt

    plt.close("all")  # a run shows every open figure
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2]);"
    for scheme, drawn in (("slate", "slate"), ("neon", "default"), ("default", "default")):  # neon: not the page's
        bridge.host.sent.clear()
        assert bridge.run(cell(code, "", schemes=[scheme])) is True
        [(kind, _png, _alt, sent_scheme, _px, dark)] = bridge.host.sent
        assert dark is None
        assert (kind, sent_scheme) == ("figure", drawn)


def test_a_run_leaves_no_setting_for_the_next(bridge):
    code = "import not_a_module"
    assert bridge.run(cell(code, "", schemes=["slate"], module_hint="module {name!r} is not shipped here")) is False
    assert bridge.run(cell(code, "", "<cell 2>")) is False
    first, second = (text for _kind, text in bridge.host.sent)
    assert "is not shipped here" in first and "is not shipped here" not in second
    assert "module 'not_a_module' is not available in this course" in second


def test_input_guard_is_installed(bridge):
    bridge.run(cell("input('Name? ')"))
    kind, text = bridge.host.sent[0]
    assert kind == "error"
    assert "input() is not available in the course's cells" in text


def test_a_cell_that_awaits_gives_an_awaitable_that_runs_it(bridge):

    outcome = bridge.run(cell("import asyncio\nawait asyncio.sleep(0)\n6 * 7"))
    assert asyncio.iscoroutine(outcome) and bridge.host.sent == []
    assert complete(outcome) is True
    assert bridge.host.sent == [("result", "42")]


def test_the_course_module_hint_reaches_cell_exec(bridge):
    assert (
        bridge.run(
            cell("import not_a_module", "", schemes=["default"], module_hint="module {name!r} is not shipped here")
        )
        is False
    )
    kind, text = bridge.host.sent[0]
    assert kind == "error" and "module 'not_a_module' is not shipped here" in text


def test_an_exercise_gets_the_course_module_hint_too(bridge):
    verdict = bridge.run_exercise(
        exercise("import not_a_module", "", "assert True", schemes=["slate"], module_hint="not here: {name}")
    )
    assert verdict["ok"] is False and "not here: not_a_module" in bridge.host.sent[0][1]


def test_extra_packages_from_module_references(bridge):
    mapping = {"posenc.plot": ["matplotlib"], "other": ["never"]}
    assert bridge.extra_packages("import posenc.plot\nposenc.plot.heatmap", mapping) == ["matplotlib"]
    assert bridge.extra_packages("x = 1", mapping) == []


class FontList:
    """Stand-in for the JS Uint8Array that the worker passes (a JsProxy with to_bytes())."""

    def to_bytes(self) -> bytes:
        return b'{"_version": 330}'


def test_warm_matplotlib_writes_the_font_list_before_importing(bridge, monkeypatch, tmp_path):
    import matplotlib  # noqa: F401  (a dev dependency, always installed)

    target = tmp_path / "fontlist.json"
    monkeypatch.setattr(bridge, "font_list_path", lambda: target)
    monkeypatch.delitem(sys.modules, "matplotlib.font_manager", raising=False)
    imported = []
    real_import = builtins.__import__

    def record(name, *args, **kwargs):
        if name == "matplotlib.font_manager":
            imported.append(target.read_bytes())
            return sys.modules.get("matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", record)
    bridge.warm_matplotlib(FontList())
    assert imported == [b'{"_version": 330}']


def test_warm_matplotlib_once_the_font_manager_is_imported(bridge, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.font_manager", types.ModuleType("matplotlib.font_manager"))
    monkeypatch.setattr(bridge, "font_list_path", lambda: pytest.fail("the font list was written again"))
    bridge.warm_matplotlib(FontList())


def test_font_list_path_is_beside_matplotlib(bridge):
    import matplotlib

    assert bridge.font_list_path() == Path(matplotlib.__file__).with_name("fontlist.json")


def _zip_with(path: Path, modules: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "a") as archive:
        for name, source in modules.items():
            archive.writestr(name, source)
    return path


def test_a_kept_zip_directory_is_not_read_again_by_invalidate_caches(bridge, monkeypatch, tmp_path):
    """Pyodide's stdlib zip never changes: importlib.invalidate_caches(), called by every loadPackage,
    need not parse its directory again (0.1-0.25 s a call); any other zip is read again."""
    monkeypatch.setattr(zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches)
    kept, other = (_zip_with(tmp_path / name, {"first.py": "A = 1\n"}) for name in ("stdlib.zip", "other.zip"))
    bridge.keep_zip_directory(str(kept))
    bridge.keep_zip_directory(str(kept))  # twice: still one wrapper around zipimport's own
    importers = {path: zipimport.zipimporter(str(path)) for path in (kept, other)}
    for path in (kept, other):
        _zip_with(path, {"second.py": "B = 2\n"})
    for importer in importers.values():
        importer.invalidate_caches()
    assert importers[kept].find_spec("second") is None  # its directory as first read
    assert importers[other].find_spec("second") is not None
    assert zipimport.zipimporter.invalidate_caches.__wrapped__.__qualname__ == "zipimporter.invalidate_caches"


class JsObject:
    """Stand-in for a JS object as Pyodide hands it to Python (a JsProxy with to_py())."""

    def __init__(self, fields: dict) -> None:
        self.fields = fields

    def to_py(self) -> dict:
        return dict(self.fields)


def test_the_payload_comes_as_a_js_object_with_the_run_messages_other_fields_and_nulls(bridge):
    message = {"type": "run", "id": 7, "maxLines": 10, "check": None, **cell("a + 1", "a = 1", "<cell 4>")}
    assert bridge.run(JsObject({**message, "inputs": "a = 5\n", "alt": None})) is True
    assert bridge.host.sent == [("result", "2")]


def test_hidden_sources_are_named_after_the_cell_in_a_traceback(bridge):
    assert bridge.run(cell("x", "1 / 0", "<cell 3>")) is False
    assert 'File "<setup 3>", line 1' in bridge.host.sent[0][1]
    bridge.host.sent.clear()
    assert bridge.run(cell("x", "", "<cell 3>", inputs="n = 1 / 0\n")) is False
    assert 'File "<inputs 3>", line 1' in bridge.host.sent[0][1]


def test_prove_gives_each_solutions_and_starters_verdict_with_what_raised(bridge):
    import json

    exercises = [
        {"setup": "y = 1", "starter": "x = 0", "check": "assert x == 2, 'x should be 2'", "solution": "x = y + 1"},
        {"setup": "", "starter": "x = 0", "check": "assert True", "solution": "1 / 0"},
    ]
    first, second = json.loads(bridge.prove(json.dumps(exercises), ["default", "slate"], None))
    assert first["solution"] == {"passed": True, "message": t("exercise.passed"), "raised": "", "error": ""}
    assert first["starter"]["passed"] is False and first["starter"]["message"] == "x should be 2"
    assert second["solution"]["raised"] == "solution"
    assert 'File "<exercise 2 solution>", line 1' in second["solution"]["error"]
    assert bridge.host.sent == []  # the proof's output goes nowhere
