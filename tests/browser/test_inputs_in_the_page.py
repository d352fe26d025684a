"""A cell's inputs in the browser: every kind by keyboard, the latest value winning, pre-rendered
combinations before Python is ready, values kept across a reload and Reset, axe, 320 px, no JS.

Lesson 32's cell with inputs has a slider and a checkbox (128 combinations: it runs live);
lesson 33's has two selects (16 combinations: every one pre-rendered by the build).
"""

from __future__ import annotations

import re

import pytest
from axe_fixture import audit, report
from page_fixture import FINAL_STATE, LESSON, LOAD_TIMEOUT_MS, Gate, guarded_page, set_code, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROPE = "lessons/33-rope-long-context/"
SLIDER_CELL = '[data-inputs="pos marked d_model"]'
SELECT_CELL = '[data-inputs="method L"]'
SHOWN_IMAGE = "img[data-scheme=default]"  # a figure is drawn in both schemes; these pages are in the light one


def neighbours(pos: int) -> re.Pattern:
    """What the slider cell prints for ``pos``: its two neighbours first (equally near, in either order)."""
    near = f"({pos - 1}|{pos + 1})"
    return re.compile(rf"nearest to {pos}: {near} \(1\.95\), {near} \(1\.95\)")


def output(page, cell: str):
    return page.locator(f"{cell} .course-cell__output")


def announced(page, cell: str):
    return page.locator(f"{cell} .course-inputs__announce")


def test_the_build_writes_a_fieldset_of_labelled_controls_above_the_output(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, _):
        cell = page.locator(SLIDER_CELL)
        fieldset = cell.locator("fieldset.course-inputs")
        expect(fieldset.locator("legend")).to_have_text("Try it: a position and its nearest neighbours")  # its heading
        slider = page.get_by_role("slider", name="position pos")
        expect(slider).to_have_attribute("type", "range")
        expect(slider).to_have_value("10")
        expect(page.get_by_role("checkbox", name="mark the nearest positions")).to_be_checked()
        expect(fieldset.locator("output")).to_have_text(["10"])  # the slider's readout; the others show their own
        expect(fieldset).to_be_enabled()
        below = page.evaluate(
            """(cell) => {
                const root = document.querySelector(cell);
                const fieldset = root.querySelector("fieldset"), out = root.querySelector(".course-cell__output");
                return Boolean(fieldset.compareDocumentPosition(out) & Node.DOCUMENT_POSITION_FOLLOWING);
            }""",
            SLIDER_CELL,
        )
        assert below, "the inputs come above the cell's output"


# Records each change of the cell's live regions (those a screen reader reads out: not aria-live="off").
RECORD_ANNOUNCEMENTS = """(cell) => {
  window.__announced = [];
  const live = (node) => node.getAttribute("aria-live") !== "off"
    && (node.matches('[role="status"], [role="log"], [aria-live]') || node.tagName === "OUTPUT");
  for (const region of [...document.querySelector(cell).querySelectorAll("*")].filter(live)) {
    new MutationObserver(() => window.__announced.push(region.textContent.trim()))
      .observe(region, { childList: true, subtree: true, characterData: true });
  }
}"""


def test_keyboard_moves_the_slider_and_the_checkbox_and_the_cell_reruns(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, _):
        wait_ready(page)
        page.evaluate(RECORD_ANNOUNCEMENTS, SLIDER_CELL)
        slider = page.get_by_role("slider", name="position pos")
        slider.focus()
        page.keyboard.press("ArrowRight")
        expect(page.locator(f"{SLIDER_CELL} output").first).to_have_text("11")
        expect(output(page, SLIDER_CELL)).to_contain_text(neighbours(11), timeout=LOAD_TIMEOUT_MS)
        expect(announced(page, SLIDER_CELL)).to_have_text(
            "Output updated for position pos: 11, mark the nearest positions: on, d_model: 128.",
            timeout=LOAD_TIMEOUT_MS,
        )
        expect(page.locator(SLIDER_CELL)).to_have_attribute("data-status", "ok")
        # announced once, politely: the output and the cell's status are not read out as well
        assert page.evaluate("() => window.__announced") == [
            "Output updated for position pos: 11, mark the nearest positions: on, d_model: 128."
        ]
        page.keyboard.press("Tab")
        checkbox = page.get_by_role("checkbox", name="mark the nearest positions")
        expect(checkbox).to_be_focused()
        page.keyboard.press("Space")
        expect(checkbox).not_to_be_checked()
        expect(announced(page, SLIDER_CELL)).to_have_text(
            "Output updated for position pos: 11, mark the nearest positions: off, d_model: 128.",
            timeout=LOAD_TIMEOUT_MS,
        )
        alt = output(page, SLIDER_CELL).locator(SHOWN_IMAGE).get_attribute("alt")
        assert "position 11's encoding" in alt


