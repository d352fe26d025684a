"""How a page starts: editors near the viewport, nothing that moves under the reader; a Python that cannot start."""

from __future__ import annotations

import re

import pytest
from page_fixture import (
    LESSON,
    LOAD_TIMEOUT_MS,
    SETTINGS_FILE,
    expect_service_worker,
    get_code,
    guarded_page,
    make_fixture_site,
    run,
    wait_until_python_is_ready,
)
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


# Records each place the watched element takes in the viewport, from now on, at every frame.
WATCH_PLACE = """(selector) => {
  const element = document.querySelector(selector);
  window.__places = [];
  const look = () => {
    const box = element.getBoundingClientRect();
    const place = `${Math.round(box.left)},${Math.round(box.top)}`;
    if (window.__places.at(-1) !== place) window.__places.push(place);
    requestAnimationFrame(look);
  };
  look();
}"""


@pytest.mark.parametrize("width", [320, 1280])
def test_what_the_reader_sees_stays_put_while_python_boots(browser, site_server, width):
    """A reader who goes to cell 6 at once (a link to it, a quick scroll) finds its Run button where it was
    until the boot and the site's service worker are done: nothing above it changes size meanwhile, so a
    press on it is not lost to a button that moved between the press and the release."""
    with guarded_page(browser, site_server + LESSON, viewport={"width": width, "height": 800}) as (page, _):
        button = page.locator("#cell-6 .course-cell__button--run")
        button.scroll_into_view_if_needed()
        page.evaluate(WATCH_PLACE, "#cell-6 .course-cell__button--run")
        wait_until_python_is_ready(page)
        expect_service_worker(page, re.compile(r"/course-sw\.js\?"))  # registered once Python is quiet
        page.evaluate("() => new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)))")
        places = [tuple(map(int, place.split(","))) for place in page.evaluate("window.__places")]
        moves = [abs(a - b) for here in places for a, b in zip(here, places[0], strict=True)]
        assert max(moves) <= 2, f"cell 6's Run button moved in the viewport: {places}"  # a rounded pixel or two


def test_a_run_clicked_during_the_boot_shows_its_output(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, _):
        run(page, "#cell-1")  # at load, long before Python is ready
        expect(page.locator("#cell-1 .course-cell__status")).to_contain_text("Done in", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator('#cell-1 .course-cell__output[data-precomputed="false"] .course-out')).not_to_have_count(0)


def failure_notice(page, cell: str):
    run(page, cell)
    expect(page.locator(f"{cell} .course-cell__status")).to_have_text("Error")
    return page.locator(f"{cell} .course-cell__notice--error")


def test_no_worker_allowed(browser, serve, fixture_folder):
    with guarded_page(browser, serve(fixture_folder) + "fixture/", init_script=NO_PYTHON_WORKER) as (page, _):
        notice = failure_notice(page, "#cell-1")
        expect(notice).to_contain_text("Python could not be loaded: the Python worker could not start")
        expect(notice).to_contain_text("Workers are not allowed here")
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
