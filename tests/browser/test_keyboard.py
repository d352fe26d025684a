"""A keyboard-only learner can do everything: reach and edit a cell, run and stop it, reset,
copy and clear it, answer the quiz, and use an exercise's hints and solution.

Only the keyboard drives the page here (Tab, Shift+Tab, Escape, Enter, Space, arrows,
typing). At every stop focus must be visible (an outline or a box-shadow on the
focused element, or on the editor around it), and what a run does must reach the
live regions (role="status" and role="log") that screen readers announce.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, get_code, guarded_page, wait_until_python_is_ready
from playwright.sync_api import expect

from course_kernel.strings import t

pytestmark = pytest.mark.browser

EXERCISE_MARKUP = ' course-exercise"'  # an exercise's cell: class="course-cell course-exercise"
MAX_TAB_STOPS = 400  # a long lesson page, header and navigation included

# Where focus is, and whether it shows: an outline or box-shadow on the element, on the editor
# around it, or on the label of (or just after) a visually hidden input (Material's palette toggle).
FOCUS = """() => {
  const el = document.activeElement;
  const shows = (node) => {
    const style = getComputedStyle(node);
    const outlined = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    return outlined || style.boxShadow !== "none";
  };
  return {
    tag: el.tagName.toLowerCase(),
    name: (el.getAttribute("aria-label") || el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 80),
    editor: el.classList.contains("cm-content"),
    cell: el.closest(".course-cell")?.id ?? null,
    quiz: el.closest("form.course-quiz") ? el.type : null,
    visible: [el.closest(".cm-editor") || el, ...(el.labels || []), el.nextElementSibling]
      .some((node, k) => node && (k === 0 || node.tagName === "LABEL") && shows(node)),
  };
}"""

# Records each change of a live region's text: what a screen reader would announce.
RECORD_ANNOUNCEMENTS = """() => {
  window.__announced = [];
  for (const region of document.querySelectorAll('[role="status"], [role="log"], [aria-live]')) {
    new MutationObserver(() => window.__announced.push({
      role: region.getAttribute("role") || "aria-live",
      cell: region.closest(".course-cell")?.id ?? null,
      text: region.textContent.trim(),
    })).observe(region, { childList: true, subtree: true, characterData: true });
  }
}"""


def focus(page, trail: list[dict] | None = None) -> dict:
    """Where focus is now; fails if it is not visible, saying where it was at the last stops of ``trail``."""
    now = page.evaluate(FOCUS)
    before = f"; the {len(trail[-5:])} stops before: {trail[-5:]}" if trail else ""
    if trail == []:
        before = "; at the first Tab"
    assert now["visible"], f"focus is not visible on {now}{before}"
    return now


def tab_until(page, wanted, what: str, *, limit: int = MAX_TAB_STOPS) -> dict:
    """Press Tab until focus satisfies ``wanted``, leaving each other editor with Escape, Tab as learners do."""
    trail: list[dict] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = focus(page, trail)
        if wanted(now):
            return now
        trail.append(now)
        if now["editor"]:
            page.keyboard.press("Escape")
    raise AssertionError(f"{what} is not reachable with Tab within {limit} stops")


def press_button(page, cell: str, name: str, *, prefix: bool = False) -> None:
    """Tab forward to the button named ``name`` (or starting so) inside ``cell``, and press it with Enter."""

    def is_target(now: dict) -> bool:
        named = now["name"].startswith(name) if prefix else now["name"] == name
        return now["tag"] == "button" and named and now["cell"] == cell

    def left_cell(now: dict) -> bool:
        return now["cell"] != cell

    now = tab_until(page, lambda now: is_target(now) or left_cell(now), f"the button {name!r} of cell {cell}")
    assert is_target(now), (
        f"Tab left cell {cell} (now on {now}) without reaching a button named {name!r}: "
        "each cell needs Run, Stop, Reset, Copy and Clear buttons"
    )
    page.keyboard.press("Enter")


def announcements(page, cell: str, role: str) -> list[str]:
    return [a["text"] for a in page.evaluate("() => window.__announced") if a["cell"] == cell and a["role"] == role]


def back_to_the_editor(page, cell: str) -> None:
    """Shift+Tab from the cell's buttons back into its editor."""
    for _ in range(10):
        page.keyboard.press("Shift+Tab")
        now = focus(page)
        if now["editor"] and now["cell"] == cell:
            return
    raise AssertionError(f"Shift+Tab does not lead back into the editor of cell {cell}")


