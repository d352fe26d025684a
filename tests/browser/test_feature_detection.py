"""Feature detection, never the user agent: a browser without a feature the runner can use still runs the lesson.

Each feature is taken away in Chromium, as a browser without it would behave:

- module service workers: ``register(url, {type: "module"})`` loses its ``type`` (an older
  browser ignores the option and runs the script as a classic one, which fails on its
  ``import``): no offline copy, and the lesson runs as online;
- SharedArrayBuffer: deleted from the page of a cross-origin isolated site, so Stop cannot
  interrupt Python in place and ends the worker instead;
- JSON module imports: ``contract.json`` is answered as ``text/plain``, which an
  ``import … with { type: "json" }`` refuses as a browser without JSON modules refuses the syntax.

The origin private file system and its synchronous access handles are taken away in the
Python's workers, where the snapshot uses them: test_snapshot.py.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, guarded_page, run, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CLASSIC_SERVICE_WORKERS_ONLY = """
const register = ServiceWorkerContainer.prototype.register;
ServiceWorkerContainer.prototype.register = function (url, options = {}) {
    const { type, ...classic } = options;
    return register.call(this, url, classic);
};
"""
NO_SHARED_ARRAY_BUFFER = "delete globalThis.SharedArrayBuffer;"
NOT_REGISTERED = "course: service worker not registered"


def test_without_module_service_workers_the_lesson_runs_online(browser, site_server):
    with guarded_page(browser, site_server + LESSON, init_script=CLASSIC_SERVICE_WORKERS_ONLY) as (page, problems):
        with page.expect_console_message(
            lambda message: message.text.startswith(NOT_REGISTERED), timeout=LOAD_TIMEOUT_MS
        ):
            wait_ready(page)
        run(page, "#cell-1")
        expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok")
        assert page.evaluate("async () => (await navigator.serviceWorker.getRegistrations()).length") == 0
        page.reload()
        wait_ready(page)
        run(page, "#cell-1")
        expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok")
        assert not problems


def test_without_shared_array_buffer_stop_ends_the_loop_and_the_next_run_works(browser, isolated_site_server):
    url = isolated_site_server + LESSON
    with guarded_page(browser, url, init_script=NO_SHARED_ARRAY_BUFFER) as (page, problems):
        assert page.evaluate("() => [crossOriginIsolated, typeof SharedArrayBuffer]") == [True, "undefined"]
        wait_ready(page)
        run(page, "#cell-1", "while True:\n    pass", wait=False)
        expect(page.locator("#cell-1")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
        page.locator("#cell-1 .course-cell__button--stop").click()
        expect(page.locator("#cell-1")).to_have_attribute("data-status", "stopped", timeout=LOAD_TIMEOUT_MS)
        run(page, "#cell-1", "print(6 * 7)")
        expect(page.locator("#cell-1 .course-out")).to_have_text("42")
        assert not problems


def as_plain_text(route) -> None:
    response = route.fetch()
    route.fulfill(response=response, headers={**response.headers, "content-type": "text/plain"})


def test_without_json_modules_the_cells_and_quizzes_work(browser, site_server):
    routes = [("**/contract.json", as_plain_text)]
    with guarded_page(browser, site_server + LESSON, routes=routes) as (page, problems):
        wait_ready(page)
        run(page, "#cell-1")
        expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok")
        expect(page.locator("#quiz-1")).to_have_attribute("data-course-quiz", "ready")
        page.locator("#quiz-1 label").first.click()
        expect(page.locator("#quiz-1 .course-quiz__feedback")).to_have_attribute(
            "data-result", re.compile("^(in)?correct$")
        )
        assert not problems
