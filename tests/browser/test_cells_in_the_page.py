"""The cell runner in a real Chromium: editor, output, namespace, queue, limits, Stop.

Two pages of the hand-written fixture next to the built site (served like GitHub
Pages: no cross-origin isolation), so that Pyodide boots twice, not once per test:
``first_visit``, on which the tests check what a fresh page shows and only run the
lesson's code; and ``page``, on which each test sets the code it runs (or puts the
lesson's code back with Reset), so that none depends on another having run first.
"""

from __future__ import annotations

import json
import re

import pytest
from page_fixture import (
    FINAL_STATE,
    LOAD_TIMEOUT_MS,
    PYODIDE_VERSION,
    SETTINGS_FILE,
    STATUS_RECORDER,
    Gate,
    get_code,
    guarded_page,
    make_fixture_site,
    run,
    set_code,
    status,
    wait_until_python_is_ready,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LIMIT_NOTICE = "Output limit reached (2,000 lines or 200 kB per run); the rest is dropped."  # as English writes numbers


@pytest.fixture(scope="module")
def folder(built_site, tmp_path_factory):
    return make_fixture_site(built_site, tmp_path_factory.mktemp("runner") / "site")


@pytest.fixture(scope="module")
def first_visit(browser, folder, serve):
    with guarded_page(browser, serve(folder) + "fixture/", init_script=STATUS_RECORDER) as (page, _problems):
        page.settings = json.loads((folder / SETTINGS_FILE).read_text())
        yield page


@pytest.fixture(scope="module")
def page(browser, folder, serve):
    with guarded_page(browser, serve(folder) + "fixture/") as (page, _problems):
        yield page


def run_lesson_code(page, cell: str):
    """Put the lesson's code back in ``cell`` (Reset) and run it; return the output."""
    page.locator(f"{cell} .course-cell__button--reset").click()
    return run(page, cell)


def test_enhances_static_cells(first_visit):
    page = first_visit
    expect(page.locator(".course-cell--live")).to_have_count(7)
    expect(page.locator(".course-cell__button--run")).to_have_count(7)
    expect(page.locator("#cell-1 .cm-content")).to_contain_text('greeting = "hello"')
    # Every cell gets its editor once it comes near the viewport.
    for number in range(1, 8):
        page.locator(f"#cell-{number}").scroll_into_view_if_needed()
    expect(page.locator(".cm-editor")).to_have_count(7)
    expect(page.locator(".course-cell__static")).to_have_count(0)
    expect(page.locator("#cell-1 .course-cell__output")).to_have_attribute("role", "log")
    expect(page.locator("#cell-1 .course-cell__output")).to_have_attribute("aria-live", "polite")
    expect(page.locator("#cell-1 .course-cell__button--stop")).to_be_disabled()
    expect(page.locator("#cell-1 .course-cell__status")).to_have_attribute("role", "status")


def test_progress_then_ready(first_visit):
    page = first_visit
    # Loading starts by itself when the page is idle and reports bytes.
    wait_until_python_is_ready(page)
    sizes = page.settings["download_bytes"]
    total = (sizes["core"] + sum(sizes[name] for name in page.settings["preload_packages"])) / 1e6
    log = page.evaluate("window.__statusLog")
    assert "Python is ready" in log, log
    booting = log[: log.index("Python is ready")]  # (a Run of cell 1 says more after it)
    progress = [re.fullmatch(r"Loading Python… ([\d.]+) / ([\d.]+) MB", text) for text in booting]
    loaded = [float(m[1]) for m in progress if m]
    assert loaded, log
    assert {m[2] for m in progress if m} == {f"{total:.1f}"}, log
    assert loaded == sorted(loaded), log


def test_autorun_cell_ran_by_itself(first_visit):
    expect(first_visit.locator("#cell-7")).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
    expect(first_visit.locator("#cell-7 .course-out--stdout")).to_have_text("autorun ok\n")


def test_run_replaces_precomputed_output(first_visit):
    page = first_visit
    # Once Python is ready, so that the boot's messages in cell 1 are left as a fresh page shows them.
    wait_until_python_is_ready(page)
    expect(page.locator("#cell-1 .course-cell__label")).to_contain_text("Precomputed output")
    output = run(page, "#cell-1")
    assert status(page, "#cell-1").startswith("Done in")
    expect(output.locator(".course-out--stdout")).to_have_text("hello 0\nhello 1\nhello 2\n")
    expect(output.locator(".course-out--result")).to_have_text("10")
    expect(output.locator(".course-cell__label")).to_have_count(0)
    expect(output).to_have_attribute("data-precomputed", "false")


def test_stdout_streams_while_running(page):
    run(page, "#cell-5", 'print("first", flush=True)\nwhile True:\n    pass\nprint("second")', wait=False)
    output = page.locator("#cell-5 .course-cell__output")
    expect(output.locator(".course-out--stdout")).to_have_text("first\n", timeout=LOAD_TIMEOUT_MS)
    # "first" is on the page while the loop, which only Stop ends, still runs.
    assert page.locator("#cell-5").get_attribute("data-state") == "running"
    page.locator("#cell-5 .course-cell__button--stop").click()
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "stopped", timeout=30_000)
    expect(output.locator(".course-out--stdout")).to_have_text("first\n")


