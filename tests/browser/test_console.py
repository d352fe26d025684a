"""The Python console of a lesson page, driven with the keyboard in Chromium.

On the built lesson page (real Pyodide, every request off 127.0.0.1 blocked): the header's button and
Ctrl+` open it and Escape closes it, focus going where a keyboard user expects; Enter runs a finished
statement and adds a "..." line to an unfinished one, as Python's prompt decides; errors, figures and the
output limit show as in a cell; completion is the editors' Jedi; a statement waits for a running cell
and a cell for a running statement; Ctrl+L clears; axe finds nothing serious on a phone in the dark and
on a desktop in the light, and on a phone the console takes at most half the height; a page whose author
turned the console off has none.  test_engines.py runs the shared namespace, Stop and the history after a
reload in all three engines; tests/js/console.test.mjs the history and the queue's logic.
"""

from __future__ import annotations

import pytest
from axe_fixture import audit, report
from page_fixture import LESSON, LOAD_TIMEOUT_MS, Gate, guarded_page, run, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CONSOLE = "#course-console"
FINAL = r"^(ok|error|stopped|more)$"
LISTBOX = ".cm-tooltip-autocomplete [role=listbox]"
PHONE = {"viewport": {"width": 390, "height": 844}, "color_scheme": "dark"}
DESKTOP = {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"}


@pytest.fixture(scope="module")
def lesson(browser, site_server):
    with guarded_page(browser, site_server + LESSON, **DESKTOP) as (page, _problems):
        wait_ready(page)
        yield page


def toggle(page):
    return page.get_by_role("button", name="Python console", exact=True)


def console_input(page):
    return page.get_by_role("textbox", name="Python console input", exact=True)


def open_console(page) -> None:
    """Open the console with its header button if it is closed (the button focuses its input), else
    focus its input."""
    if toggle(page).get_attribute("aria-expanded") == "true":
        console_input(page).focus()
    else:
        toggle(page).click()
    expect(console_input(page)).to_be_focused()


def enter(page, text: str) -> str:
    """Type ``text`` at the end of the console's input and press Enter; the console's state once the
    statement ended or was found unfinished (Enter marks it busy at once)."""
    console_input(page).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    expect(page.locator(CONSOLE)).to_have_attribute("data-state", _final(), timeout=LOAD_TIMEOUT_MS)
    return page.locator(CONSOLE).get_attribute("data-state")


def _final():
    import re

    return re.compile(FINAL)


def last_entry(page):
    return page.locator(f"{CONSOLE} .course-console__entry").last


def test_the_header_button_and_ctrl_backquote_open_it_and_escape_closes_it(lesson):
    button = toggle(lesson)
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(lesson.get_by_role("region", name="Python console")).to_be_hidden()
    button.focus()
    lesson.keyboard.press("Enter")
    region = lesson.get_by_role("region", name="Python console")
    expect(region).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(console_input(lesson)).to_be_focused()
    expect(region.get_by_role("log", name="Console output")).to_have_attribute("aria-live", "polite")
    lesson.keyboard.press("Escape")
    expect(region).to_be_hidden()
    expect(button).to_be_focused()  # focus goes back where the console was opened from
    lesson.keyboard.press("Control+Backquote")
    expect(console_input(lesson)).to_be_focused()
    lesson.keyboard.press("Control+Backquote")
    expect(region).to_be_hidden()


def test_enter_adds_a_continuation_line_until_the_block_ends_then_runs_it(lesson):
    open_console(lesson)
    assert enter(lesson, "for i in range(3):") == "more"
    gutter = lesson.locator(f"{CONSOLE} .cm-lineNumbers .cm-gutterElement:not([style*='hidden'])")
    expect(gutter).to_have_text([">>>", "..."])
    assert enter(lesson, "print(i)") == "more"
    assert enter(lesson, "") == "ok"  # an empty line ends the block
    expect(last_entry(lesson).locator(".course-console__echo")).to_have_text(">>> for i in range(3):\n...     print(i)")
    expect(last_entry(lesson).locator(".course-console__output")).to_have_text("0\n1\n2\n")
    expect(console_input(lesson)).to_have_text("")
    # Shift+Enter adds a line without running; two statements run as one.
    console_input(lesson).focus()
    lesson.keyboard.type("a = 20")
    lesson.keyboard.press("Shift+Enter")
    assert enter(lesson, "b = 22") == "ok"
    assert enter(lesson, "a + b") == "ok"
    expect(last_entry(lesson).locator(".course-out--result")).to_have_text("42")
    # ↑ brings back the last statement; ↓ goes back to the empty input.
    lesson.keyboard.press("ArrowUp")
    expect(console_input(lesson)).to_have_text("a + b")
    lesson.keyboard.press("ArrowDown")
    expect(console_input(lesson)).to_have_text("")


def test_an_error_a_figure_and_the_output_limit_show_as_in_a_cell(lesson):
    open_console(lesson)
    assert enter(lesson, "1 / 0") == "error"
    expect(last_entry(lesson).locator(".course-out--error")).to_contain_text("ZeroDivisionError: division by zero")
    assert enter(lesson, "import matplotlib.pyplot as plt; _ = plt.plot([1, 4, 9])") == "ok"
    figure = last_entry(lesson).locator("figure.course-out--figure img")
    expect(figure).to_have_count(1)
    assert figure.evaluate("(img) => img.decode().then(() => img.naturalWidth > 0)")
    assert enter(lesson, "for i in range(10**6): print(i)") == "more"
    assert enter(lesson, "") == "ok"
    expect(last_entry(lesson)).to_contain_text("Output limit reached")


def test_completion_is_the_editors_jedi_and_a_question_mark_asks_for_help(lesson):
    open_console(lesson)
    assert enter(lesson, "import posenc") == "ok"
    assert enter(lesson, "posenc.sinusoidal?") == "ok"
    expect(last_entry(lesson).locator(".course-console__output")).to_contain_text(
        "Sinusoidal positional encoding, sin/cos interleaved as in the paper."
    )
    console_input(lesson).focus()
    lesson.keyboard.type("posenc.sinu")
    listbox = lesson.locator(LISTBOX)
    expect(listbox).to_be_visible(timeout=LOAD_TIMEOUT_MS)  # the first completion loads Jedi
    expect(listbox.locator("[role=option] .cm-completionLabel")).to_have_text(["sinusoidal"])
    lesson.keyboard.press("Escape")  # closes the list, not the console
    expect(listbox).to_have_count(0)
    expect(console_input(lesson)).to_be_focused()
    lesson.keyboard.press("Control+a")
    lesson.keyboard.press("Delete")


def test_a_statement_waits_for_a_running_cell_and_a_cell_for_a_running_statement(lesson):
    cell_gate = Gate(lesson, "console-behind-a-cell")
    cell_gate.run("#cell-2")
    open_console(lesson)
    console_input(lesson).focus()
    lesson.keyboard.type("print('after the cell')")
    lesson.keyboard.press("Enter")
    expect(lesson.locator(f"{CONSOLE} .course-console__status")).to_have_text("Queued…")
    expect(lesson.locator("#cell-2")).to_have_attribute("data-state", "running")
    cell_gate.open()
    expect(lesson.locator("#cell-2")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(lesson.locator(CONSOLE)).to_have_attribute("data-state", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(last_entry(lesson).locator(".course-console__output")).to_have_text("after the cell\n")

    console_gate = Gate(lesson, "cell-behind-the-console")
    set_console_input(lesson, console_gate.code)
    console_input(lesson).focus()
    lesson.keyboard.press("Control+End")
    lesson.keyboard.press("Enter")
    expect(lesson.locator("html")).to_have_attribute("data-test-gate", console_gate.name, timeout=LOAD_TIMEOUT_MS)
    run(lesson, "#cell-2", "print('after the console')", wait=False)
    expect(lesson.locator("#cell-2")).to_have_attribute("data-state", "queued")
    console_gate.open()
    expect(lesson.locator("#cell-2")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(lesson.locator("#cell-2 .course-out")).to_have_text("after the console")
    expect(lesson.locator(CONSOLE)).to_have_attribute("data-state", "ok")


def set_console_input(page, text: str) -> None:
    """Put ``text`` in the console's input as one edit (a paste)."""
    page.evaluate(
        """async (text) => {
            const enhance = document.querySelector('script[src$="/js/enhance.js"]');
            const { EditorView } = await import(new URL("../vendor/codemirror.js", enhance.src).href);
            const view = EditorView.findFromDOM(document.querySelector("#course-console .cm-content"));
            view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
        }""",
        text,
    )


def test_ctrl_l_clears_the_console(lesson):
    open_console(lesson)
    assert enter(lesson, "'something to clear'") == "ok"
    expect(lesson.locator(f"{CONSOLE} .course-console__entry")).not_to_have_count(0)
    lesson.keyboard.press("Control+l")
    expect(lesson.locator(f"{CONSOLE} .course-console__entry")).to_have_count(0)
    expect(console_input(lesson)).to_be_focused()


@pytest.mark.parametrize("screen", ["390-dark", "1280-light"])
def test_axe_finds_nothing_serious_with_the_console_open_and_on_a_phone_it_takes_half_the_height(
    browser, site_server, screen
):
    options = PHONE if screen == "390-dark" else DESKTOP
    with guarded_page(browser, site_server + LESSON, **options) as (page, _):
        wait_ready(page)
        open_console(page)
        assert enter(page, "x = 41\nx + 1") == "ok"
        assert enter(page, "undefined_name") == "error"
        scheme = "slate" if "dark" in screen else "default"
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", scheme)
        violations = audit(page)
        assert not violations, report(f"{LESSON} at {screen}, console open", violations)
        height = page.locator(CONSOLE).bounding_box()["height"]
        assert height <= options["viewport"]["height"] / 2, height
        page.get_by_role("button", name="Close", exact=True).click()
        expect(page.locator(CONSOLE)).to_be_hidden()
        expect(toggle(page)).to_be_focused()


def test_a_page_whose_author_turned_the_console_off_has_none(browser, site_server):
    """The build marks such a page's starter script data-console="off" (tests/unit/test_console_switch.py);
    here the page is served so marked, to check that the page's scripts leave the console out."""

    def console_off(route) -> None:
        html = route.fetch().text().replace("<script data-worker=", '<script data-console="off" data-worker=', 1)
        route.fulfill(body=html, content_type="text/html")

    routes = [(f"**/{LESSON}", console_off)]
    with guarded_page(browser, site_server + LESSON, routes=routes) as (page, _):
        wait_ready(page)  # long after the console is made where it is on
        expect(page.locator("script[data-worker]")).to_have_attribute("data-console", "off")
        page.keyboard.press("Control+Backquote")
        expect(page.locator(".course-console-toggle")).to_have_count(0)
        expect(page.locator(CONSOLE)).to_have_count(0)
