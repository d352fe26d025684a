"""The worker's failure paths: a failed boot, a failed or held wheel, a Stop Python never hears, old caches.

Each test opens its own page on a fixture site (runner.html next to the built site), so
a failure in one leaves nothing behind for another.  A failing download is a Playwright
route on the page's context that handles the first matching request (the page's or its
workers') once; later requests reach the server (for the failed boot, six routes answer
404 until the test brings the wheel back: the worker's early download of a preloaded wheel
and Pyodide's own request for it both ask).

Where the runner's other tests cover a path, they are named here rather than repeated:
Stop by restarting Python without isolation (test_cells_in_the_page.py
test_stop_restarts_python_and_keeps_the_edited_code), a Python that cannot start at all
(test_page_startup.py), the output caps (test_cells_in_the_page.py test_output_flood_is_capped).
"""

from __future__ import annotations

import json
import re

import pytest
from page_fixture import (
    ISOLATION_HEADERS,
    LESSON,
    LOAD_TIMEOUT_MS,
    PYODIDE_VERSION,
    SETTINGS_FILE,
    expect_new_service_worker,
    expect_service_worker,
    guarded_page,
    make_fixture_site,
    run,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

POSENC_WHEEL = "**/posenc-*.whl"  # preloaded: Python's boot needs it
MATPLOTLIB_WHEEL = "**/matplotlib-*.whl"  # loaded by the first cell that imports matplotlib
RESET_NOTICE = "Python was restarted to stop this cell, so the namespace was reset"


@pytest.fixture(scope="module")
def fixture_folder(built_site, tmp_path_factory):
    return make_fixture_site(built_site, tmp_path_factory.mktemp("failures") / "site")


def expect_ended(page, cell: str, data_status: str) -> None:
    """The run of ``cell`` has ended with ``data_status`` and the cell no longer says it is busy."""
    expect(page.locator(cell)).to_have_attribute("data-status", data_status, timeout=LOAD_TIMEOUT_MS)
    expect(page.locator(cell)).not_to_have_attribute("aria-busy", re.compile(".*"))


def test_a_run_after_a_failed_boot_starts_a_fresh_python(browser, serve, fixture_folder):
    # posenc's wheel is gone until the test brings it back: the worker's early download and
    # Pyodide's own request for it both fail (each route answers one request).
    gone = [True]

    def not_found(route) -> None:
        if gone[0]:
            route.fulfill(status=404, body="gone")
        else:
            route.continue_()

    routes = [(POSENC_WHEEL, not_found)] * 6
    with guarded_page(browser, serve(fixture_folder) + "fixture/", routes=routes) as (page, _):
        # The autorun cell was waiting for Python: it says why Python is not there, and what to do.
        expect_ended(page, "#cell-7", "error")
        notice = page.locator("#cell-7 .course-cell__notice--error")
        expect(notice).to_contain_text("Python could not be loaded: the package posenc could not be loaded")
        expect(notice).to_contain_text("press Run to try again")
        expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python could not be loaded")
        # Run again: a fresh worker boots, and this time the wheel arrives.
        gone[0] = False
        output = run(page, "#cell-7")
        expect_ended(page, "#cell-7", "ok")
        expect(output.locator(".course-out--stdout")).to_have_text("autorun ok\n")
        output = run(page, "#cell-5", "import posenc\nposenc.__name__")
        expect(output.locator(".course-out--result")).to_have_text("'posenc'")


def test_stop_while_a_package_loads_restarts_python(browser, serve, fixture_folder):
    held = []  # the matplotlib wheel's request, never answered: the package load cannot end
    with guarded_page(
        browser, serve(fixture_folder) + "fixture/", routes=[(MATPLOTLIB_WHEEL, lambda route: held.append(route))]
    ) as (
        page,
        _,
    ):
        code = "import matplotlib\nmatplotlib.__name__"
        run(page, "#cell-5", code, wait=False)
        expect(page.locator("#cell-5")).to_have_attribute("data-state", "loading-packages", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator("#cell-5 .course-cell__status")).to_contain_text("Loading matplotlib")
        page.locator("#cell-5 .course-cell__button--stop").click()
        expect_ended(page, "#cell-5", "stopped")
        expect(page.locator("#cell-5 .course-cell__status")).to_have_text("Stopped")
        expect(page.locator("#cell-5 .course-cell__notice--stopped")).to_contain_text(RESET_NOTICE)
        # A fresh Python loads the wheel (the held request belonged to the worker that was ended).
        output = run(page, "#cell-5", code)
        expect_ended(page, "#cell-5", "ok")
        expect(output.locator(".course-out--result")).to_have_text("'matplotlib'")


def test_stop_that_python_never_hears_restarts_it_and_says_so(browser, serve, fixture_folder):
    # Cross-origin isolated: Stop asks for KeyboardInterrupt first.  sum() over an endless
    # iterator stays in one C loop that never checks for it, so the grace period runs out.
    with guarded_page(browser, serve(fixture_folder, ISOLATION_HEADERS) + "fixture/") as (page, _):
        assert page.evaluate("crossOriginIsolated") is True
        run(page, "#cell-5", "kept = 1")
        run(page, "#cell-6", "import itertools\nsum(itertools.count())", wait=False)
        expect(page.locator("#cell-6")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
        page.locator("#cell-6 .course-cell__button--stop").click()
        expect_ended(page, "#cell-6", "stopped")
        expect(page.locator("#cell-6 .course-cell__notice--stopped")).to_contain_text(RESET_NOTICE)
        expect(page.locator("#cell-6 .course-out--error")).to_have_count(0)  # no KeyboardInterrupt arrived
        output = run(page, "#cell-5", "'kept' in globals(), 6 * 7")
        expect_ended(page, "#cell-5", "ok")
        expect(output.locator(".course-out--result")).to_have_text("(False, 42)")


@pytest.mark.parametrize(
    "failure",
    [lambda route: route.abort(), lambda route: route.fulfill(status=404, body="gone")],
    ids=["network-error", "http-404"],
)
def test_a_failed_package_download_names_the_package(browser, serve, fixture_folder, failure):
    with guarded_page(browser, serve(fixture_folder) + "fixture/", routes=[(MATPLOTLIB_WHEEL, failure)]) as (page, _):
        code = "import matplotlib\nmatplotlib.__name__"
        output = run(page, "#cell-5", code)
        expect_ended(page, "#cell-5", "error")
        expect(output.locator(".course-out--error")).to_have_text(
            "Could not load the packages this cell imports: could not download matplotlib\n"
            "Check your connection and run the cell again.\n"
        )
        # The worker is kept: the next Run downloads the wheel again, and the namespace is intact.
        run(page, "#cell-6", "kept = 'still here'")
        output = run(page, "#cell-5", code + ", kept")
        expect_ended(page, "#cell-5", "ok")
        expect(output.locator(".course-out--result")).to_have_text("('matplotlib', 'still here')")


# Puts one entry into each named cache (creating it).
FILL_CACHES = """async (names) => {
    for (const name of names) await (await caches.open(name)).put("/test-entry", new Response(name));
}"""


def test_a_service_worker_update_deletes_old_caches_but_the_last_site_cache(browser, serve, fixture_folder):
    """The new version's caches, the Pyodide cache and other apps' stay; so does the newest older site
    cache (a page of that build may still be open); older ones go."""
    settings = fixture_folder / SETTINGS_FILE
    saved = settings.read_text()
    data = json.loads(saved)
    old, new = data["version"], data["version"] + "-next"
    offline_list = fixture_folder / "assets/course" / f"offline-{old}.json"
    pyodide_cache = f"course-pyodide-{PYODIDE_VERSION}"
    kept = [pyodide_cache, f"course-site-{new}", "another-apps-cache"]
    stale = ["course-site-0-older", "course-pyodide-0.26.0"]
    try:
        # The oldest site cache is made before the site's first visit: the page's own fetches (each kept in
        # its site cache by the service worker) can then never make this version's cache first.
        site = serve(fixture_folder)
        with guarded_page(browser, site + f"assets/course/offline-{old}.json") as (page, _):
            page.evaluate(FILL_CACHES, ["course-site-0-older"])
            page.goto(site + LESSON)
            # The page registers the service worker of its version once Python is idle.
            expect_service_worker(page, re.compile(rf"/course-sw\.js\?v={re.escape(old)}&"))
            # Its activation deleted the stale Pyodide cache (none was there yet): made now, with the others.
            page.evaluate(FILL_CACHES, [*stale[1:], *kept])
            made = page.evaluate("caches.keys()")
            assert made.index("course-site-0-older") < made.index(f"course-site-{old}"), made
            # The site is published again: the page now registers the new version's service worker.
            offline_list.with_name(f"offline-{new}.json").write_text(offline_list.read_text())
            settings.write_text(json.dumps({**data, "version": new}))
            page.reload()  # the page is the old build's: it reloads once by itself, then boots
            status = page.locator("#cell-1 .course-cell__status")
            expect(status).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
            expect_new_service_worker(page, re.compile(rf"/course-sw\.js\?v={re.escape(new)}&"))
            names = page.evaluate("caches.keys()")
            assert {*kept, f"course-site-{old}"} <= set(names), names
            assert not set(stale) & set(names), names
            assert page.evaluate(f"caches.open({pyodide_cache!r}).then((c) => c.keys()).then((k) => k.length)") > 1
    finally:
        settings.write_text(saved)
