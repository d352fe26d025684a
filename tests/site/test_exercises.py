"""Exercises at build time: parsing, authoring errors at file:line, the proof, the HTML."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from markdown import Markdown
from site_project import EXERCISE_PAGE, build, failing_build, lesson_html, make_project

from course_site.cells import highlight_python, render_cell
from course_site.errors import LessonError
from course_site.execute import PageExecutor
from course_site.exercises import Exercise, parse_exercises
from course_site.exercises_html import course_exercise_ids, insert_progress, render_exercise
from course_site.fences import CellOptions, scan, to_cell
from course_site.lesson_page import LessonBlocks, PendingExercise
from course_site.quiz import markdown_converter

ROOT = Path(__file__).resolve().parents[2]
PATH = "lessons/99-exercises.md"

PAGE = EXERCISE_PAGE


def exercises_of(page: str) -> list:
    return parse_exercises(scan(page, PATH))


def test_sections_titles_and_lines():
    [exercise] = exercises_of(PAGE)
    assert exercise.title == "The period of a pair"
    assert exercise.slug == "the-period-of-a-pair"
    assert (exercise.setup, exercise.starter) == ("import math", "period = None  # the period of pair 0")
    assert exercise.check.splitlines()[0] == 'expect_defined("period")'
    assert exercise.solution == "period = 2 * math.pi"
    assert exercise.hints == (
        "Pair 0 turns by one radian per position.",
        "A full turn is $2\\pi$ radians: `math.pi` is there.",
    )
    lines = (exercise.line, exercise.setup_line, exercise.starter_line, exercise.check_line, exercise.solution_line)
    assert lines == (3, 5, 8, 10, 14)
    assert exercise.hint_lines == (16, 19)


def test_the_runnable_part_is_a_cell_of_the_starter():
    [exercise] = exercises_of(PAGE)
    cell = exercise.cell()
    assert (cell.code, cell.setup, cell.code_line, cell.setup_line) == (exercise.starter, "import math", 8, 5)
    assert cell.options.height == 6 and not cell.options.execute and not cell.options.autorun


def fence(body: str, header: str = 'exercise="Pairs"') -> str:
    return f"intro\n\n```pyodide {header}\n{body}\n```\n"


COMPLETE = "# --- code ---\nx = 0\n# --- check ---\nassert x == 1\n# --- solution ---\nx = 1"


@pytest.mark.parametrize(
    ("page", "line", "message"),
    [
        (
            fence("# --- code ---\nx = 0\n# --- solution ---\nx = 1"),
            3,
            "exercise \"Pairs\" has no check \\(a '# --- check ---'",
        ),
        (
            fence("# --- code ---\nx = 0\n# --- check ---\nassert x"),
            3,
            "has no solution \\(a '# --- solution ---' section",
        ),
        (fence("# --- check ---\nassert x\n# --- solution ---\nx = 1"), 3, "has no starter code"),
        (
            fence(COMPLETE + "\n# --- answer ---\nx = 1"),
            10,
            "unknown section '# --- answer ---' \\(valid: task, setup, code, check",
        ),
        (fence(COMPLETE + "\n# --- check ---\nassert x"), 10, "section '# --- check ---' appears twice"),
        (fence(COMPLETE + "\n# --- hint ---\n\n"), 10, "the exercise's '# --- hint ---' is empty"),
        (fence(COMPLETE.replace("assert x == 1", "")), 6, "the exercise's '# --- check ---' is empty"),
        (fence(COMPLETE.replace("x = 0", "")), 4, "the exercise's '# --- code ---' is empty"),
        (fence("x = 0\n" + COMPLETE), 4, "code before the first"),
        (fence(COMPLETE, 'exercise=""'), 3, 'an exercise needs a title: exercise="'),
        (fence(COMPLETE, "exercise"), 3, "an exercise needs a title"),
        (fence(COMPLETE, 'exercise="Pairs" autorun="true"'), 3, "unknown option 'autorun' on an exercise"),
        (fence(COMPLETE, 'exercise="Pairs" height="99"'), 3, 'height="99" must be a whole number'),
        (
            fence(COMPLETE, 'exercise="Pairs" solutions="later"'),
            3,
            "solutions='later' on an exercise: when its solution appears is one of always, after-check, after-pass",
        ),
        (fence(COMPLETE) + fence(COMPLETE, 'exercise="pairs!"'), 13, 'two exercises of this page are titled "pairs!"'),
    ],
)
def test_authoring_errors_name_file_and_line(page, line, message):
    with pytest.raises(LessonError, match=message) as caught:
        exercises_of(page)
    assert str(caught.value).startswith(f"{PATH}:{line}: ")


@pytest.mark.parametrize("section", ["hint", "check", "solution"])
def test_exercise_section_outside_an_exercise(section):
    page = fence(f"x = 1\n# --- {section} ---\nmore", header="")
    page = page.replace("x = 1\n", "# --- code ---\nx = 1\n")
    with pytest.raises(LessonError) as caught:
        to_cell(scan(page, PATH)[0])
    assert str(caught.value) == (
        f"{PATH}:6: '# --- {section} ---' outside an exercise: exercise sections need exercise=\"Title\" on the fence"
    )


# --- the proof -------------------------------------------------------------------------------


@pytest.fixture
def runner(make_executor) -> PageExecutor:
    return make_executor()


def prove(runner: PageExecutor, page: str) -> None:
    runner.prove(exercises_of(page))


def guide_example() -> Exercise:
    guide = (ROOT / "docs" / "authors.md").read_text()
    examples = [part.split("\n````", 1)[0] for part in guide.split("````markdown\n")[1:]]
    [example] = [text for text in examples if "exercise=" in text]
    [exercise] = parse_exercises(scan(example, "docs/authors.md"))
    assert len(exercise.hints) == 2
    return exercise


def test_sound_exercises_are_proved_in_one_run_then_cached(runner, make_executor, tmp_path):
    sound = [
        *exercises_of(PAGE),
        # A starter that raises fails the check, as it should.
        *exercises_of(PAGE.replace("period = None  # the period of pair 0", "period = ___")),
        # What a solution prints does not disturb the runner.
        *exercises_of(PAGE.replace("period = 2 * math.pi", "print('{not json')\nperiod = 2 * math.pi")),
        guide_example(),
    ]
    runner.prove(sound)
    assert len(list((tmp_path / "outputs").glob("*.json"))) == 1
    # Proved before: nothing runs again (Python could not even start within no time at all).
    make_executor(timeout=0).prove(sound)


def test_unsolvable_exercise_fails_at_the_solution_with_the_checks_message(runner, tmp_path):
    page = PAGE.replace("period = 2 * math.pi", "period = math.pi")
    with pytest.raises(LessonError) as caught:
        prove(runner, page)
    assert str(caught.value) == (
        f'{PATH}:14: the solution of exercise "The period of a pair" fails its check: '
        "`period` is 3.141592653589793, expected 6.283185307179586 (difference 3.14)"
    )
    assert not list((tmp_path / "outputs").glob("*.json"))  # a failure is not cached


def test_exercise_solved_by_its_starter_fails_at_the_starter(runner):
    page = PAGE.replace("period = None  # the period of pair 0", "period = math.tau")
    with pytest.raises(LessonError) as caught:
        prove(runner, page)
    assert str(caught.value).startswith(
        f'{PATH}:8: the starter code of exercise "The period of a pair" already passes its check; it must fail it'
    )


def test_solution_that_raises_points_at_its_line_with_the_traceback(runner):
    page = PAGE.replace("period = 2 * math.pi", "half = math.pi\nperiod = 2 * hlf")
    with pytest.raises(LessonError) as caught:
        prove(runner, page)
    error = caught.value
    assert str(error).startswith(f'{PATH}:15: the solution of exercise "The period of a pair" raised\n')
    assert f'File "{PATH}", line 15' in error.detail and "NameError: name 'hlf' is not defined" in error.detail


def test_setup_that_raises_points_at_the_setup(runner):
    with pytest.raises(LessonError) as caught:
        prove(runner, PAGE.replace("import math", "import math\nmath.tau / 0"))
    assert str(caught.value).startswith(f'{PATH}:6: the setup of exercise "The period of a pair" raised\n')
    assert "ZeroDivisionError" in caught.value.detail


def test_a_check_that_does_not_compile_fails_the_solution(runner):
    with pytest.raises(LessonError, match=r":14: the solution .* fails its check: the check does not compile: line 2"):
        prove(runner, PAGE.replace('assert period is not None, "', 'assert period is not None "'))


# --- the HTML ----------------------------------------------------------------------------------


def render(exercise, number: int = 2) -> str:
    """The exercise's HTML as the plugin writes it: its cell (number 5 on the page) with its parts."""
    md = Markdown(extensions=["pymdownx.superfences"])
    cell = partial(
        render_cell,
        exercise.cell(),
        5,
        [],
        md,
        packages=["numpy"],
        download_note="about 9 MB",
        figure_url=lambda png: "unused.png",
    )
    return render_exercise(
        exercise,
        number,
        cell,
        page_url="lessons/99-exercises/",
        markdown=markdown_converter(),
        highlight=lambda code: highlight_python(code, md),
    )


