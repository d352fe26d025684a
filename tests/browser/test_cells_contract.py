"""Cells as a notebook user expects them, checked against the DOM contract only:
role="region" named "Python cell N", buttons by their accessible names, role="log",
aria-busy while a run is under way and data-status once it has ended.

One fixture page (runner.html next to the built site) is shared by most tests of this
module, which run in file order; the edit tests reload it.  The crash tests get their
own page, whose localStorage throws on every access.
"""

from __future__ import annotations

import json
import re

import pytest
from page_fixture import (
    LESSON,
    LOAD_TIMEOUT_MS,
    Gate,
    expect_status_shown,
    get_code,
    guarded_page,
    make_fixture_site,
    set_code,
    settle_editor,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ENDED = re.compile(r"^(ok|error|stopped)$")
BUTTONS = ("Run", "Stop", "Reset", "Copy", "Clear")
EDITED = "edited; Reset restores the lesson's code"
# A precomputed output (as the build wrote it) with a terminal colour in it.
PRECOMPUTED_ANSI = '<pre class="course-out course-out--stdout">\x1b[32mgreen\x1b[0m build\n</pre>'
# localStorage that is disabled: every access throws.
HOSTILE_STORAGE = """
for (const name of ["getItem", "setItem", "removeItem"]) {
  Storage.prototype[name] = () => { throw new DOMException("storage is disabled", "SecurityError"); };
}
"""


@pytest.fixture(scope="module")
def folder(built_site, tmp_path_factory):
    site = make_fixture_site(built_site, tmp_path_factory.mktemp("contract") / "site")
    page_file = site / "fixture" / "index.html"
    html = page_file.read_text()
    html = html.replace('<pre class="course-out course-out--result">10</pre>', PRECOMPUTED_ANSI, 1)
    page_file.write_text(html)
    return site


@pytest.fixture(scope="module")
def page(browser, folder, serve):
    origin = serve(folder)
    with guarded_page(
        browser, origin + "fixture/", permissions=["clipboard-read", "clipboard-write"], base_url=origin
    ) as (page, _problems):
        page.folder = folder
        yield page


def region(page, number: int):
    return page.get_by_role("region", name=f"Python cell {number}", exact=True)


def button(page, number: int, name: str):
    return region(page, number).get_by_role("button", name=name, exact=True)


def run(page, number: int, code: str | None = None):
    """Run cell ``number`` (after setting its code) and wait until the run has ended; return its output."""
    if code is not None:
        set_code(page, f"#cell-{number}", code)
    else:
        settle_editor(page, f"#cell-{number}")  # as page_fixture.run: the click lands where the button stays
    button(page, number, "Run").click()
    expect(region(page, number)).to_have_attribute("data-status", ENDED, timeout=LOAD_TIMEOUT_MS)
    return region(page, number).get_by_role("log")


# ------------------------------------------------------------------ item 1: the DOM contract


def test_lesson_cells_are_named_regions(browser, built_site, serve):
    with guarded_page(browser, serve(built_site) + LESSON) as (lesson, _problems):
        expect(lesson.locator(".course-cell--live")).to_have_count(lesson.locator(".course-cell").count())
        labels = lesson.locator(".course-cell:not(.course-exercise)").evaluate_all(
            "cells => cells.map((cell) => cell.getAttribute('aria-label'))"
        )
        assert labels and all(re.fullmatch(r"Python cell \d+", label) for label in labels), labels
        for label in labels:  # exercises share the numbering, so the numbers of plain cells may skip
            cell = lesson.get_by_role("region", name=label, exact=True)
            expect(cell).to_have_count(1)
            for name in BUTTONS:
                expect(cell.get_by_role("button", name=name, exact=True)).to_have_count(1)
            expect(cell.get_by_role("log")).to_have_count(1)
        expect(lesson.get_by_role("region", name=re.compile(r"^Python cell \d+$"))).to_have_count(len(labels))


def test_buttons_are_real_buttons_named_by_their_text(page):
    for name in BUTTONS:
        found = button(page, 1, name)
        expect(found).to_have_count(1)
        assert found.evaluate("b => b.tagName") == "BUTTON"
        expect(found).to_be_visible()
    expect(region(page, 1).get_by_role("log")).to_have_count(1)


def test_busy_while_a_run_is_under_way_then_status(page):
    cell = region(page, 6)
    gate = Gate(page, "busy")  # the run lasts until the test opens the gate
    gate.run("#cell-6", "print('went on')")
    expect(cell).to_have_attribute("aria-busy", "true")
    expect(cell).not_to_have_attribute("data-status", ENDED)
    gate.open()
    expect(cell).to_have_attribute("data-status", "ok")
    expect(cell).not_to_have_attribute("aria-busy", "true")
    expect(cell.get_by_role("log")).to_have_text("went on\n")


def test_error_and_stopped_status(page):
    output = run(page, 6, "1 / 0")
    expect(region(page, 6)).to_have_attribute("data-status", "error")
    expect(output).to_contain_text("ZeroDivisionError")
    set_code(page, "#cell-6", "while True:\n    pass")
    button(page, 6, "Run").click()
    expect(region(page, 6)).to_have_attribute("aria-busy", "true")
    expect(button(page, 6, "Stop")).to_be_enabled(timeout=LOAD_TIMEOUT_MS)
    button(page, 6, "Stop").click()
    expect(region(page, 6)).to_have_attribute("data-status", "stopped", timeout=LOAD_TIMEOUT_MS)
    expect(region(page, 6)).not_to_have_attribute("aria-busy", "true")


# ------------------------------------------------------------------ item 3: top-level await


def test_top_level_await_shows_the_last_awaited_value(page):
    code = "import asyncio\nawait asyncio.sleep(0.1)\n\nasync def answer():\n    return 6 * 7\n\nawait answer()"
    output = run(page, 6, code)
    expect(region(page, 6)).to_have_attribute("data-status", "ok")
    expect(output.locator(".course-out--result")).to_have_text("42")


# ------------------------------------------------------------------ item 4: plt.show()


def test_plt_show_shows_the_figure_there_once(page):
    code = "import matplotlib.pyplot as plt\nprint('before')\nplt.plot([1, 2, 3])\nplt.show()\nprint('after')"
    output = run(page, 6, code)
    expect(region(page, 6)).to_have_attribute("data-status", "ok")
    expect(output.locator("img")).to_have_count(1)
    alt = output.locator("img").get_attribute("alt")
    assert alt and alt.strip()
    kinds = output.locator(":scope > *").evaluate_all("nodes => nodes.map(n => n.textContent.trim() || n.tagName)")
    assert kinds == ["before", "FIGURE", "after"], kinds
    assert "non-interactive" not in output.inner_text()


def test_a_closed_figure_is_not_shown(page):
    code = "import matplotlib.pyplot as plt\nfig = plt.figure()\nplt.plot([1, 2])\nplt.close(fig)\nprint('closed')"
    output = run(page, 6, code)
    expect(region(page, 6)).to_have_attribute("data-status", "ok")
    expect(output).to_have_text("closed\n")
    expect(output.locator("img")).to_have_count(0)


# ------------------------------------------------------------------ item 5: output like Jupyter's


def test_terminal_sequences_are_honoured_not_printed(page):
    code = (
        "print('\\x1b[31mred\\x1b[0m plain')\n"
        "print('10%\\r100%')\n"
        "import sys\n"
        "sys.stderr.write('\\x1b[1;34mbold blue\\x1b[0m\\n')\n"
        "'\\x1b[33mresult\\x1b[0m'"
    )
    output = run(page, 6, code)
    expect(output.locator(".course-out--stdout")).to_have_text("red plain\n100%\n")
    expect(output.locator(".course-out--stdout .ansi-red-fg")).to_have_text("red")
    expect(output.locator(".course-out--stderr .ansi-bold")).to_have_text("bold blue")
    assert "\x1b" not in output.text_content()


def test_precomputed_output_renders_terminal_sequences(page):
    output = region(page, 1).get_by_role("log")
    expect(output.locator(".ansi-green-fg")).to_have_text("green")
    assert "\x1b" not in output.text_content()


def test_a_very_long_line_does_not_widen_the_page(page):
    page.set_viewport_size({"width": 320, "height": 700})
    try:
        run(page, 6, "print('x' * 5000)\nprint('-'.join(['word'] * 800))\n'y' * 3000")
        expect(region(page, 6)).to_have_attribute("data-status", "ok")
        widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], widths
    finally:
        page.set_viewport_size({"width": 1280, "height": 720})


