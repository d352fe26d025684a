"""Hostile input in the page: output stays data, the main thread stays free, Reset mid-run.

Durations are printed (run with ``-s`` to see them) rather than asserted: the
machine is shared, so the checks are about what happens, not how fast.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixture"))
from playwright.sync_api import expect
from runner_fixture import LOAD_TIMEOUT_MS, get_code, guarded_page, make_fixture_site, run

pytestmark = pytest.mark.browser

# Counts main-thread timer ticks for a while and reports the longest gap between two.
MAIN_THREAD_PROBE = """async (ms) => {
    const gaps = [];
    let last = performance.now();
    const timer = setInterval(() => { const now = performance.now(); gaps.push(now - last); last = now; }, 10);
    await new Promise((done) => setTimeout(done, ms));
    clearInterval(timer);
    return { ticks: gaps.length, longest: Math.max(...gaps) };
}"""


@pytest.fixture(scope="module")
def page(browser, built_site, serve, tmp_path_factory):
    folder = make_fixture_site(built_site, tmp_path_factory.mktemp("hostile") / "site")
    with guarded_page(browser, serve(folder) + "fixture/") as (page, problems):
        yield page
        assert not problems


def test_printed_html_and_script_stay_text(page):
    hostile = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script><b>bold?</b>'
    output = run(page, "#cell-5", f"print({hostile!r})\n{hostile!r}")
    expect(output.locator(".course-out--stdout")).to_have_text(hostile)
    expect(output.locator(".course-out--result")).to_contain_text("<script>")
    assert output.locator("img, script, b").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_main_thread_stays_free_during_an_endless_loop_and_a_flood(page):
    run(page, "#cell-5", "while True:\n    pass", wait=False)
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    loop = page.evaluate(MAIN_THREAD_PROBE, 1500)
    started = time.monotonic()
    page.locator("#cell-5 .course-cell__button--stop").click()
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "stopped", timeout=30_000)
    stop_s = time.monotonic() - started

    run(page, "#cell-6", "for i in range(10**6):\n    print(i)", wait=False)
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    flood = page.evaluate(MAIN_THREAD_PROBE, 1500)
    expect(page.locator("#cell-6")).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
    print(f"\nStop took {stop_s:.2f} s; main thread while Python loops: {loop}; while it floods: {flood}")
    # Timers kept firing: the page answered all along (the longest gap is reported above).
    assert loop["ticks"] > 20 and flood["ticks"] > 20


def test_reset_during_a_run_leaves_a_consistent_cell(page):
    lesson_code = get_code(page, "#cell-7")
    run(page, "#cell-7", "import time\nfor i in range(30):\n    print(i)\n    time.sleep(0.1)", wait=False)
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    page.locator("#cell-7 .course-cell__button--reset").click()
    assert get_code(page, "#cell-7") == lesson_code
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
    # The run that was going on finished with the code it started with, and Run works again.
    expect(page.locator("#cell-7 .course-out--stdout")).to_contain_text("29")
    run(page, "#cell-7")
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "done")
