"""Offline: the Python worker keeps the versioned Python files, and a lesson runs with the network cut."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from caches import CACHED, wait_until_cached
from page_fixture import (
    LESSON,
    PYODIDE_VERSION,
    expect_service_worker,
    guarded_page,
    run,
    wait_ready,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The versioned files (cache_policy.js): Pyodide's, the site's wheels, the trimmed lock.
VERSIONED = re.compile(
    r"/pyodide/v[^/]+/|/assets/course/wheels/[0-9a-f]+/|/assets/course/pyodide-lock-[0-9a-f]+\.json$"
)


def record_responses(page) -> list[tuple[str, bool]]:
    """From now on, each response of the page and its workers: (its URL's path, served by the service worker?)."""
    seen: list[tuple[str, bool]] = []
    page.on("response", lambda response: seen.append((urlsplit(response.url).path, response.from_service_worker)))
    return seen


def expect_versioned_files_from_the_network(responses: list[tuple[str, bool]]) -> None:
    """The service worker served the site's other files, and none of the versioned ones (Pyodide's wasm
    and scripts, the wheels, the lock): those come from the network and the HTTP cache, where V8 keeps
    its compiled code, or from the Python worker's offline copies."""
    versioned = [(path, by_worker) for path, by_worker in responses if VERSIONED.search(path)]
    assert any(path.endswith("/pyodide.asm.wasm") for path, _ in versioned), responses
    assert not [path for path, by_worker in versioned if by_worker], versioned
    assert any(by_worker for path, by_worker in responses if path.endswith(f"/{LESSON}")), responses


def test_first_visit_fills_the_caches_then_the_lesson_runs_offline(browser, site_server, built_site):
    requests: list[str] = []
    with guarded_page(browser, site_server + LESSON, requests=requests) as (page, problems):
        responses = record_responses(page)
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

        # Once it has taken over, the service worker serves what the page asks for next, never a versioned file.
        assert not [path for path, by_worker in responses if by_worker and VERSIONED.search(path)], responses

        del responses[:]
        page.reload()  # a second visit, now with the service worker
        wait_ready(page)
        expect_versioned_files_from_the_network(responses)
        # The editor's code loads once Python is ready, for cells not scrolled to yet.
        wait_until_cached(
            page, lambda kept: any(path.endswith("/codemirror.js") for paths in kept.values() for path in paths)
        )
        del responses[:]
        page.reload()  # a third visit: its requests go the same ways
        wait_ready(page)
        expect_versioned_files_from_the_network(responses)
        page.context.set_offline(True)
        page.reload()
        wait_ready(page)
        output = run(page, "#cell-1")
        expect(output.locator(".course-out--stdout")).to_contain_text("without positions:")
        expect(page.locator("#cell-1 .course-cell__status")).to_contain_text("Done in")
        page.context.set_offline(False)
        assert not problems