# ------------------------------------------------------------------ item 6: Copy, Clear, run count, shortcuts


def test_copy_puts_the_code_on_the_clipboard(page):
    set_code(page, "#cell-6", "print('copy me')")
    expect_status_shown(page, "#cell-6", "Code copied", button(page, 6, "Copy").click)
    assert page.evaluate("navigator.clipboard.readText()") == "print('copy me')"


def test_clear_empties_the_output(page):
    output = run(page, 6, "print('to be cleared')")
    expect(output).to_have_text("to be cleared\n")
    button(page, 6, "Clear").click()
    cleared = page.locator("#cell-6 .course-cell__output")  # hidden: no longer in the accessibility tree
    expect(cleared).to_be_hidden()
    expect(cleared).to_have_text("")


def test_run_count_tells_fresh_output_from_old(page):
    count = region(page, 6).locator(".course-cell__count")
    run(page, 6, "print(1)")
    first = int(re.match(r"^\[(\d+)\] \d\d:\d\d:\d\d$", count.inner_text())[1])
    run(page, 6)
    expect(count).to_have_text(re.compile(rf"^\[{first + 1}\] \d\d:\d\d:\d\d$"))


def test_keyboard_shortcuts_are_shown(page):
    hint = region(page, 6).get_by_text("Shift+Enter")
    expect(hint).to_be_visible()
    described = page.locator("#cell-6 .cm-content").get_attribute("aria-describedby")
    assert described == hint.get_attribute("id")


