"""The boot stdlib in the browser: a first Run downloads no more of the standard library than
the boot loads; any other module of it imports from the official zip (stdlib_finder.py),
online, offline after a first visit, and, when that zip cannot be had, with an error that
names the module and says to check the connection."""

from __future__ import annotations

import re

import pytest
from caches import wait_until_cached
from page_fixture import LESSON, PYODIDE_VERSION, guarded_page, run, wait_ready
from playwright.sync_api import expect
from steps import controlled_by_the_service_worker

pytestmark = pytest.mark.browser

OFFICIAL = re.compile(r"/python_stdlib\.zip$")
# Outside the boot stdlib (tests/site/test_build.py checks the boot set), a submodule of a package
# in it (json.tool) and of one that is not (unittest.mock).
IMPORTS = """\
import dataclasses, difflib, fractions, json, json.tool, statistics, unittest.mock
print(difflib.SequenceMatcher(None, "rotary", "rotate").ratio())
print(fractions.Fraction(3, 4) + fractions.Fraction(1, 4), statistics.median([3, 1, 2]))
print(unittest.mock.Mock(return_value=7)(), json.tool.__name__, dataclasses.is_dataclass(fractions))
print(difflib.__file__)
"""
PRINTED = "0.6666666666666666\n1 2\n7 json.tool False\n/lib/python_stdlib.zip/difflib.py"


def expect_imports(page) -> None:
    output = run(page, "#cell-1", IMPORTS)
    expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok")
    expect(output.locator(".course-out--stdout")).to_have_text(PRINTED)


def test_a_first_visit_imports_the_rest_of_the_stdlib_online_and_offline(browser, site_server):
    requests: list[str] = []
    with guarded_page(browser, site_server + LESSON, requests=requests) as (page, problems):
        wait_ready(page)
        output = run(page, "#cell-1")
        expect(output.locator(".course-out--stdout")).to_contain_text("without positions:")
        assert not [url for url in requests if OFFICIAL.search(url)], "the first output needs no official stdlib"
        expect_imports(page)
        assert len([url for url in requests if OFFICIAL.search(url)]) == 1  # fetched once, before the run
        kept = f"/pyodide/v{PYODIDE_VERSION}/python_stdlib.zip"
        wait_until_cached(page, lambda caches: kept in caches.get(f"course-pyodide-{PYODIDE_VERSION}", []))
        # The worker keeps the zip itself; the page comes back offline only once the service worker,
        # registered after the first run, has installed and controls it (on a loaded machine, later).
        controlled_by_the_service_worker(page)
        page.context.set_offline(True)
        page.reload()
        wait_ready(page)
        expect_imports(page)
        page.context.set_offline(False)
        assert not problems


def test_an_import_whose_stdlib_cannot_be_downloaded_names_the_module(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        page.context.route(OFFICIAL, lambda route: route.abort())  # the connection drops for it, every time
        wait_ready(page)
        output = run(page, "#cell-1", "import difflib")
        expect(page.locator("#cell-1")).to_have_attribute("data-status", "error")
        error = output.locator(".course-out--error")
        expect(error).to_contain_text("No module named 'difflib' here yet")
        expect(error).to_contain_text("Check your connection and run the cell again.")
        # A cell without it still runs, and the next try, with the connection back, imports it.
        expect(run(page, "#cell-1", "print(6 * 7)").locator(".course-out--stdout")).to_have_text("42")
        page.context.unroute(OFFICIAL)
        expect_imports(page)
        assert not problems


# Data Saver on, as Chromium reports it to the page (the setting itself has no switch in headless mode).
SAVE_DATA = "Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})});"


def test_with_data_saver_python_is_downloaded_at_the_first_run(browser, site_server):
    requests: list[str] = []
    with guarded_page(browser, site_server + LESSON, requests=requests, init_script=SAVE_DATA) as (page, problems):
        page.wait_for_load_state("networkidle")
        expect(page.locator("#cell-1 .course-cell__button--run")).to_be_visible()
        python = re.compile(r"/pyodide/|/worker-settings\.json|/js/worker/")
        assert not [url for url in requests if python.search(url)], "nothing of Python before a Run"
        output = run(page, "#cell-1")
        expect(output.locator(".course-out--stdout")).to_contain_text("without positions:")
        assert [url for url in requests if url.endswith("/pyodide.asm.wasm")]
        assert not problems