def test_the_latest_value_wins_and_the_output_stays_until_the_new_one_is_complete(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, _):
        wait_ready(page)
        gate = Gate(page, "inputs")
        original = page.locator(SLIDER_CELL).get_attribute("data-code")
        set_code(page, SLIDER_CELL, gate.code + original)
        slider = page.get_by_role("slider", name="position pos")
        slider.focus()
        page.keyboard.press("ArrowRight")  # 11: runs, and waits at the gate
        expect(page.locator("html")).to_have_attribute("data-test-gate", "inputs", timeout=LOAD_TIMEOUT_MS)
        for _ in range(5):  # 12 .. 16 while 11 runs: one run waits behind it, with the latest value
            page.keyboard.press("ArrowRight")
        expect(page.locator(f"{SLIDER_CELL} output").first).to_have_text("16")
        # the build's output of the defaults is still shown, whole, while the new one is made
        expect(output(page, SLIDER_CELL)).to_contain_text(neighbours(10))
        expect(output(page, SLIDER_CELL).locator(SHOWN_IMAGE)).to_have_count(1)
        gate.open()
        expect(output(page, SLIDER_CELL)).to_contain_text(neighbours(16), timeout=LOAD_TIMEOUT_MS)
        expect(page.locator(SLIDER_CELL)).to_have_attribute("data-state", FINAL_STATE, timeout=LOAD_TIMEOUT_MS)
        # Two runs in all: 11, then 16; 12 to 15 never ran.
        expect(page.locator(f"{SLIDER_CELL} .course-cell__count")).to_have_text(re.compile(r"^\[2\] "))
        expect(output(page, SLIDER_CELL)).not_to_contain_text("nearest to 11")


def test_pre_rendered_combinations_show_before_python_is_ready(browser, site_server):
    held = []
    routes = [("**/pyodide.asm.wasm", lambda route: held.append(route))]  # Python never starts meanwhile
    with guarded_page(browser, site_server + ROPE, routes=routes) as (page, _):
        method = page.get_by_role("combobox", name="rescaling")
        length = page.get_by_role("combobox", name="training length L")
        expect(output(page, SELECT_CELL)).to_contain_text("yarn, L = 2048: 17 kept, 24 blended, 23 interpolated")
        expect(method).to_be_enabled()  # the page's script has enhanced the cell
        method.focus()
        expect(method).to_be_focused()
        page.keyboard.press("ArrowDown")  # yarn -> llama3
        expect(method).to_have_value("3")
        expect(output(page, SELECT_CELL)).to_contain_text("llama3, L = 2048: 31 kept, 10 blended, 23 interpolated")
        length.select_option(label="32768")
        expect(output(page, SELECT_CELL)).to_contain_text("llama3, L = 32768: 50 kept, 10 blended, 4 interpolated")
        expect(output(page, SELECT_CELL).locator(SHOWN_IMAGE)).to_have_attribute(
            "alt", re.compile("llama3 trained on 32768 tokens")
        )
        expect(announced(page, SELECT_CELL)).to_have_text(
            "Output shown for rescaling: llama3, training length L: 32768."
        )
        assert held, "Python's wasm was asked for and held"
        expect(page.locator(SELECT_CELL)).not_to_have_attribute("data-status", re.compile("."))
        for route in held:
            route.abort()


