"""worker_bridge.py (the Python side of the browser's worker) in CPython.

The JS module ``_course_host`` and ``pyodide.ffi`` exist only in Pyodide; small
Python stand-ins record what the bridge sends to the page.
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

    def emit_figure(self, png, alt: str, scheme: str, text_px: float) -> None:
        self.sent.append(("figure", png, alt, scheme, text_px))


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
    monkeypatch.delitem(sys.modules, "course_kernel.worker_bridge", raising=False)
    module = importlib.import_module("course_kernel.worker_bridge")
    monkeypatch.delitem(sys.modules, "course_kernel.worker_bridge")
    monkeypatch.setattr(module, "__main__", types.ModuleType("__main__"))
    module.host = host
    return module


def test_run_sends_the_result_as_text(bridge):
    assert bridge.run("x = 20\nx * 2 + 2", "", "<cell 1>") is True
    assert bridge.host.sent == [("result", "42")]


def test_setup_runs_first_in_the_same_namespace(bridge):
    assert bridge.run("base + 1", "base = 1", "<cell 1>") is True
    assert bridge.host.sent == [("result", "2")]
    assert bridge.__main__.base == 1


def test_failed_setup_skips_the_cell(bridge):
    assert bridge.run("reached = True", "1 / 0", "<cell 1>") is False
    assert [kind for kind, *_ in bridge.host.sent] == ["error"]
    assert "ZeroDivisionError" in bridge.host.sent[0][1]
    assert not hasattr(bridge.__main__, "reached")


def test_an_exercise_runs_in_a_fresh_namespace_and_gives_its_verdict(bridge):
    bridge.__main__.done = 1  # a cell ran before: the exercise does not see its names
    verdict = bridge.run_exercise("x = done", "", "expect_defined('x')", "<cell 2>")
    assert verdict == {"ok": False, "passed": False, "message": t("exercise.code_raised")}
    assert "NameError: name 'done' is not defined" in bridge.host.sent[0][1]
    assert 'File "<cell 2>", line 1' in bridge.host.sent[0][1]


def test_an_exercise_that_runs_but_fails_its_check_is_ok_with_the_checks_message(bridge):
    verdict = bridge.run_exercise("x = y + 1", "y = 1", "assert x == 3, 'x should be 3'", "<cell 2>")
    assert verdict == {"ok": True, "passed": False, "message": "x should be 3"}
    verdict = bridge.run_exercise("x = y + 2", "y = 1", "assert x == 3, 'x should be 3'", "<cell 2>")
    assert verdict == {"ok": True, "passed": True, "message": t("exercise.passed")}
    assert not hasattr(bridge.__main__, "x")


def test_an_exercise_whose_setup_raises_did_not_run(bridge):
    verdict = bridge.run_exercise("x = 1", "1 / 0", "assert x", "<cell 2>")
    assert verdict == {"ok": False, "passed": False, "message": t("exercise.setup_raised")}
    assert 'File "<setup>", line 1' in bridge.host.sent[0][1]


def test_figure_goes_to_js_as_converted_bytes(bridge):
    bridge.emit("figure", {"png": b"\x89PNG", "alt": "a plot", "scheme": "slate", "text_px": 13.89})
    assert bridge.host.sent == [("figure", ("js", b"\x89PNG"), "a plot", "slate", 13.89)]


def test_each_run_draws_its_figures_in_the_scheme_it_gives(bridge):
    import matplotlib.pyplot as plt

    plt.close("all")  # a run shows every open figure
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2]);"
    for scheme, drawn in (("slate", "slate"), ("neon", "default"), ("default", "default")):  # neon: not the page's
        bridge.host.sent.clear()
        assert bridge.run(code, "", "<cell 1>", "", scheme) is True
        [(kind, _png, _alt, sent_scheme, _px)] = bridge.host.sent
        assert (kind, sent_scheme) == ("figure", drawn)


def test_a_run_leaves_no_setting_for_the_next(bridge):
    code = "import not_a_module"
    assert bridge.run(code, "", "<cell 1>", "", "slate", "module {name!r} is not shipped here") is False
    assert bridge.run(code, "", "<cell 2>") is False
    first, second = (text for _kind, text in bridge.host.sent)
    assert "is not shipped here" in first and "is not shipped here" not in second
    assert "module 'not_a_module' is not available in this course" in second


def test_input_guard_is_installed(bridge):
    bridge.run("input('Name? ')", "", "<cell 1>")
    kind, text = bridge.host.sent[0]
    assert kind == "error"
    assert "input() is not available in the course's cells" in text


def test_a_cell_that_awaits_gives_an_awaitable_that_runs_it(bridge):

    outcome = bridge.run("import asyncio\nawait asyncio.sleep(0)\n6 * 7", "", "<cell 1>")
    assert asyncio.iscoroutine(outcome) and bridge.host.sent == []
    assert complete(outcome) is True
    assert bridge.host.sent == [("result", "42")]


def test_the_course_module_hint_reaches_cell_exec(bridge):
    assert (
        bridge.run("import not_a_module", "", "<cell 1>", "", "default", "module {name!r} is not shipped here") is False
    )
    kind, text = bridge.host.sent[0]
    assert kind == "error" and "module 'not_a_module' is not shipped here" in text


def test_an_exercise_gets_the_course_module_hint_too(bridge):
    verdict = bridge.run_exercise("import not_a_module", "", "assert True", "<cell 2>", "slate", "not here: {name}")
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