# ------------------------------------------------------------------ item 7: the thread hint


def test_starting_a_thread_gets_a_one_line_hint(page):
    output = run(page, 6, "import threading\nthreading.Thread(target=print).start()")
    expect(region(page, 6)).to_have_attribute("data-status", "error")
    text = output.inner_text()
    hints = [line for line in text.splitlines() if "threads are not available in the browser" in line]
    assert len(hints) == 1, text


# ------------------------------------------------------------------ item 2: edits persist


def test_an_edit_survives_a_reload_and_runs(page):
    set_code(page, "#cell-5", "shared = 70\nprint('edited', shared)")
    expect(region(page, 5).get_by_text(EDITED)).to_be_visible()
    page.reload()
    expect(region(page, 5).get_by_text(EDITED)).to_be_visible()
    output = run(page, 5)
    expect(output).to_have_text("edited 70\n")
    assert get_code(page, "#cell-5") == "shared = 70\nprint('edited', shared)"


def test_reset_restores_the_lesson_code_also_after_a_reload(page):
    set_code(page, "#cell-5", "shared = 71")
    expect(region(page, 5).get_by_text(EDITED)).to_be_visible()
    button(page, 5, "Reset").click()
    assert get_code(page, "#cell-5") == "shared = 7"
    expect(region(page, 5).get_by_text(EDITED)).to_be_hidden()
    page.reload()
    assert get_code(page, "#cell-5") == "shared = 7"
    expect(region(page, 5).get_by_text(EDITED)).to_be_hidden()