def test_html_is_one_cell_region_named_exercise_that_reads_without_javascript():
    [exercise] = exercises_of(PAGE)
    html = render(exercise)
    assert html.startswith('<div class="course-cell course-exercise" id="cell-5" role="region"')
    assert html.count('role="region"') == 1
    assert 'aria-label="Exercise 2: The period of a pair"' in html
    assert '<p class="course-exercise__title" id="exercise-the-period-of-a-pair"><strong>Exercise 2</strong>' in html
    assert 'data-exercise-id="lessons/99-exercises/#the-period-of-a-pair"' in html
    assert 'data-code="period = None  # the period of pair 0"' in html and 'data-setup="import math"' in html
    assert 'data-solution="period = 2 * math.pi"' in html
    assert 'data-check-code="expect_defined(&quot;period&quot;)\n' in html
    assert '<div class="course-cell__toolbar" hidden>' in html
    assert 'role="log"' in html
    assert '<p class="course-exercise__check" role="status" aria-live="polite"></p>' in html
    assert html.count('<details class="course-exercise__hint"') == 2
    assert "<summary>Hint 2 of 2</summary>" in html and "<code>math.pi</code>" in html
    assert 'class="arithmatex"' in html  # turned into MathML with the rest of the page
    assert '<details class="course-exercise__solution" data-search-exclude><summary>Solution</summary>' in html
    assert '<details class="course-exercise__hint" data-hint="2" data-search-exclude>' in html  # not searchable
    assert 'data-solutions="after-check"' in html  # the site's rule, by default
    assert '<p class="course-exercise__solution-note" role="status" aria-live="polite"></p>' in html
    assert 'role="group" aria-label="Solution"><div class="highlight">' in html
    assert '<div class="course-exercise__actions" hidden><button type="button" data-action="hint">Hint</button>' in html
    assert '<button type="button" data-action="solution">Show solution</button>' in html
    assert html.endswith("</details></div>")  # every part inside the region


