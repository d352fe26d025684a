"""Reflow at 320 CSS px and reduced motion, on the lesson pages.

At 320 px wide (a 1280 px window zoomed to 400 %) a lesson must not scroll sideways:
editors wrap long lines; outputs, display math and wide tables scroll inside their own
boxes, and each box that does can be reached by keyboard. With ``prefers-reduced-motion: reduce``
nothing in a cell moves: no sliding progress bar, no pulsing dot, no transitions.
"""

from __future__ import annotations

import pytest
from axe_fixture import audit, report
from page_fixture import (
    LESSON,
    LESSONS,
    LOAD_TIMEOUT_MS,
    guarded_page,
    run,
    wait_for_editor,
    wait_until_python_is_ready,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NARROW = {"width": 320, "height": 640}
WIDE_RESULT = "list(range(400))"  # one long line: a result keeps its line breaks, so it scrolls

# Boxes in the page's content that scroll sideways, and whether Tab can reach them (or something in them).
SIDEWAYS_SCROLLERS = """() => {
  const reachable = (el) => el.tabIndex >= 0 && !el.disabled && el.getClientRects().length > 0;
  const found = [];
  for (const el of document.querySelectorAll(".md-content *")) {
    const style = getComputedStyle(el);
    const hiddenText = el.clientWidth <= 1;  // visually hidden text, for screen readers
    if (el.scrollWidth <= el.clientWidth + 1 || style.overflowX === "visible" || hiddenText) continue;
    found.push({
      box: `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`,
      cell: el.closest(".course-cell")?.id ?? null,
      reachable: reachable(el) || [...el.querySelectorAll("*")].some(reachable),
    });
  }
  return found;
}"""

# Running CSS animations and transitions inside cells, exercises and quizzes.
MOVING = """() => document.getAnimations()
  .filter((a) => a.effect?.target?.closest(".course-cell, .course-exercise, .course-quiz"))
  .map((a) => a.animationName || a.transitionProperty)"""

INDETERMINATE = "(bar) => { bar.hidden = false; bar.removeAttribute('value'); }"
TRANSITION_DURATION = "(button) => getComputedStyle(button).transitionDuration"


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_reflows_at_320_px(browser, site_server, lesson):
    with guarded_page(browser, site_server + lesson, viewport=NARROW) as (page, _):
        wait_until_python_is_ready(page)
        cells = page.locator(".course-cell")
        for i in range(cells.count()):
            wait_for_editor(page, f"#{cells.nth(i).get_attribute('id')}")
        first = f"#{cells.first.get_attribute('id')}"
        run(page, first, WIDE_RESULT)
        expect(page.locator(f"{first} .course-out--result")).to_have_count(1)

        width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], f"the page scrolls sideways at 320 px: {width[0]} px of content"
        scrollers = page.evaluate(SIDEWAYS_SCROLLERS)
        kinds = {box["box"].split(".")[1] for box in scrollers}
        assert "course-cell__output" in kinds, scrollers  # the wide result
        assert "cm-scroller" not in kinds, scrollers  # editors wrap their long lines
        unreachable = [box for box in scrollers if not box["reachable"]]
        assert not unreachable, f"boxes that scroll sideways but Tab cannot reach: {unreachable}"
        violations = audit(page)
        assert not violations, report(f"{lesson} at 320 px", violations)


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stops_progress_and_animations(browser, site_server, motion):
    with guarded_page(browser, site_server + LESSON, reduced_motion=motion) as (page, _):
        wait_until_python_is_ready(page)
        cell = f"#{page.locator('.course-cell').first.get_attribute('id')}"
        run(page, cell, "while True: pass", wait=False)
        expect(page.locator(cell)).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
        # The bar as it is while Python loads and its size is not known yet.
        page.eval_on_selector(f"{cell} .course-cell__progress", INDETERMINATE)
        moving = page.evaluate(MOVING)
        durations = page.eval_on_selector(f"{cell} .course-cell__button--run", TRANSITION_DURATION)
        page.locator(f"{cell} .course-cell__button--stop").click()
        expect(page.locator(cell)).to_have_attribute("data-state", "stopped", timeout=LOAD_TIMEOUT_MS)
    if motion == "reduce":
        assert moving == [], f"animations still run with prefers-reduced-motion: reduce: {moving}"
        assert set(durations.split(", ")) == {"0s"}
    else:
        assert {"course-progress-slide", "course-pulse"} <= set(moving), moving
        assert durations != "0s"
