"""axe-core on every built page with cells, light and dark, on a desktop and a phone, before and after
its cells run; and each cell's output in Chromium, which must equal the build's.

Each page is audited once Python is ready (before any cell runs), then after every
cell ran in page order, as a learner would (each lesson cell's output compared with the
one the plugin computed at build time; one cell then edited to write to stderr and raise,
for error output), every
quiz was answered wrongly, and an editor has focus; then the quizzes answered
rightly and, where the page has exercises, their hints, solution and checked runs.
Every audit is made in both schemes at 1280 px, and again in the dark at a phone's 390 px:
the page opens in the light one, and Material's palette toggle (the header's "Switch to
dark mode", as a learner switches) turns it dark and back, so the cells run once per page
(Firefox and WebKit run them in test_engines.py). Any violation of impact serious or
critical fails, listed with its rule, impact, elements and axe's summary. No rule is
disabled.
"""

from __future__ import annotations

import re

import pytest
from axe_fixture import audit, axe_source, pages_with_cells, report
from page_fixture import (
    FINAL_STATE,
    LESSONS,
    LOAD_TIMEOUT_MS,
    aim,
    click_when_still,
    guarded_page,
    run,
    run_like_at_build_time,
    wait_for_editor,
    wait_until_python_is_ready,
)
from playwright.sync_api import expect
from steps import SETTLED

pytestmark = pytest.mark.browser

SCHEMES = {"light": ("default", "light"), "dark": ("slate", "dark")}  # context scheme: (Material's, CSS color-scheme)
VIEWPORT = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
RAISING_CODE = 'import sys\nprint("a warning on stderr", file=sys.stderr)\nraise ValueError("an error on purpose")\n'
EXERCISE = ".course-exercise"


TOGGLE = {"dark": "Switch to dark mode", "light": "Switch to light mode"}  # Material's palette (mkdocs.yml)


def check_scheme(page, scheme: str) -> None:
    """Material's palette is ``scheme``'s, and its stylesheet for that scheme applies."""
    material_scheme, css_scheme = SCHEMES[scheme]
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", material_scheme)
    expect(page.locator("body")).not_to_have_attribute("data-md-color-switching", "")
    assert page.evaluate("() => getComputedStyle(document.body).colorScheme") == css_scheme


def switch_scheme(page, scheme: str) -> None:
    """Turn the page to ``scheme`` with Material's palette toggle in the header, as a learner does."""
    page.locator(f'label[title="{TOGGLE[scheme]}"]').click()
    check_scheme(page, scheme)


def audit_both_schemes(page, where: str, include: list[str] | None = None) -> list[str]:
    """One audit in the light scheme and one in the dark, and one in the dark at 390 px; the page is left
    light at 1280 px, as it was, with an editor focused again if one was (the toggle takes the focus)."""
    focused = page.locator(".course-cell .cm-editor.cm-focused").count() > 0
    found = [report(f"{where} (light)", audit(page, include))]
    for scheme in ("dark", "light"):
        switch_scheme(page, scheme)
        if focused:
            focus_an_editor(page)
        if scheme == "dark":
            found.append(report(f"{where} (dark)", audit(page, include)))
            page.set_viewport_size(PHONE)
            # The page's ResizeObservers run in the next frame (scroll_regions.js then gives a box that now
            # scrolls its tab stop), before a learner could press a key; the driver's resize returns before it.
            page.evaluate(SETTLED)
            found.append(report(f"{where} (dark, 390 px)", audit(page, include)))
            page.set_viewport_size(VIEWPORT)
    return found


def run_every_cell(page) -> None:
    """Run the cells in page order: a lesson's cell ends done with the build's output, an exercise's
    starter may end in error (test_exercise_live.py checks exercises)."""
    cells = page.locator(".course-cell")
    for i in range(cells.count()):
        selector = f"#{cells.nth(i).get_attribute('id')}"
        wait_for_editor(page, selector)  # its editor replaces the static code: click Run once that is done
        if page.locator(selector).evaluate(f"(cell) => cell.matches('{EXERCISE}')"):
            run(page, selector)
            expect(page.locator(selector)).to_have_attribute("data-state", FINAL_STATE, timeout=LOAD_TIMEOUT_MS)
        else:
            try:
                run_like_at_build_time(page, selector)
            except AssertionError as error:
                raise AssertionError(f"{page.url}: {error}") from None