def test_last_expression_repr_and_none_hidden(page):
    output = run(page, "#cell-5", "x = 41\nx + 1")
    expect(output.locator(".course-out--result")).to_have_text("42")
    output = run(page, "#cell-5", "print('only stdout')\nNone")
    expect(output.locator(".course-out--result")).to_have_count(0)
    expect(output).to_have_text("only stdout\n")
    output = run(page, "#cell-5", "'<b>not html</b>'")
    expect(output.locator(".course-out--result")).to_have_text("'<b>not html</b>'")
    expect(output.locator("b")).to_have_count(0)


def test_setup_code_stderr_and_numpy(page):
    output = run_lesson_code(page, "#cell-2")
    expect(output.locator(".course-out--stdout")).to_have_text("values: [10 11 12 13 14]\n")
    expect(output.locator(".course-out--stderr")).to_have_text("warning: this goes to stderr\n")
    expect(output.locator(".course-out--result")).to_have_text("60")


def test_traceback_uses_the_cells_line_numbers(page):
    output = run_lesson_code(page, "#cell-3")
    assert status(page, "#cell-3") == "Error"
    text = output.locator(".course-out--error").inner_text()
    assert 'File "<cell 3>", line 4, in <module>' in text
    assert 'File "<cell 3>", line 2, in ratio' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "cell_exec" not in text and "worker_bridge" not in text
    assert "_pyodide" not in text


def test_syntax_error_shows_the_caret(page):
    output = run(page, "#cell-5", "x = 1\ny = (2 +\n")
    text = output.locator(".course-out--error").inner_text()
    assert 'File "<cell 5>", line 2' in text
    assert "^" in text
    assert "SyntaxError" in text


def test_shared_namespace_across_cells(page):
    run(page, "#cell-5", "shared = 7")
    output = run_lesson_code(page, "#cell-6")
    expect(output.locator(".course-out--result")).to_have_text("42")


def test_matplotlib_figures_with_alt_text(page):
    output = run_lesson_code(page, "#cell-4")
    assert status(page, "#cell-4").startswith("Done in"), output.inner_text()
    image = output.locator("figure.course-out--figure img")
    expect(image).to_have_count(1)
    expect(image).to_have_attribute("alt", "Line plot titled “A sine wave”")
    assert page.evaluate("document.querySelector('#cell-4 img').naturalWidth") > 100
    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.figure(); plt.suptitle('Two panels'); plt.subplot(1, 2, 1); plt.title('left')\n"
        "plt.figure(); plt.plot([1, 2])\n"
        "len(plt.get_fignums())"
    )
    output = run(page, "#cell-5", code)
    expect(output.locator(".course-out--result")).to_have_text("2")
    images = output.locator("img")
    expect(images).to_have_count(2)
    assert [images.nth(i).get_attribute("alt") for i in range(2)] == [
        "Two panels. Empty plot titled “left”",
        "Line plot",
    ]
    # The figures were closed after the cell.
    output = run(page, "#cell-5", "import matplotlib.pyplot as plt\nlen(plt.get_fignums())")
    expect(output.locator(".course-out--result")).to_have_text("0")


def test_matplotlib_uses_the_prebuilt_font_list(page):
    # Loaded from pyodide/v*/matplotlib-fontlist.json, not rebuilt in the browser (seconds).
    output = run(
        page,
        "#cell-5",
        "from matplotlib import font_manager\ngetattr(font_manager.fontManager, '_course_prebuilt', 'rebuilt')",
    )
    expect(output).to_contain_text(f"Pyodide {PYODIDE_VERSION}, scripts/matplotlib_font_cache.mjs")
    expect(output).not_to_contain_text("building the font cache")


def test_runs_are_queued_in_click_order(page):
    run(page, "#cell-5", "order = []")
    set_code(page, "#cell-3", "order.append('third')")
    set_code(page, "#cell-2", "order.append('second')")
    gate = Gate(page, "queue")  # cell 1 runs until the test opens the gate
    gate.run("#cell-1", "order.append('first')")
    expect(page.locator("#cell-1")).to_have_attribute("data-state", "running")
    run(page, "#cell-2", wait=False)
    run(page, "#cell-3", wait=False)
    run(page, "#cell-1", wait=False, force=True)  # Run on a running cell is ignored
    expect(page.locator("#cell-2 .course-cell__status")).to_have_text("Queued…")
    expect(page.locator("#cell-3 .course-cell__status")).to_have_text("Queued (2 ahead)")
    gate.open()
    for cell in ("#cell-1", "#cell-2", "#cell-3"):
        expect(page.locator(cell)).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
    output = run(page, "#cell-5", "order")
    expect(output.locator(".course-out--result")).to_have_text("['first', 'second', 'third']")


