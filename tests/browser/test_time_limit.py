"""The page's time limit (worker-settings.json ``time_limit_s``) stops a cell and says so."""

from __future__ import annotations

import pytest
from page_fixture import LOAD_TIMEOUT_MS, guarded_page, make_fixture_site, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser, built_site, serve, tmp_path_factory):
    folder = make_fixture_site(built_site, tmp_path_factory.mktemp("limits") / "site", time_limit_s=2)
    with guarded_page(browser, serve(folder) + "fixture/") as (page, _problems):
        yield page


def test_time_limit_stops_a_cell(page):
    run(page, "#cell-5", "while True:\n    pass")
    expect(page.locator("#cell-5 .course-cell__status")).to_have_text("Stopped")
    notice = page.locator("#cell-5 .course-cell__notice--stopped").first
    expect(notice).to_contain_text("time limit of 2 s")
    # Python works again for the next Run.
    output = run(page, "#cell-6", "6 * 7")
    expect(output.locator(".course-out--result")).to_have_text("42", timeout=LOAD_TIMEOUT_MS)