def show_error_output(page) -> None:
    """The first cell, edited to write to stderr and raise: its output shows both."""
    first = f"#{page.locator('.course-cell').first.get_attribute('id')}"
    run(page, first, RAISING_CODE)
    expect(page.locator(first)).to_have_attribute("data-state", "error")
    expect(page.locator(f"{first} .course-out--stderr")).to_have_count(1)
    expect(page.locator(f"{first} .course-out--error")).to_have_count(1)


def answer_quizzes(page, correct: bool) -> None:
    """Choose, in every quiz, the first option that is right (or wrong), and wait for its feedback."""
    for form in page.locator("form.course-quiz").all():
        wanted = "true" if correct else "false"
        option = form.locator(f"li[data-option][data-correct='{wanted}']").first.get_attribute("data-option")
        radio = form.locator(f"input[type=radio][value='{option}']")
        aim(radio)  # as click_when_still: a press where the radio was makes no click
        radio.check()
        expect(form).to_have_attribute("data-answered", "correct" if correct else "incorrect")


def work_through_exercises(page) -> None:
    """Every hint, the solution put in the editor, and a checked run of it, in each exercise."""
    for exercise in page.locator(EXERCISE).all():
        hint = exercise.get_by_role("button", name=re.compile(r"^(Hint|Next hint)"))
        while hint.count() and hint.get_attribute("aria-disabled") != "true":
            hint.click()
        cell = f"#{exercise.get_attribute('id')}"  # the exercise is its cell
        run(page, cell)  # the starter's check: Show solution appears after it (the site's rule, after-check)
        click_when_still(exercise.get_by_role("button", name="Show solution"))
        click_when_still(exercise.get_by_role("button", name="Put the solution in the editor"))
        solution = exercise.get_attribute("data-solution").strip().splitlines()[0]
        expect(page.locator(f"{cell} .cm-content")).to_contain_text(solution)
        run(page, cell)
        expect(exercise.locator(".course-exercise__check")).to_have_attribute("data-check", "pass")


def focus_an_editor(page) -> None:
    """Focus the first editor, so its active line is highlighted as a learner typing sees it."""
    page.locator(".course-cell .cm-content").first.click()
    expect(page.locator(".course-cell .cm-editor.cm-focused")).to_have_count(1)


def audit_page(browser, url: str) -> list[str]:
    """Reports of every audit of one page, in both schemes, that found a serious or critical violation."""
    found = []
    with guarded_page(browser, url, color_scheme="light", viewport=VIEWPORT) as (page, _):
        check_scheme(page, "light")  # Material's palette followed prefers-color-scheme
        wait_until_python_is_ready(page)
        found += audit_both_schemes(page, f"{url}, before its cells ran")
        run_every_cell(page)
        show_error_output(page)
        answer_quizzes(page, correct=False)
        focus_an_editor(page)
        found += audit_both_schemes(page, f"{url}, after its cells ran, quizzes answered wrongly")
        answer_quizzes(page, correct=True)
        found += audit_both_schemes(page, f"{url}, quizzes answered rightly", ["form.course-quiz"])
        if page.locator(EXERCISE).count():
            work_through_exercises(page)
            found += audit_both_schemes(page, f"{url}, exercises: hints, solution, checked", [EXERCISE])
    return [text for text in found if text]


def test_every_page_with_cells_is_found(built_site):
    found = pages_with_cells(built_site)
    assert set(LESSONS) <= set(found), found


def test_a_page_opens_in_the_dark_scheme_where_the_learner_prefers_it(browser, site_server):
    """Material's palette follows prefers-color-scheme at load (the audits turn the scheme with its toggle)."""
    url = site_server + LESSONS[0]
    with guarded_page(browser, url, color_scheme="dark", viewport=VIEWPORT, python=False) as (page, _):
        check_scheme(page, "dark")


def test_axe_finds_nothing_serious_and_cells_run_as_at_build_time_on_pages_with_cells(browser, built_site, site_server):
    axe_source()  # fails at once, naming `make test-tools`, if axe-core is missing
    problems = []
    for page_url in pages_with_cells(built_site):
        problems += audit_page(browser, site_server + page_url)
    assert not problems, "axe-core found serious or critical violations:\n" + "\n".join(problems)