def test_progress_goes_after_the_home_pages_title_and_lists_every_exercise():
    pages = [(PAGE, PATH, "lessons/99-exercises/"), ("# No exercise\n", "docs/index.md", "")]
    ids = course_exercise_ids(pages)
    assert ids == ["lessons/99-exercises/#the-period-of-a-pair"]
    html = insert_progress('<h1 id="home">Home</h1>\n<p>Text</p>', ids)
    assert html.startswith('<h1 id="home">Home</h1><p class="course-progress" data-exercise-ids="[&quot;lessons/')
    label = '<strong>Your progress:</strong> <span class="course-progress__count"></span>'
    assert html.endswith(f"hidden>{label}</p>\n<p>Text</p>")
    assert insert_progress("<p>Text</p>", []) == "<p>Text</p>"


def test_a_bad_exercise_on_another_page_is_reported_when_the_progress_is_counted():
    with pytest.raises(LessonError, match=f"^{PATH}:3: an exercise needs a title"):
        course_exercise_ids([(fence(COMPLETE, 'exercise=""'), PATH, "lessons/99-exercises/")])


# --- the page: exercises among cells -----------------------------------------------------------


MIXED = (
    "```pyodide\nx = 1\n```\n\n" + PAGE.split("\n", 2)[2] + "\n```quiz\nQ?\n- [x] yes\n  because\n- [ ] no\n  no\n```\n"
)


def test_exercises_are_kept_apart_from_the_cells_and_share_their_numbering():
    page = LessonBlocks(MIXED, PATH, 1, runner=None)
    kinds = [type(item).__name__ for item in page.pending.values()]
    assert kinds == ["PendingCell", "PendingExercise", "PendingCell", "PendingQuiz"]
    cell, exercise, last, _ = page.pending.values()
    assert (cell.index, exercise.index, exercise.number, last.index) == (1, 2, 1, 3)
    assert exercise.exercise.title == "The period of a pair"
    assert (last.cell.code, last.outputs) == ("x = 1", [])


