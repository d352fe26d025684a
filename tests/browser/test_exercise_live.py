"""The lessons' exercises in Chromium, on real cells in real Pyodide, with the network cut.

Each lesson page of the built site is opened; once Python is ready the
context goes offline. The starter fails its check, the solution (put in the
editor by the "Put the solution in the editor" button) passes it, with the
verdict the build's CPython proof gives; hints reveal one at a time; solved
state survives a reload and counts on the home page; an endless loop in an
exercise stops like any cell's; without JavaScript everything is readable.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_fixture import LESSON, LESSONS, LOAD_TIMEOUT_MS, get_code, guarded_page, run, set_code, wait_for_editor
from playwright.sync_api import expect

from course_kernel import cell_exec, exercise_check
from course_kernel.strings import t
from course_site.exercises import Exercise, parse_exercises
from course_site.fences import scan

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SOLVED = "course-exercise-solved:"


def lesson_exercises(lesson: str) -> list[Exercise]:
    """The exercises of a lesson page (``lessons/32-positional-encoding/``), from its Markdown."""
    path = f"{lesson.rstrip('/')}.md"
    return parse_exercises(scan((ROOT / path).read_text(), path))


def cpython_verdict(exercise: Exercise, code: str) -> str:
    """The check's message for ``code`` in CPython, as the build's proof computes it, and as the page
    shows it: a `backquoted` name is a <code> element, whose text has no backquotes (exercise.js)."""
    result = exercise_check.run_exercise(
        exercise.setup, code, exercise.check, run_cell=cell_exec.run_cell, emit=lambda *_: None
    )
    return re.sub(r"`([^`]+)`", r"\1", result.message)


def region(page, number: int, exercise: Exercise):
    return page.get_by_role("region", name=f"Exercise {number}: {exercise.title}", exact=True)


def selector(page, number: int, exercise: Exercise) -> str:
    return "#" + region(page, number, exercise).get_attribute("id")


def ready_offline(page) -> None:
    """Wait until Python (with the preloaded numpy and posenc) and the editor are loaded, then cut the network."""
    expect(page.locator("#cell-1 .course-cell__status")).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
    wait_for_editor(page, "#cell-1")  # CodeMirror is loaded: every editor can be made offline
    page.context.set_offline(True)


def wait_for_code(page, cell: str, code: str) -> None:
    """Wait until the editor of ``cell`` holds ``code``, a change from the lesson's: its "edited" note shows then."""
    expect(page.locator(f"{cell} .course-cell__edited")).to_be_visible()
    assert get_code(page, cell) == code


def check_status(page, cell: str):
    return page.locator(f"{cell} [role=status][data-check]")


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_exercise_starter_fails_and_solution_passes_in_pyodide(browser, site_server, lesson):
    exercises = lesson_exercises(lesson)
    assert len(exercises) >= 3
    with guarded_page(browser, site_server + lesson) as (page, problems):
        ready_offline(page)
        expect(page.locator(".course-exercise[role=region]")).to_have_count(len(exercises))
        for number, exercise in enumerate(exercises, start=1):
            cell = selector(page, number, exercise)
            assert get_code(page, cell) == exercise.starter
            run(page, cell)
            expect(page.locator(cell)).to_have_attribute("data-status", "ok")
            expect(check_status(page, cell)).to_have_attribute("data-check", "fail")
            expect(check_status(page, cell)).to_have_text(cpython_verdict(exercise, exercise.starter))
            page.locator(cell).get_by_role("button", name="Show solution").click()
            expect(page.locator(cell).get_by_label("Solution", exact=True)).to_contain_text(
                exercise.solution.splitlines()[0]
            )
            page.locator(cell).get_by_role("button", name="Put the solution in the editor").click()
            wait_for_code(page, cell, exercise.solution)
            run(page, cell)
            expect(check_status(page, cell)).to_have_attribute("data-check", "pass")
            expect(check_status(page, cell)).to_have_text(t("exercise.passed"))
            expect(page.locator(cell)).to_have_attribute("data-solved", "true")
        assert not problems


def test_an_exercise_is_one_region_named_exercise_with_the_cell_contract(browser, site_server):
    exercises = lesson_exercises(LESSON)
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        for number, exercise in enumerate(exercises, start=1):
            root = region(page, number, exercise)
            expect(root).to_have_count(1)
            expect(root).to_have_class(re.compile(r"\bcourse-cell\b.*\bcourse-exercise\b"))
            # No other region inside it or around it.
            expect(root.locator("[role=region]")).to_have_count(0)
            assert root.evaluate("(node) => node.parentElement.closest('[role=region]')") is None
            expect(root.get_by_role("button", name="Run")).to_have_count(1)
            expect(root.get_by_role("button", name="Stop")).to_have_count(1)
            expect(root.get_by_role("button", name="Reset")).to_have_count(1)
            expect(root.locator("[role=log]")).to_have_count(1)  # hidden until there is output
            # Until the first check (the site's rule, after-check), the note says when the solution opens.
            expect(root.get_by_role("button", name="Show solution")).to_be_hidden()
            expect(root.locator(".course-exercise__solution-note")).to_have_text(t("exercise.solution_after_check"))
        assert not problems


