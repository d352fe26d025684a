"""The lesson pages of the built site: their own cells run in the browser under the site's CSP.

Runs every cell of each lesson in order, as a learner would, and compares the
live output with the output the plugin computed at build time.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixture"))
from playwright.sync_api import expect
from runner_fixture import LESSONS, LOAD_TIMEOUT_MS, guarded_page, run

pytestmark = pytest.mark.browser


def _outputs(page, cell: str) -> list[tuple[str, str]]:
    return page.evaluate(
        """(cell) => [...document.querySelectorAll(`${cell} .course-out`)].map((node) => [
            node.className.replace("course-out ", ""),
            node.tagName === "FIGURE" ? node.querySelector("img").alt : node.textContent.trim(),
        ])""",
        cell,
    )


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_cells_run_like_at_build_time(browser, site_server, lesson):
    with guarded_page(browser, site_server + lesson) as (page, problems):
        check_cells_run_like_at_build_time(page)
        assert not problems


def check_cells_run_like_at_build_time(page) -> None:
    """Run every cell of the lesson in ``page`` in order; each output must equal the build's."""
    expect(page.locator(".course-cell--live")).to_have_count(page.locator(".course-cell").count())
    cells = page.locator(".course-cell:not(.course-exercise)")  # exercises: test_exercise_live.py
    count = cells.count()
    assert count >= 2
    for i in range(count):
        cell = f"#{cells.nth(i).get_attribute('id')}"
        before = _outputs(page, cell)
        expect(page.locator(f"{cell} .course-cell__label")).to_have_count(1 if before else 0)
        run(page, cell)
        expect(page.locator(cell)).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
        after = _outputs(page, cell)
        assert [kind for kind, _ in after] == [kind for kind, _ in before], (cell, after)
        for (kind, old), (_, new) in zip(before, after, strict=True):
            if kind == "course-out--figure":
                assert new == old, f"{cell}: alt text"
                assert new and not new.startswith("Figure ")
            else:
                assert new == old, f"{cell}: {kind} differs from the build-time output"
        for image in page.locator(f"{cell} img").all():
            assert image.evaluate("(img) => img.complete && img.naturalWidth > 0")