def test_output_flood_is_capped(page):
    output = run(page, "#cell-5", "for i in range(100_000):\n    print(i)\n'finished'")
    assert status(page, "#cell-5").startswith("Done in")
    expect(output.locator(".course-out--result")).to_have_text("'finished'")
    # Said once, where the output is cut, before what the run still shows.
    expect(output.locator(".course-cell__notice--info")).to_have_text([LIMIT_NOTICE])
    after_notice = output.locator(".course-cell__notice--info ~ .course-out--result")
    expect(after_notice).to_have_text("'finished'")
    notice = output.locator(".course-cell__notice--dropped")
    expect(notice).to_contain_text("98,000 lines dropped")
    assert output.locator(".course-out--stdout").inner_text().count("\n") == 2000
    # One huge line is capped by size.
    output = run(page, "#cell-5", "print('x' * 5_000_000)")
    expect(output.locator(".course-cell__notice--dropped")).to_contain_text("1 line dropped")
    assert len(output.locator(".course-out--stdout").inner_text()) <= 200_000


def test_input_and_missing_modules_explain_themselves(page):
    output = run(page, "#cell-5", "name = input('Your name? ')")
    expect(output.locator(".course-out--error")).to_contain_text("input() is not available")
    output = run(page, "#cell-5", "import scipy")
    text = output.locator(".course-out--error").inner_text()
    assert "ModuleNotFoundError: No module named 'scipy'" in text
    assert "module 'scipy' is not available in this course" in text


def test_recursion_and_memory_errors_are_tracebacks(page):
    run(page, "#cell-5", "shared = 7")
    output = run(page, "#cell-5", "def f(n):\n    return f(n + 1)\nf(0)")
    expect(output.locator(".course-out--error")).to_contain_text("RecursionError")
    output = run(page, "#cell-5", "big = bytearray(2**31 - 1)")
    expect(output.locator(".course-out--error")).to_contain_text("MemoryError")
    # Python is still fine afterwards, the namespace too.
    output = run_lesson_code(page, "#cell-6")
    expect(output.locator(".course-out--result")).to_have_text("42")


def test_stop_restarts_python_and_keeps_the_edited_code(page):
    run(page, "#cell-5", "shared = 7")
    code = "# my edit\nwhile True:\n    pass"
    run(page, "#cell-5", code, wait=False)
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    stop = page.locator("#cell-5 .course-cell__button--stop")
    expect(stop).to_be_enabled()
    stop.click()
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "stopped", timeout=30_000)
    expect(page.locator("#cell-5 .course-cell__status")).to_have_text("Stopped")
    expect(page.locator("#cell-5 .course-cell__notice--stopped")).to_contain_text("namespace was reset")
    expect(stop).to_be_disabled()
    assert get_code(page, "#cell-5") == code
    # A fresh Python serves the next Run; `shared` is gone with the old namespace.
    output = run_lesson_code(page, "#cell-6")
    expect(output.locator(".course-out--error")).to_contain_text("NameError: name 'shared' is not defined")
    output = run(page, "#cell-5", "shared = 1\nshared")
    expect(output.locator(".course-out--result")).to_have_text("1")


def test_crashed_worker_is_replaced(page):
    # Kill Pyodide from inside: a fatal error the page must notice.
    code = "import js, pyodide_js\npyodide_js._api.fatal_error(js.Error.new('simulated crash'))"
    run(page, "#cell-5", code)
    expect(page.locator("#cell-5 .course-cell__status")).to_have_text("Error")
    expect(page.locator("#cell-5 .course-cell__notice--error")).to_contain_text("Python stopped working")
    output = run(page, "#cell-5", "1 + 1")
    expect(output.locator(".course-out--result")).to_have_text("2")


def test_reset_restores_the_lesson_code(page):
    set_code(page, "#cell-6", "something else")
    page.locator("#cell-6 .course-cell__button--reset").click()
    assert get_code(page, "#cell-6") == "shared * 6"
    # Undo in the editor brings the learner's version back.
    page.locator("#cell-6 .cm-content").click()
    page.keyboard.press("Control+z")
    assert get_code(page, "#cell-6") == "something else"


def test_keyboard_run_and_leaving_the_editor(page):
    set_code(page, "#cell-6", "6 * 7")
    page.locator("#cell-6 .cm-content").click()
    page.keyboard.press("Shift+Enter")
    expect(page.locator("#cell-6")).to_have_attribute("data-state", FINAL_STATE, timeout=LOAD_TIMEOUT_MS)
    expect(page.locator("#cell-6 .course-out--result")).to_have_text("42")
    assert get_code(page, "#cell-6") == "6 * 7"  # Shift+Enter did not insert a newline
    # Tab indents inside the editor; Escape then Tab moves focus to the Run button.
    page.locator("#cell-6 .cm-content").click()
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert get_code(page, "#cell-6").startswith("    6 * 7")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.className")
    assert "course-cell__button--run" in focused