def test_a_changed_lesson_cell_shows_the_new_code_and_keeps_the_edit_until_reset(page):
    """A deploy changed the cell's code after the learner edited it (tests/browser/test_deploy.py restores it)."""
    set_code(page, "#cell-5", "shared = 700")
    page_file = page.folder / "fixture" / "index.html"
    lesson = page_file.read_text()
    page_file.write_text(lesson.replace('data-code="shared = 7"', 'data-code="shared = 8"'))
    try:
        page.reload()
        assert get_code(page, "#cell-5") == "shared = 8"
        expect(region(page, 5).get_by_text(EDITED)).to_be_hidden()
        expect(region(page, 5)).to_contain_text("changed since you edited it")
        assert "shared = 700" in page.evaluate("localStorage.getItem('course-edit:/fixture/:5')")
        button(page, 5, "Reset").click()
        expect(region(page, 5).get_by_role("button", name="Restore my edit")).to_have_count(0)
        assert page.evaluate("localStorage.getItem('course-edit:/fixture/:5')") is None
    finally:  # the other tests read the lesson as it was
        page_file.write_text(lesson)
        page.reload()


# ------------------------------------------------------------------ item 7: crashes, with storage that throws


@pytest.fixture(scope="module")
def crash_page(browser, folder, serve):
    with guarded_page(browser, serve(folder) + "fixture/", init_script=HOSTILE_STORAGE) as (crash_page, _problems):
        yield crash_page


def test_storage_that_throws_does_not_break_a_cell(crash_page):
    set_code(crash_page, "#cell-6", "print('no storage')")
    expect(region(crash_page, 6).get_by_text(EDITED)).to_be_visible()
    output = run(crash_page, 6)
    expect(output).to_have_text("no storage\n")
    button(crash_page, 6, "Reset").click()
    assert get_code(crash_page, "#cell-6") == "shared * 6"


def test_os_exit_is_reported_as_python_exiting(crash_page):
    output = run(crash_page, 6, "import os\nprint('bye')\nos._exit(1)")
    expect(region(crash_page, 6)).to_have_attribute("data-status", "error")
    expect(output).to_contain_text("bye")
    expect(output).to_contain_text("Python exited with status 1.")
    assert "memory" not in output.inner_text()
    expect(run(crash_page, 6, "print('fresh')")).to_have_text("fresh\n")


def test_out_of_memory_is_one_plain_sentence(crash_page):
    # Pyodide's own fatal-error path, with the error a failed memory.grow gives.
    code = (
        "import js, pyodide_js\n"
        "err = js.RangeError.new('WebAssembly.Memory.grow(): Maximum memory size exceeded')\n"
        "err.stack = 'RangeError: WebAssembly.Memory.grow(): Maximum memory size exceeded\\n    at wasm://wasm/pyodide.asm-0123:wasm-function[42]:0x1234'\n"
        "pyodide_js._api.fatal_error(err)"
    )
    output = run(crash_page, 6, code)
    expect(region(crash_page, 6)).to_have_attribute("data-status", "error")
    notice = output.locator(".course-cell__notice")
    expect(notice).to_contain_text("Python ran out of memory and stopped.")
    assert "wasm" not in output.inner_text()
    assert "Maximum memory size" not in output.inner_text()


def test_a_worker_that_vanishes_is_detected(crash_page):
    # The worker closes itself: no error event, no more messages, as when the browser ends it.
    output = run(crash_page, 6, "import js\njs.close()\nprint('closing')")
    expect(output).to_contain_text("closing")  # the run has ended: the worker's last message
    # Within LIVENESS's idle silence and heartbeat, which tests/js/kernel.test.mjs times on a fake clock;
    # here a loaded machine's late timers only delay it.
    expect(output).to_contain_text("Python stopped answering", timeout=LOAD_TIMEOUT_MS)
    expect(run(crash_page, 6, "print('fresh again')")).to_have_text("fresh again\n")


def test_edits_are_keyed_per_page_and_cell(page):
    set_code(page, "#cell-6", "print('kept')")
    keys = page.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('course-edit:'))")
    assert "course-edit:/fixture/:6" in keys, keys  # (other tests may have left edits of other cells)
    assert all(re.fullmatch(r"course-edit:/fixture/:\d+", key) for key in keys), keys
    entry = json.loads(page.evaluate("localStorage.getItem('course-edit:/fixture/:6')"))
    assert entry["code"] == "print('kept')"
    assert re.fullmatch(r"[0-9a-f]{8}", entry["codeHash"])