def test_values_are_kept_across_a_reload_and_reset_restores_the_defaults(browser, site_server):
    with guarded_page(browser, site_server + ROPE) as (page, _):
        page.get_by_role("combobox", name="rescaling").select_option(label="ntk")
        expect(output(page, SELECT_CELL)).to_contain_text("ntk, L = 2048: 1 kept, 62 blended, 1 interpolated")
        page.reload()
        expect(page.get_by_role("combobox", name="rescaling")).to_have_value("1")
        expect(output(page, SELECT_CELL)).to_contain_text("ntk, L = 2048: 1 kept, 62 blended, 1 interpolated")
        page.locator(f"{SELECT_CELL} .course-cell__button--reset").click()
        expect(page.get_by_role("combobox", name="rescaling")).to_have_value("2")
        expect(output(page, SELECT_CELL)).to_contain_text("yarn, L = 2048: 17 kept, 24 blended, 23 interpolated")
        page.reload()
        expect(page.get_by_role("combobox", name="rescaling")).to_have_value("2")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_inputs_are_axe_clean(browser, site_server, scheme):
    with guarded_page(browser, site_server + LESSON, color_scheme=scheme) as (page, _):
        wait_ready(page)
        page.locator(SLIDER_CELL).scroll_into_view_if_needed()
        violations = audit(page, [SLIDER_CELL, SELECT_CELL])
        assert not violations, report(f"the inputs ({scheme})", violations)


def test_the_inputs_fit_320_px(browser, site_server):
    with guarded_page(browser, site_server + ROPE, viewport={"width": 320, "height": 640}) as (page, _):
        fieldset = page.locator(f"{SELECT_CELL} fieldset")
        fieldset.scroll_into_view_if_needed()
        sizes = fieldset.evaluate("(f) => [f.scrollWidth, f.clientWidth, f.getBoundingClientRect().right]")
        assert sizes[0] <= sizes[1] and sizes[2] <= 320, sizes
        width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], width
        for control in fieldset.locator("select").all():
            box = control.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 320, box


def test_without_javascript_the_defaults_show_with_the_inputs_disabled(browser, site_server):
    with guarded_page(browser, site_server + ROPE, java_script_enabled=False) as (page, _):
        expect(page.get_by_role("combobox", name="rescaling")).to_be_disabled()
        expect(page.get_by_role("combobox", name="rescaling")).to_have_value("2")
        expect(page.get_by_role("combobox", name="training length L")).to_have_value("0")
        expect(output(page, SELECT_CELL)).to_be_visible()
        expect(output(page, SELECT_CELL)).to_contain_text("yarn, L = 2048: 17 kept, 24 blended, 23 interpolated")


def test_without_javascript_the_folded_code_opens_and_shows_the_code(browser, site_server):
    with guarded_page(browser, site_server + ROPE, java_script_enabled=False) as (page, _):
        folded = page.locator(f"{SELECT_CELL} details.course-cell__code")
        expect(folded).not_to_have_attribute("open", re.compile(".*"))
        summary = folded.locator("summary.course-cell__code-summary")
        expect(summary).to_have_text(re.compile(r"^Show the code · \d+ lines$"))
        expect(folded.locator(".course-cell__static")).not_to_be_visible()
        summary.click()
        expect(folded.locator(".course-cell__static")).to_contain_text("rope_frequencies")
        expect(output(page, SELECT_CELL)).to_contain_text("yarn, L = 2048: 17 kept, 24 blended, 23 interpolated")


def test_the_folded_code_opens_from_the_keyboard_and_its_editor_takes_keys(browser, site_server):
    with guarded_page(browser, site_server + ROPE) as (page, _):
        wait_ready(page)
        summary = page.locator(f"{SELECT_CELL} summary.course-cell__code-summary")
        summary.focus()
        page.keyboard.press("Enter")
        expect(page.locator(f"{SELECT_CELL} details.course-cell__code")).to_have_attribute("open", "")
        editor = page.locator(f"{SELECT_CELL} .cm-content")
        expect(editor).to_be_visible(timeout=LOAD_TIMEOUT_MS)
        editor.click()
        page.keyboard.press("Control+End")
        page.keyboard.type("\nprint('typed')")
        expect(editor).to_contain_text("print('typed')")
