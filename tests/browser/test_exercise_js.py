"""exercise.js in Chromium: hints one by one, the solution, the verdict, solved state across reloads.

The page is the plugin's exercise HTML around a plain <textarea> standing in for
the cell, which is wired to the runner in its own step. Each "run" takes the
textarea's code to CPython's exercise_check (the module the worker runs) and
hands its real verdict to the page through the `ExerciseCell` interface.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest
from markdown import Markdown
from playwright.sync_api import expect

from course_site.cells import _highlight
from course_site.exercises import parse_exercises
from course_site.exercises_html import render_exercise, render_progress
from course_site.fences import scan
from course_site.quiz import _converter

pytestmark = pytest.mark.browser

ASSETS = Path(__file__).resolve().parents[2] / "src/course_site/course_site/assets"
LESSON = """\
```pyodide exercise="The period of a pair"
# --- setup ---
import math
# --- code ---
period = None
# --- check ---
expect_defined("period")
assert period is not None, "Set `period` to the period of pair 0."
expect_close(period, 2 * math.pi, name="period")
# --- solution ---
period = 2 * math.pi
# --- hint ---
Pair 0 turns at one radian per position.
# --- hint ---
A full turn is $2\\pi$ radians.
# --- hint ---
`period = 2 * math.pi`
```
"""
HARNESS = """
<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Exercise</title></head><body>
EXERCISE
<script type="module">
  import { enhanceExercise, countSolved, showProgress } from "./exercise.js";
  const root = document.querySelector(".course-exercise");
  const editor = root.querySelector("textarea");
  const listeners = [];
  enhanceExercise(root, {
    onRunDone: (listener) => listeners.push(listener),
    setEditorCode: (code) => { editor.value = code; },
  });
  window.finishRun = (outcome) => listeners.forEach((listener) => listener(outcome));
  window.countSolved = countSolved;
  showProgress(document.querySelector(".course-progress"));
  document.body.dataset.ready = "true";