def test_an_exercise_in_a_fence_the_page_did_not_tag_is_parsed_when_asked_for():
    page = LessonBlocks("# Nothing\n", PATH, 1, runner=None)
    [block] = scan(PAGE, PATH)[:1]
    taken = page.take(block.lang, block.body, dict(block.options))
    assert isinstance(taken, PendingExercise)
    assert (taken.exercise.title, taken.number, taken.index) == ("The period of a pair", 1, 1)


def test_an_exercise_in_an_untagged_fence_is_checked_like_any(tmp_path):
    page = LessonBlocks("# Nothing\n", PATH, 1, runner=None)
    with pytest.raises(LessonError, match="has no check"):
        page.take("pyodide", "# --- code ---\nx = 0\n# --- solution ---\nx = 1", {"exercise": "Pairs"})


def test_the_page_proves_its_exercises_with_a_runner(runner):
    with pytest.raises(LessonError, match=rf'^{PATH}:16: the solution of exercise "The period of a pair" fails'):
        LessonBlocks(MIXED.replace("period = 2 * math.pi", "period = math.pi"), PATH, 1, runner)


def test_the_author_guides_example_is_proved(runner):
    guide = (ROOT / "docs" / "authors.md").read_text()
    examples = [part.split("\n````", 1)[0] for part in guide.split("````markdown\n")[1:]]
    [example] = [text for text in examples if "exercise=" in text]
    [exercise] = parse_exercises(scan(example, "docs/authors.md"))
    assert len(exercise.hints) == 2
    runner.prove([exercise])


# --- mkdocs build ---------------------------------------------------------------------------------


def test_build_renders_exercises_and_counts_them_on_the_home_page(tmp_path):
    project = make_project(tmp_path, "# L\n\n```pyodide\nx = 1\n```\n\n" + PAGE.split("\n", 2)[2])
    done = build(project)
    assert done.returncode == 0, done.stderr
    lesson = (project / "site/lessons/lesson/index.html").read_text()
    assert 'id="cell-1" role="region" aria-label="Python cell 1"' in lesson
    assert 'id="cell-2" role="region" aria-label="Exercise 1: The period of a pair"' in lesson
    home = (project / "site/index.html").read_text()
    ids = 'data-exercise-ids="[&quot;lessons/lesson/#the-period-of-a-pair&quot;]"'
    assert f"{ids} hidden><strong>Your progress:" in home


def test_build_fails_at_the_line_of_an_unsolvable_exercise(tmp_path):
    page = "# L\n\n" + PAGE.split("\n", 2)[2].replace("period = 2 * math.pi", "period = math.pi")
    errors = failing_build(make_project(tmp_path, page))
    assert 'lessons/lesson.md:14: the solution of exercise "The period of a pair" fails its check' in errors


def test_build_fails_at_a_hint_outside_an_exercise(tmp_path):
    errors = failing_build(make_project(tmp_path, "# L\n\n```pyodide\nx = 1\n# --- hint ---\nSee.\n```\n"))
    assert "lessons/lesson.md:5: '# --- hint ---' outside an exercise" in errors


def test_late_exercises_take_the_next_exercise_and_cell_numbers():
    page = LessonBlocks(MIXED, PATH, 1, runner=None)  # 2 cells, 1 exercise
    [block] = scan(PAGE, PATH)[:1]
    numbers = []
    for title in ("Late one", "Late two"):
        taken = page.take(block.lang, block.body, {**block.options, "exercise": title})
        numbers.append((taken.number, taken.index))
    assert numbers == [(2, 4), (3, 5)]


def test_the_runnable_part_is_never_run_at_build_time_nor_on_load():
    [exercise] = exercises_of(PAGE)
    assert exercise.cell().options == CellOptions(height=6, autorun=False, execute=False)


def test_an_empty_setup_section_is_allowed_and_a_missing_title_says_how_to_give_one():
    [exercise] = exercises_of(fence("# --- setup ---\n\n" + COMPLETE))
    assert exercise.setup == ""
    with pytest.raises(LessonError) as caught:
        exercises_of(fence(COMPLETE, 'exercise=" "'))
    assert str(caught.value) == f'{PATH}:3: an exercise needs a title: exercise="The period of a pair" on the fence'


def test_exercises_with_different_titles_live_on_one_page():
    page = fence(COMPLETE, 'exercise="First"') + fence(COMPLETE, 'exercise="Second"')
    assert [exercise.title for exercise in exercises_of(page)] == ["First", "Second"]


