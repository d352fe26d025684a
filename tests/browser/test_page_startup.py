"""How a page starts: far blocks rendered after the boot, editors near the viewport; a Python that cannot start."""

from __future__ import annotations

import re

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, SETTINGS_FILE, get_code, guarded_page, make_fixture_site, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# As in a browser or page that forbids Web Workers (the theme's own search worker still starts).
NO_PYTHON_WORKER = """
const RealWorker = window.Worker;
window.Worker = function (url, options) {
  if (options && options.name === "course-python") {
    throw new DOMException("Workers are not allowed here", "SecurityError");
  }
  return new RealWorker(url, options);
};
"""
BOOTING = re.compile(r"\bcourse-booting\b")


@pytest.fixture(scope="module")
def fixture_folder(built_site, tmp_path_factory):
    return make_fixture_site(built_site, tmp_path_factory.mktemp("startup") / "site")


def test_far_cells_keep_their_static_code_until_reached(browser, serve, fixture_folder):
    url = serve(fixture_folder) + "fixture/"
    with guarded_page(browser, url, viewport={"width": 1000, "height": 300}) as (page, _):
        expect(page.locator("#cell-1 .cm-editor")).to_be_visible()
        assert page.eval_on_selector("#cell-7", "(c) => c.getBoundingClientRect().top") > 300 + 800
        # Far below: Run works on the lesson's code, no editor yet.
        expect(page.locator("#cell-7 .course-cell__static")).to_contain_text('print("autorun ok")')
        expect(page.locator("#cell-7 .cm-editor")).to_have_count(0)
        # Keyboard focus reaching the cell makes its editor.
        page.locator("#cell-7 .course-cell__button--run").focus()
        expect(page.locator("#cell-7 .cm-content")).to_contain_text('print("autorun ok")')
        expect(page.locator("#cell-7 .course-cell__static")).to_have_count(0)


def test_far_blocks_are_rendered_once_python_is_ready(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, _):
        quiz = page.locator(".course-quiz")
        content_visibility = "(element) => getComputedStyle(element).contentVisibility"
        # During the boot (seconds, with a cold cache) blocks far below are skipped until reached.
        expect(page.locator("html")).to_have_class(BOOTING)
        assert quiz.evaluate(content_visibility) == "auto"
        expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator("html")).not_to_have_class(BOOTING)
        assert quiz.evaluate(content_visibility) == "visible"


# Records, in order, when the page's blocks are all rendered and when cell 1 first shows live output.
ORDER_RECORDER = """
window.__order = [];
const note = (name, seen) => { if (seen && !window.__order.includes(name)) window.__order.push(name); };
new MutationObserver(() => {
  const booting = document.documentElement.classList.contains("course-booting");
  note("booting", booting);
  note("rendered", !booting && window.__order.includes("booting"));
  note("output", document.querySelector('#cell-1 .course-cell__output[data-precomputed="false"] .course-out'));
}).observe(document, { subtree: true, childList: true, attributes: true });
"""


def test_a_run_clicked_during_the_boot_comes_before_the_rest_of_the_page(browser, site_server):
    with guarded_page(browser, site_server + LESSON, init_script=ORDER_RECORDER) as (page, _):
        run(page, "#cell-1")  # at load, long before Python is ready
        expect(page.locator("#cell-1 .course-cell__status")).to_contain_text("Done in", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator("html")).not_to_have_class(BOOTING)
        assert page.evaluate("window.__order") == ["booting", "output", "rendered"]


def failure_notice(page, cell: str):
    run(page, cell)
    expect(page.locator(f"{cell} .course-cell__status")).to_have_text("Error")
    return page.locator(f"{cell} .course-cell__notice--error")


def test_no_worker_allowed(browser, serve, fixture_folder):
    with guarded_page(browser, serve(fixture_folder) + "fixture/", init_script=NO_PYTHON_WORKER) as (page, _):
        notice = failure_notice(page, "#cell-1")
        expect(notice).to_contain_text("Python could not be loaded: the Python worker could not start")
        expect(notice).to_contain_text("Workers are not allowed here")
        expect(page.locator("html")).not_to_have_class(BOOTING)  # nothing left unrendered
        assert "greeting" in get_code(page, "#cell-1")


def test_missing_settings_file(browser, serve, fixture_folder):
    # The fixture's assets/course is a copy, so this changes only this site.
    settings = fixture_folder / SETTINGS_FILE
    saved = settings.read_text()
    settings.unlink()
    try:
        with guarded_page(browser, serve(fixture_folder) + "fixture/") as (page, _):
            notice = failure_notice(page, "#cell-2")
            expect(notice).to_contain_text(f"could not load /{SETTINGS_FILE}: HTTP 404")
    finally:
        settings.write_text(saved)
