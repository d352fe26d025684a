"""A cell that needs an earlier one says so, and runs the cells above on request; setup code is shown.

Lesson 32 on a first visit (no service worker yet: not cross-origin isolated), so Stop restarts Python.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, expect_status_shown, guarded_page, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ABOVE = "Run the cells above"


@pytest.fixture
def lesson(browser, site_server):
    with guarded_page(browser, site_server + LESSON, permissions=["clipboard-read", "clipboard-write"]) as (page, _):
        expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
        yield page


def test_a_name_error_names_the_cell_above_that_defines_it_and_runs_the_cells_above(lesson):
    page = lesson
    run(page, "#cell-2")  # cell 1 imports posenc
    expect(page.locator("#cell-2 .course-out--error")).to_contain_text("NameError: name 'posenc' is not defined")
    hint = page.locator("#cell-2 .course-cell__notice", has_text="is defined in cell 1 above")
    expect(hint).to_have_text(re.compile(r"^posenc is defined in cell 1 above: run it first\."))
    hint.get_by_role("button", name=ABOVE, exact=True).click()
    expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(page.locator("#cell-2")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)  # then this cell
    expect(page.locator("#cell-2 .course-out--error")).to_have_count(0)


def test_a_name_no_cell_above_defines_gets_no_hint(lesson):
    run(lesson, "#cell-2", "print(nowhere_defined)")
    expect(lesson.locator("#cell-2 .course-out--error")).to_contain_text("NameError")
    expect(lesson.get_by_role("button", name=ABOVE)).to_have_count(0)


def test_after_python_restarts_to_stop_a_cell_the_cells_above_run_again_on_request(lesson):
    page = lesson
    assert page.evaluate("crossOriginIsolated") is False
    run(page, "#cell-1")
    run(page, "#cell-2", "while True:\n    pass", wait=False)
    expect(page.locator("#cell-2")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    page.locator("#cell-2 .course-cell__button--stop").click()
    notice = page.locator("#cell-2 .course-cell__notice--stopped")
    expect(notice).to_contain_text("the namespace was reset")
    run(page, "#cell-4", "print(d_model)")  # cell 1's name is gone with the old Python
    expect(page.locator("#cell-4 .course-out--error")).to_contain_text("NameError: name 'd_model' is not defined")
    notice.get_by_role("button", name=ABOVE, exact=True).click()
    expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(page.locator("#cell-1 .course-cell__count")).to_contain_text("[2]")  # run again, after cell 4's [1]
    expect(page.locator("#cell-2")).to_have_attribute("data-status", "stopped")  # not run: it stops at cell 1
    output = run(page, "#cell-4", "print(d_model)")
    expect(output.locator(".course-out--stdout")).to_have_text("8\n")


def test_setup_code_is_shown_on_request_and_copied_with_the_code(lesson):
    page = lesson
    setup = page.locator("#cell-1 .course-cell__setup")
    summary = setup.locator("summary")
    expect(summary).to_have_text(re.compile(r"^setup: \d+ lines?$"))
    expect(setup.locator("code")).to_be_hidden()
    summary.click()
    expect(setup).to_contain_text("import numpy as np")
    expect_status_shown(page, "#cell-1", "Code copied", page.locator("#cell-1 .course-cell__button--copy").click)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("import numpy as np\n") and "import posenc" in copied
