"""Stop keeps the learner's work: the service worker makes the pages it controls cross-origin isolated.

The site is served as GitHub Pages serves it, with no COOP/COEP headers. The first visit
registers the service worker; from the next page load on, it adds the headers to the pages
and worker scripts it serves, so Stop interrupts Python (KeyboardInterrupt) and the namespace
and the worker survive. Every page still loads whole under isolation.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import LESSON, LESSONS, LOAD_TIMEOUT_MS, expect_service_worker, guarded_page, run, wait_ready
from playwright.sync_api import expect
from steps import STOPPABLE

pytestmark = pytest.mark.browser


BROKEN_IMAGES = "[...document.images].filter((img) => img.complete && !img.naturalWidth).map((img) => img.src)"


@pytest.fixture(scope="module")
def isolated_lesson(browser, site_server):
    """Lesson 32 on its second load: the service worker, registered by the first, controls it."""
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        wait_ready(page)
        assert page.evaluate("crossOriginIsolated") is False  # a first visit: nothing adds the headers yet
        expect_service_worker(page, re.compile(r"/course-sw\.js\?.*isolate=1"))
        page.reload()
        wait_ready(page)
        yield page
        assert not problems


def test_a_page_the_service_worker_controls_is_cross_origin_isolated(isolated_lesson):
    assert isolated_lesson.evaluate("crossOriginIsolated") is True


@pytest.mark.parametrize("what", list(STOPPABLE))
def test_stop_interrupts_python_and_keeps_what_earlier_cells_defined(isolated_lesson, what):
    page = isolated_lesson
    run(page, "#cell-1", "kept = 'defined before'")
    run(page, "#cell-2", STOPPABLE[what], wait=False)
    expect(page.locator("#cell-2")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    page.locator("#cell-2 .course-cell__button--stop").click()
    expect(page.locator("#cell-2")).to_have_attribute("data-status", "stopped", timeout=30_000)
    expect(page.locator("#cell-2 .course-out--error")).to_contain_text("KeyboardInterrupt")
    expect(page.locator("#cell-2 .course-cell__notice--stopped")).to_have_count(0)  # no restart
    output = run(page, "#cell-1", "kept")
    expect(output.locator(".course-out--result")).to_have_text("'defined before'")


def test_every_page_loads_whole_under_isolation(browser, site_server, built_site):
    """Pages, styles, scripts, fonts, images, the search and the editor: nothing is blocked by COEP."""
    pages = ["", *LESSONS, "authors/", "maintainers/", "api/"]
    failed: list[str] = []
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        # A download cut short by leaving the page is ERR_ABORTED; COEP refuses with ERR_BLOCKED_BY_RESPONSE.
        page.on(
            "requestfailed",
            lambda request: (
                "ERR_ABORTED" not in (request.failure or "") and failed.append(f"{request.url}: {request.failure}")
            ),
        )
        page.on("console", lambda message: message.type == "error" and failed.append(f"console: {message.text}"))
        wait_ready(page)
        expect_service_worker(page, re.compile(r"/course-sw\.js\?.*isolate=1"))
        for path in pages:
            page.goto(site_server + path)
            page.wait_for_load_state("load")
            assert page.evaluate("crossOriginIsolated") is True, path
            broken = page.evaluate(BROKEN_IMAGES)
            assert not broken, (path, broken)
        page.goto(site_server + LESSON)
        page.locator("#cell-1").scroll_into_view_if_needed()
        page.locator("#cell-1 .cm-editor").wait_for()
        assert page.evaluate("document.fonts.check('1em \"STIX Two Math\"')") is True
        page.keyboard.press("/")  # Material's search, in its own worker
        page.keyboard.type("rotary")
        expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=LOAD_TIMEOUT_MS)
        assert not problems
    assert not failed, failed