def test_hints_reveal_one_at_a_time_and_a_learners_error_shows_its_traceback(browser, site_server):
    [exercise, *_] = exercises = lesson_exercises(LESSON)
    assert len(exercise.hints) == 2, exercises
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        ready_offline(page)
        cell = selector(page, 1, exercise)
        hints = page.locator(f"{cell} details.course-exercise__hint")
        expect(hints.nth(0)).to_be_hidden()
        expect(hints.nth(1)).to_be_hidden()
        button = page.locator(f"{cell} button[data-action=hint]")
        expect(button).to_have_accessible_name("Hint")
        expect(button).to_have_accessible_description("1 of 2")
        button.click()
        expect(hints.nth(0)).to_be_visible()
        expect(hints.nth(0)).to_have_attribute("open", "")
        expect(hints.nth(1)).to_be_hidden()
        expect(button).to_have_accessible_name("Hint")
        expect(button).to_have_accessible_description("2 of 2")
        button.click()
        expect(hints.nth(1)).to_be_visible()
        expect(button).to_have_attribute("aria-disabled", "true")
        expect(button).to_have_accessible_description("all 2 shown")

        # The learner's own error: its traceback as in any cell, then the check fails, in plain words.
        run(page, cell, exercise.starter + "\n1 / 0")
        expect(page.locator(cell)).to_have_attribute("data-status", "error")
        expect(page.locator(f"{cell} .course-out--error")).to_contain_text("ZeroDivisionError")
        expect(check_status(page, cell)).to_have_attribute("data-check", "fail")
        expect(check_status(page, cell)).to_have_text(t("exercise.code_raised"))
        # A check that calls the learner's broken function names it; no traceback from inside the check.
        run(page, cell, "def repeat_after(i, d_model):\n    return 1 / 0")
        expect(check_status(page, cell)).to_have_attribute("data-check", "fail")
        expect(check_status(page, cell)).to_contain_text("your code raised ZeroDivisionError: division by zero")
        expect(check_status(page, cell)).not_to_contain_text("Traceback")
        expect(page.locator(f"{cell} .course-out--error")).to_have_count(0)
        assert not problems


def test_solved_state_survives_a_reload_and_counts_on_the_home_page(browser, site_server):
    exercises = lesson_exercises(LESSON)
    total = sum(len(lesson_exercises(lesson)) for lesson in LESSONS)
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        ready_offline(page)
        cell = selector(page, 2, exercises[1])
        expect(page.locator(f"{cell} .course-exercise__solved")).to_be_hidden()
        set_code(page, cell, exercises[1].solution)
        run(page, cell)
        expect(check_status(page, cell)).to_have_attribute("data-check", "pass")
        expect(page.locator(f"{cell} .course-exercise__solved")).to_be_visible()
        page.context.set_offline(False)
        page.reload()
        expect(page.locator(cell)).to_have_attribute("data-solved", "true")
        expect(page.locator(f"{cell} .course-exercise__solved")).to_be_visible()
        expect(page.locator(selector(page, 1, exercises[0]))).not_to_have_attribute("data-solved", "true")
        assert page.evaluate("(key) => localStorage.getItem(key)", SOLVED + f"{LESSON}#{exercises[1].slug}") == "true"
        page.goto(site_server)
        expect(page.locator("p.course-progress")).to_have_text(f"Your progress: 1 of {total} exercises solved")
        assert not problems


@pytest.mark.parametrize("server", ["site_server", "isolated_site_server"])  # terminate / KeyboardInterrupt
def test_an_endless_loop_in_an_exercise_stops_like_any_cell(browser, server, request):
    exercise = lesson_exercises(LESSON)[0]
    with guarded_page(browser, request.getfixturevalue(server) + LESSON) as (page, problems):
        ready_offline(page)
        cell = selector(page, 1, exercise)
        run(page, cell, "while True:\n    pass", wait=False)
        expect(page.locator(cell)).to_have_attribute("data-state", "running", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator(cell)).to_have_attribute("aria-busy", "true")
        page.locator(f"{cell} .course-cell__button--stop").click()
        expect(page.locator(cell)).to_have_attribute("data-status", "stopped", timeout=LOAD_TIMEOUT_MS)
        expect(page.locator(cell)).not_to_have_attribute("aria-busy", "true")
        expect(check_status(page, cell)).to_have_attribute("data-check", "fail")
        assert not problems


def test_without_javascript_starter_hints_and_solution_are_readable(browser, site_server):
    exercises = lesson_exercises(LESSON)
    with guarded_page(browser, site_server + LESSON, java_script_enabled=False) as (page, problems):
        for number, exercise in enumerate(exercises, start=1):
            root = region(page, number, exercise)
            expect(root.locator(".course-cell__static")).to_contain_text(exercise.starter.splitlines()[0])
            expect(root.locator("details.course-exercise__hint")).to_have_count(len(exercise.hints))
            for k in range(1, len(exercise.hints) + 1):
                expect(root.locator("summary", has_text=f"Hint {k} of {len(exercise.hints)}")).to_be_visible()
            root.locator("summary", has_text="Solution").click()
            expect(root.get_by_label("Solution", exact=True)).to_contain_text(exercise.solution.splitlines()[0])
            expect(root.locator(".course-exercise__actions")).to_be_hidden()
        expect(page.locator(".course-exercise__hint-text").first).to_be_hidden()
        page.goto(site_server)
        expect(page.locator("p.course-progress")).to_be_hidden()
        assert not problems
