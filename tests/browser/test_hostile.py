"""Hostile input in the page: output stays data, the main thread stays free, Reset mid-run.

The machine is shared, so the checks are about what happens, not how fast.
"""

from __future__ import annotations

import pytest
from page_fixture import LOAD_TIMEOUT_MS, Gate, get_code, guarded_page, make_fixture_site, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LIMIT_NOTICE = "Output limit reached (2,000 lines or 200 kB per run); the rest is dropped."  # as English writes numbers

# Lets a page timer tick ten times, then returns the cell's state: "running" means the page's
# thread kept handling events while Python ran (a page thread held by Python would fire no timer).
TICKS_THEN_STATE = """(cell) => new Promise((done) => {
    let ticks = 0;
    const timer = setInterval(() => {
        ticks += 1;
        if (ticks === 10) {
            clearInterval(timer);
            done(document.querySelector(cell).dataset.state);
        }
    }, 10);
})"""


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


@pytest.mark.parametrize(
    "endless",
    ["while True:\n    pass", "i = 0\nwhile True:\n    print(i)\n    i += 1"],
    ids=["loop", "flood"],
)
def test_main_thread_stays_free_while_python_loops_or_floods_the_output(page, endless):
    run(page, "#cell-5", endless, wait=False)
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
    assert page.evaluate(TICKS_THEN_STATE, "#cell-5") == "running"
    page.locator("#cell-5 .course-cell__button--stop").click()
    expect(page.locator("#cell-5")).to_have_attribute("data-state", "stopped", timeout=30_000)
    if "print" in endless:  # the flood ran into the output limit: said once, and the run still ends "stopped"
        expect(page.locator("#cell-5 .course-cell__notice--info")).to_have_text([LIMIT_NOTICE])
        expect(page.locator("#cell-5")).to_have_attribute("data-status", "stopped")


def test_reset_during_a_run_leaves_a_consistent_cell(page):
    gate = Gate(page, "reset")  # the run lasts until the test opens the gate
    gate.run("#cell-7", "print('the edited run went on')")
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "running")
    page.locator("#cell-7 .course-cell__button--reset").click()
    assert get_code(page, "#cell-7") == page.locator("#cell-7").get_attribute("data-code")
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "running")
    gate.open()
    expect(page.locator("#cell-7")).to_have_attribute("data-state", "done")
    # The run that was going on finished with the code it started with, and Run works again.
    expect(page.locator("#cell-7 .course-out--stdout")).to_have_text("the edited run went on\n")
    run(page, "#cell-7")
    expect(page.locator("#cell-7")).to_have_attribute("data-status", "ok")
    expect(page.locator("#cell-7 .course-out--stdout")).to_have_text("autorun ok\n")