CONTEXT = {"viewport": {"width": 1280, "height": 900}, "permissions": ["clipboard-read", "clipboard-write"]}


def tab_into_the_first_editor(page) -> str:
    """Once Python is ready, Tab from the top of the page into the first cell's editor; returns the cell's id."""
    cell_id = page.locator(".course-cell").first.get_attribute("id")
    expect(page.locator(f"#{cell_id}.course-cell--live")).to_have_count(1)
    # Python ready, so the editor bundle is loaded; and the first cell's editor in place of its static code.
    # An editor is made when its cell comes near the viewport, and takes the static code's place after
    # CodeMirror's first measure; a learner's Tab that reaches the static code first passes through it
    # (their focus moves into the editor if it is inside the static code when the editor takes its place),
    # so here the cell is brought near and the swap awaited, then Tab starts from the top of the page.
    wait_until_python_is_ready(page)
    page.locator(f"#{cell_id}").scroll_into_view_if_needed()
    expect(page.locator(f"#{cell_id} .course-cell__static")).to_have_count(0)
    expect(page.locator(f"#{cell_id} .cm-editor")).to_be_visible()
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement?.blur(); }")
    page.evaluate(RECORD_ANNOUNCEMENTS)
    tab_until(page, lambda now: now["editor"] and now["cell"] == cell_id, "the first cell's editor")
    return cell_id


def test_keyboard_only_journey_through_a_lesson(browser, site_server):
    with guarded_page(browser, site_server + LESSON, **CONTEXT) as (page, _):
        cell_id = tab_into_the_first_editor(page)
        cell = f"#{cell_id}"
        original = page.locator(cell).get_attribute("data-code")

        # Typing and Shift+Enter run the cell; its status and output reach the live regions.
        page.keyboard.press("Control+End")
        page.keyboard.press("Enter")
        page.keyboard.type('print("typed by keyboard")')
        page.keyboard.press("Shift+Enter")
        expect(page.locator(cell)).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator(f"{cell} .course-cell__output")).to_contain_text("typed by keyboard")
        assert any(text.startswith("Done") for text in announcements(page, cell_id, "status"))
        assert any("typed by keyboard" in text for text in announcements(page, cell_id, "log"))

        # Esc then Tab leaves the editor, for the cell's Run button.
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        assert focus(page)["name"] == "Run", focus(page)

        # Run by keyboard a loop that never ends, then Stop it by keyboard: focus stays on the cell.
        back_to_the_editor(page, cell_id)
        page.keyboard.press("Control+a")
        page.keyboard.type("while True: pass")
        page.keyboard.press("Escape")  # closes any completions offered while typing; Tab then leaves the editor
        press_button(page, cell_id, "Run")
        expect(page.locator(cell)).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
        press_button(page, cell_id, "Stop")
        expect(page.locator(cell)).to_have_attribute("data-state", "stopped", timeout=LOAD_TIMEOUT_MS)
        assert any(text.startswith("Stopped") for text in announcements(page, cell_id, "status"))
        assert focus(page)["name"] == "Run"

        # Reset puts the lesson's code back.
        press_button(page, cell_id, "Reset")
        assert get_code(page, cell) == original

        # The quiz: Tab into its options, Space chooses one, an arrow key changes the answer.
        quiz = page.locator("form.course-quiz").first
        tab_until(page, lambda now: now["quiz"] == "radio", "the quiz")
        page.keyboard.press("Space")
        expect(quiz).to_have_attribute("data-answered", re.compile("correct|incorrect"))
        first_feedback = quiz.locator(".course-quiz__feedback").inner_text()
        page.keyboard.press("ArrowDown")
        focus(page)
        expect(quiz.locator("input[type=radio]").nth(1)).to_be_checked()
        expect(quiz.locator(".course-quiz__feedback")).not_to_have_text(first_feedback)
        feedback = page.evaluate("() => window.__announced").pop()
        assert feedback["role"] == "status" and feedback["text"], feedback