def test_an_exercise_without_setup_has_an_empty_one_at_its_first_body_line():
    [exercise] = exercises_of(fence(COMPLETE))
    assert (exercise.setup, exercise.setup_line, exercise.starter_line) == ("", 4, 5)


def test_an_unknown_exercise_option_is_named_with_the_valid_ones():
    with pytest.raises(LessonError) as caught:
        exercises_of(fence(COMPLETE, 'exercise="Pairs" autorun="true"'))
    valid = "valid options: exercise, height, solutions"
    assert str(caught.value) == f"{PATH}:3: unknown option 'autorun' on an exercise ({valid})"


def test_two_exercises_with_one_title_are_reported_with_why_titles_must_differ():
    with pytest.raises(LessonError) as caught:
        exercises_of(fence(COMPLETE) + fence(COMPLETE, 'exercise="pairs!"'))
    assert str(caught.value) == (
        f'{PATH}:13: two exercises of this page are titled "pairs!" (the first at line 3); '
        "titles name the learner's saved progress, so they must differ"
    )


TASKED = PAGE.replace(
    '```pyodide exercise="The period of a pair" height="6"\n',
    '```pyodide exercise="The period of a pair" height="6"\n'
    "# --- task ---\nSet `period` to the number of positions pair 0 needs for **one full turn** ($2\\pi$).\n\n"
    "- a list item\n",
)


def test_the_task_section_is_markdown_shown_above_the_editor():
    [exercise] = exercises_of(TASKED)
    assert exercise.task.startswith("Set `period` to") and exercise.task.endswith("- a list item")
    assert exercise.task_line == 5
    assert exercise.starter == "period = None  # the period of pair 0"
    html = render(exercise)
    task = html.index('<div class="course-exercise__task">')
    assert html.index('class="course-exercise__title"') < task < html.index('class="course-cell__static"')
    assert "<strong>one full turn</strong>" in html and "<code>period</code>" in html
    assert "<ul>\n<li>a list item</li>\n</ul>" in html and 'class="arithmatex"' in html


def test_an_exercise_without_a_task_has_no_task_block():
    [exercise] = exercises_of(PAGE)
    assert (exercise.task, exercise.task_line) == ("", None)
    assert "course-exercise__task" not in render(exercise)


def test_an_empty_task_is_an_error_at_its_marker():
    page = TASKED.replace(
        "# --- task ---\nSet `period` to the number of positions pair 0 needs for **one full turn** ($2\\pi$).\n\n"
        "- a list item\n",
        "# --- task ---\n\n",
    )
    with pytest.raises(LessonError, match=r"lessons/99-exercises.md:4: the exercise's '# --- task ---' is empty"):
        exercises_of(page)


def test_a_task_outside_an_exercise_says_so():
    with pytest.raises(LessonError, match="'# --- task ---' outside an exercise"):
        to_cell(scan("```pyodide\n# --- task ---\nDo it.\n# --- code ---\nx = 1\n```\n", PATH)[0])


# --- when the solution appears --------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["always", "after-check", "after-pass"])
def test_an_exercise_sets_its_own_rule_for_the_solution_over_the_sites(rule):
    [exercise] = exercises_of(fence(COMPLETE, f'exercise="Pairs" solutions="{rule}"'))
    assert exercise.solutions == rule
    assert f'data-solutions="{rule}"' in render(exercise)
    [plain] = exercises_of(fence(COMPLETE))
    assert plain.solutions is None


def test_the_sites_rule_for_solutions_reaches_every_exercise_an_exercise_of_its_own_keeps_its(tmp_path):
    own = PAGE.split("\n", 2)[2].replace('exercise="The period of a pair"', 'exercise="Own" solutions="after-pass"')
    lesson = "# L\n\n" + PAGE.split("\n", 2)[2] + "\n" + own
    project = make_project(tmp_path, lesson, solutions="always")
    done = build(project)
    assert done.returncode == 0, done.stderr
    html = lesson_html(project)
    assert html.count('data-solutions="always"') == 1 and html.count('data-solutions="after-pass"') == 1


def test_an_unknown_rule_for_solutions_in_mkdocs_yml_fails_the_build_naming_the_choices(tmp_path):
    errors = failing_build(make_project(tmp_path, PAGE, solutions="never"))
    assert "solutions" in errors and "always" in errors and "after-pass" in errors