</script>
</body></html>
"""


def _exercise_check():
    spec = importlib.util.spec_from_file_location("exercise_check_js_test", ASSETS / "py/exercise_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _runtime():
    spec = importlib.util.spec_from_file_location("cell_exec_js_test", ASSETS / "py/cell_exec.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def exercise():
    return parse_exercises(scan(LESSON, "lessons/test.md"))[0]


@pytest.fixture(scope="module")
def page_url(exercise, serve, tmp_path_factory):
    folder = tmp_path_factory.mktemp("exercise")
    shutil.copy(ASSETS / "js/exercise.js", folder / "exercise.js")
    md = Markdown(extensions=["pymdownx.superfences"])
    cell = f'<div class="course-cell"><textarea aria-label="Code">{exercise.starter}</textarea></div>'
    html = render_exercise(
        exercise, 1, cell, page_url="lessons/test/", markdown=_converter(), highlight=lambda code: _highlight(code, md)
    )
    progress = render_progress(["lessons/test/#the-period-of-a-pair", "lessons/other/#x"])
    (folder / "index.html").write_text(HARNESS.replace("EXERCISE", progress + html))
    return serve(folder)


def run(page, exercise) -> None:
    """Run the editor's code with the exercise's setup and check in CPython; report it to the page."""
    check, runtime = _exercise_check(), _runtime()
    code = page.locator("textarea").input_value()
    result = check.run_exercise(exercise.setup, code, exercise.check, run_cell=runtime.run_cell, emit=lambda *_: None)
    outcome = {"status": "ok", "check": {"passed": result.passed, "message": result.message}}
    page.evaluate(f"window.finishRun({json.dumps(outcome)})")


def opened(open_page, url, **options):
    page = open_page(url, **options)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page


def test_without_javascript_everything_is_readable(open_page, page_url):
    page = open_page(page_url, java_script_enabled=False)
    region = page.get_by_role("region", name="Exercise 1: The period of a pair")
    expect(region.locator("details.course-exercise__hint")).to_have_count(3)
    for summary in ("Hint 1 of 3", "Hint 2 of 3", "Hint 3 of 3", "Solution"):
        expect(region.locator("summary", has_text=summary)).to_be_visible()
    region.locator("summary", has_text="Solution").click()
    expect(region.locator('[aria-label="Solution"]')).to_contain_text("period = 2 * math.pi")
    expect(region.locator(".course-exercise__actions")).to_be_hidden()
    expect(page.locator(".course-progress")).to_be_hidden()


def test_hints_reveal_one_at_a_time(open_page, page_url):
    page = opened(open_page, page_url)
    hints = page.locator("details.course-exercise__hint")
    button = page.get_by_role("button", name="Hint")
    expect(hints.first).to_be_hidden()
    for shown in (1, 2, 3):
        button.click()
        expect(hints.nth(shown - 1)).to_be_visible()
        expect(hints.nth(shown - 1)).to_have_attribute("open", "")
        if shown < 3:
            expect(hints.nth(shown)).to_be_hidden()
            expect(button).to_have_text(f"Next hint ({shown + 1} of 3)")
    expect(button).to_have_text("All hints shown")
    expect(button).to_have_attribute("aria-disabled", "true")
    expect(hints.nth(1).locator("math, .arithmatex")).to_have_count(1)  # the hint's Markdown, rendered


def test_starter_fails_solution_passes_and_solved_survives_a_reload(open_page, page_url, exercise):
    page = opened(open_page, page_url)
    status = page.get_by_role("status")
    run(page, exercise)
    expect(status).to_have_attribute("data-check", "fail")
    expect(status).to_have_text("Set period to the period of pair 0.")
    expect(status.locator("code")).to_have_text("period")
    expect(page.locator(".course-exercise__solved")).to_be_hidden()
    expect(page.locator(".course-progress")).to_have_text("0 of 2 exercises solved")

    solution = page.get_by_label("Solution")
    expect(solution).to_be_hidden()
    page.get_by_role("button", name="Show solution").click()
    expect(solution).to_be_visible()
    expect(solution).to_contain_text("period = 2 * math.pi")
    page.get_by_role("button", name="Put the solution in the editor").click()
    expect(page.locator("textarea")).to_have_value(exercise.solution)

    run(page, exercise)
    expect(status).to_have_attribute("data-check", "pass")
    expect(status).to_have_text("All checks passed.")
    region = page.get_by_role("region", name="Exercise 1: The period of a pair")
    expect(region).to_have_attribute("data-solved", "true")
    expect(page.locator(".course-exercise__solved")).to_be_visible()

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(region).to_have_attribute("data-solved", "true")
    expect(page.locator(".course-exercise__solved")).to_have_text("Solved")
    expect(page.locator(".course-progress")).to_have_text("1 of 2 exercises solved")


def test_stopped_run_says_so(open_page, page_url):
    page = opened(open_page, page_url)
    page.evaluate('window.finishRun({status: "stopped"})')
    expect(page.get_by_role("status")).to_have_text("The run was stopped before the checks ran.")
    expect(page.get_by_role("status")).to_have_attribute("data-check", "fail")


def test_storage_that_throws_breaks_nothing(browser, page_url, exercise):
    context = browser.new_context()
    try:
        context.add_init_script(
            "Storage.prototype.getItem = () => { throw new Error('denied'); };"
            "Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); };"
        )
        context.route("**/*", lambda route: route.continue_() if "//127.0.0.1:" in route.request.url else route.abort())
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(error))
        page.goto(page_url)
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        page.get_by_role("button", name="Show solution").click()
        page.get_by_role("button", name="Put the solution in the editor").click()
        run(page, exercise)
        expect(page.get_by_role("status")).to_have_attribute("data-check", "pass")
        expect(page.locator(".course-exercise__solved")).to_be_visible()
        assert page.evaluate("window.countSolved(['lessons/test/#the-period-of-a-pair'])") == 0
        assert not errors
    finally:
        context.close()
