"""Offline: the Python worker keeps the versioned Python files, and a lesson runs with the network cut."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixture"))
from playwright.sync_api import expect
from runner_fixture import LESSON, LOAD_TIMEOUT_MS, PYODIDE_VERSION, expect_service_worker, guarded_page, run

pytestmark = pytest.mark.browser

CACHED = """async () => {
    const found = {};
    for (const name of await caches.keys()) {
        found[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
    }
    return found;
}"""


def wait_until_cached(page, condition, timeout_s: float = LOAD_TIMEOUT_MS / 1000) -> None:
    """Read the page's caches (``CACHED``) until ``condition(kept)`` holds.

    The one poll of the browser suite: Cache Storage has no change event, and the Python
    worker stores its offline copies without telling the page.  It reads with
    ``page.evaluate`` (run by DevTools, outside the page's CSP), not with
    ``page.wait_for_function``, whose predicate is an ``eval`` the lesson's CSP forbids.
    """
    deadline = time.monotonic() + timeout_s
    while not condition(kept := page.evaluate(CACHED)):
        assert time.monotonic() < deadline, f"timed out waiting on the caches; they hold {kept!r}"
        time.sleep(0.2)


def wait_ready(page) -> None:
    expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)


def test_first_visit_fills_the_caches_then_the_lesson_runs_offline(browser, site_server, built_site):
    requests: list[str] = []
    with guarded_page(browser, site_server + LESSON, requests=requests) as (page, problems):
        wait_ready(page)
        expect_service_worker(page, re.compile(r"/course-sw\.js\?"))
        # What the first visit downloaded is kept, each file once, by the Python worker itself
        # (the scripts, which it runs with importScripts, right after Python is ready).
        index = f"/pyodide/v{PYODIDE_VERSION}/"
        settings = json.loads((built_site / "assets/course/worker-settings.json").read_text())
        derived = [settings[key]["url"].rsplit("/", 1)[1] for key in ("stdlib", "package_bytecode")]
        expected = {index + name for name in ("pyodide.asm.wasm", "pyodide.asm.js", *derived)}
        cache = f"course-pyodide-{PYODIDE_VERSION}"
        wait_until_cached(page, lambda kept: expected <= set(kept.get(cache, [])))
        pyodide = page.evaluate(CACHED)[cache]
        assert len(pyodide) == len(set(pyodide))
        assert any(path.endswith(".whl") and "numpy" in path for path in pyodide)
        assert not any("matplotlib" in path for path in pyodide)  # not imported yet, not fetched
        # What the worker fetches is kept from that download: the wasm, the stdlib and the
        # wheels are not fetched twice. (The scripts, run by importScripts, are read again
        # to be kept: from the HTTP cache in a browser, which the test's request guard turns off.)
        downloads = [urlsplit(url).path for url in requests if "/pyodide/v" in url and not url.endswith(".js")]
        assert len(downloads) == len(set(downloads)) >= 3, downloads

        page.reload()  # a second visit, now with the service worker
        wait_ready(page)
        # The editor's code loads once Python is ready, for cells not scrolled to yet.
        wait_until_cached(
            page, lambda kept: any(path.endswith("/codemirror.js") for paths in kept.values() for path in paths)
        )
        page.context.set_offline(True)
        page.reload()
        wait_ready(page)
        output = run(page, "#cell-1")
        expect(output.locator(".course-out--stdout")).to_contain_text("without positions:")
        expect(page.locator("#cell-1 .course-cell__status")).to_contain_text("Done in")
        page.context.set_offline(False)
        assert not problems
