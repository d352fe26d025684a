"""A cell's setup code is shown on request and copied with its code (Chromium: the clipboard's permissions).

test_engines.py runs the rest of what a cell above means in every engine: a NameError that names the cell
above, Run the cells above, the notice after Stop restarts Python, and the setup shown on request.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, expect_status_shown, guarded_page
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.fixture
def lesson(browser, site_server):
    with guarded_page(browser, site_server + LESSON, permissions=["clipboard-read", "clipboard-write"]) as (page, _):
        expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
        yield page


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
