"""Stop with cross-origin isolation (COOP/COEP): KeyboardInterrupt, the namespace survives.

Also cancelling a queued run.  The fixture page is served with the isolation
headers, so ``crossOriginIsolated`` is true and the worker gets an interrupt buffer.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import ISOLATION_HEADERS, LOAD_TIMEOUT_MS, Gate, get_code, guarded_page, make_fixture_site, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(browser, built_site, serve, tmp_path_factory):
    folder = make_fixture_site(built_site, tmp_path_factory.mktemp("isolated") / "site")
    with guarded_page(browser, serve(folder, ISOLATION_HEADERS) + "fixture/") as (page, _problems):
        yield page


def test_page_is_cross_origin_isolated(page):
    assert page.evaluate("crossOriginIsolated") is True


def test_stop_raises_keyboard_interrupt_and_keeps_the_namespace(page):
    run(page, "#cell-5", "kept = 'still here'")
    code = "# edited\nn = 0\nwhile True:\n    n += 1"
    run(page, "#cell-6", code, wait=False)
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    page.locator("#cell-6 .course-cell__button--stop").click()
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "stopped", timeout=30_000)
    error = page.locator("#cell-6 .course-out--error")
    expect(error).to_contain_text(re.compile(r'File "<cell 6>", line [34], in <module>'))
    expect(error).to_contain_text("KeyboardInterrupt")
    expect(page.locator("#cell-6 .course-cell__notice--stopped")).to_have_count(0)
    assert get_code(page, "#cell-6") == code
    output = run(page, "#cell-5", "kept, n > 0")
    expect(output.locator(".course-out--result")).to_have_text("('still here', True)")


def test_stop_cancels_a_queued_run(page):
    gate = Gate(page, "queued")  # cell 5 runs until the test opens the gate
    gate.run("#cell-5", "'slow done'")
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "running")
    run(page, "#cell-6", "'must not run'", wait=False)
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "queued")
    page.locator("#cell-6 .course-cell__button--stop").click()
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "stopped")
    gate.open()
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "done")
    expect(page.locator("#cell-5 .course-out--result")).to_have_text("'slow done'")
    expect(page.locator("#cell-6 .course-out--result")).to_have_count(0)