def test_copy_and_clear_by_keyboard(browser, site_server):
    with guarded_page(browser, site_server + LESSON, **CONTEXT) as (page, _):
        cell_id = tab_into_the_first_editor(page)
        cell = f"#{cell_id}"
        page.keyboard.press("Escape")
        press_button(page, cell_id, "Copy")
        setup = page.locator(cell).get_attribute("data-setup")  # Copy gives the setup with the code
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == (f"{setup.rstrip(chr(10))}\n{get_code(page, cell)}" if setup.strip() else get_code(page, cell))
        expect(page.locator(f"{cell} .course-out")).not_to_have_count(0)  # the output from the build
        press_button(page, cell_id, "Clear")
        expect(page.locator(f"{cell} .course-out")).to_have_count(0)
        focus(page)


def pages_with_exercises(site: Path) -> list[str]:
    pages = [html for html in sorted(site.rglob("index.html")) if EXERCISE_MARKUP in html.read_text()]
    return [html.parent.relative_to(site).as_posix() + "/" for html in pages]


def test_exercise_hint_and_solution_by_keyboard(browser, built_site, site_server):
    pages = pages_with_exercises(built_site)
    assert pages, (
        "no page of the built site has an exercise (.course-exercise): the keyboard test of "
        'Hint and Show solution needs one (a lesson\'s ```pyodide exercise="..." fence)'
    )
    with guarded_page(browser, site_server + pages[0], viewport={"width": 1280, "height": 900}) as (page, _):
        exercise = page.locator(".course-exercise").first
        cell_id = exercise.get_attribute("id")  # the exercise is its cell
        expect(exercise).to_have_class(re.compile(r"\bcourse-cell--live\b"))
        page.evaluate(RECORD_ANNOUNCEMENTS)
        tab_until(page, lambda now: now["editor"] and now["cell"] == cell_id, "the exercise's editor")
        # Show solution appears after the first check (the site's rule, after-check): Shift+Enter checks the
        # starter, and the note beside the buttons, a live region, says that the solution is available.
        expect(exercise.get_by_role("button", name="Show solution")).to_be_hidden()
        expect(exercise.locator(".course-exercise__solution-note")).to_have_text(t("exercise.solution_after_check"))
        page.keyboard.press("Shift+Enter")
        verdict = exercise.locator(".course-exercise__check")
        expect(verdict).to_have_attribute("data-check", "fail", timeout=LOAD_TIMEOUT_MS)
        expect(exercise.get_by_role("button", name="Show solution")).to_be_visible()
        assert t("exercise.solution_ready") in announcements(page, cell_id, "status")
        page.keyboard.press("Escape")

        def in_exercise(name: str, prefix: bool = False):
            def wanted(now: dict) -> bool:
                named = now["name"].startswith(name) if prefix else now["name"] == name
                return now["tag"] == "button" and named

            return wanted

        tab_until(page, in_exercise("Hint", prefix=True), "the exercise's Hint button", limit=20)
        page.keyboard.press("Enter")
        expect(exercise.locator("details.course-exercise__hint[open]")).to_have_count(1)
        focus(page)
        tab_until(page, in_exercise("Show solution"), "the exercise's Show solution button", limit=20)
        page.keyboard.press("Enter")
        expect(exercise.get_by_label("Solution", exact=True)).to_be_visible()
        focus(page)
