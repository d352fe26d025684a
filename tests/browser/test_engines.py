"""The course in every learner's browser: Chromium, Firefox ESR and WebKit (Safari's engine) run the same steps.

Each test is one description of what a learner does (fixture/steps.py), run by each engine's
driver (fixture/engines.py): every cell of every lesson of ``nav``, Stop and the next Run, an
exercise, a quiz, the Python console, an edit and the console's history kept across a reload, a
lesson that runs with the server gone, and (Chromium and Firefox) a later visit in a new browser
process that restores Python's snapshot.
MiniBrowser's automation sessions keep no profile, so WebKit makes no later visit.

One browser process per engine for the module (Chromium: the suite's); WebKit gets a new one
per test, which is how a WebKit test gets empty storage.  Every request that leaves 127.0.0.1
is refused and fails the test.
"""

from __future__ import annotations

import re

import pytest
import steps
from page_fixture import LESSON, LESSONS

from course_kernel.strings import t

pytestmark = pytest.mark.browser

RESTORED = "^course: Python restored from this browser's snapshot$"
KEPT = r"^course: snapshot kept for the next visit \(\d+ bytes\)$"
HOW_PYTHON_STARTED = r"^course: Python (restored|booted normally)"
SNAPSHOT_KEPT_OR_NOT = r"^course: (snapshot kept|no snapshot kept)"


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_cell_runs_as_at_build_time(engine, tab, site_server, lesson):
    if engine.name == "chromium":  # one place per behaviour per engine
        pytest.skip("test_accessibility.py runs every cell in Chromium, with its page errors and CSP reports too")
    steps.open_lesson(tab, site_server + lesson)
    assert steps.check_cells_as_built(tab) >= 2


@pytest.fixture
def lesson_tab(tab, site_server):
    """``tab`` with the first lesson open and its Python ready."""
    steps.open_lesson(tab, site_server + LESSON)
    return tab


def test_stop_ends_an_endless_loop_and_the_next_run_works(lesson_tab):
    """A first visit: a cell that needs cell 1 says so; Stop restarts Python and offers the cells above."""
    steps.name_error_points_above_and_runs_the_cells_above(lesson_tab)
    steps.stop_then_run(lesson_tab)
    steps.restart_offers_the_cells_above(lesson_tab)


def test_an_exercise_starter_fails_and_its_solution_passes_then_a_quiz_answer_and_an_import_outside_the_boot(
    lesson_tab,
):
    steps.exercise_starter_then_solution(lesson_tab, t("exercise.passed"))
    steps.quiz_answers(lesson_tab)
    steps.stdlib_outside_the_boot(lesson_tab)


def test_figures_follow_the_palette_inputs_rerun_a_cell_or_show_pre_rendered_output_and_code_folds(
    lesson_tab, site_server
):
    """Lesson 32's figures in the palette's scheme and its slider; lesson 33's choices, then its explorable cell."""
    steps.figures_follow_the_palette(lesson_tab)
    steps.inputs_rerun_the_cell(lesson_tab)
    steps.open_lesson(lesson_tab, site_server + "lessons/33-rope-long-context/")
    steps.inputs_show_pre_rendered_output(lesson_tab)
    steps.explorable_cell_folds_its_code(lesson_tab)


def test_the_console_and_an_edit_are_kept_across_a_reload(lesson_tab):
    """The Python console shares the cells' namespace both ways, runs a statement over several lines and
    stops like a cell; its history and an edited cell are still there after a reload."""
    steps.setup_shown_on_request(lesson_tab)
    steps.console_shares_the_namespace(lesson_tab)
    steps.console_stop(lesson_tab)
    steps.console_history_kept_across_reload(lesson_tab)
    steps.edit_kept_across_reload(lesson_tab)


def test_with_the_server_gone_a_reload_loads_the_lesson_and_a_cell_runs(tab, engine, built_site, server_that_goes):
    """A learner's ordinary visits (cell 1 run, reloads, the last under the service worker: cross-origin
    isolated, so Stop keeps the namespace), then the site's server is gone (its port refuses) and a reload.
    Nothing waits on the caches' contents: what the offline visit needs was kept by those visits."""
    url, gone = server_that_goes(built_site)
    steps.open_lesson(tab, url + LESSON)
    steps.ready_for_offline(tab)
    steps.stop_keeps_the_namespace_under_isolation(tab)  # the service worker controls the page now
    gone()
    steps.offline_cell_runs(tab)
    steps.open_console(tab)  # console.js and its editor come from the service worker's copies too
    assert steps.console_send(tab, "6 * 7").strip() == "42"


@pytest.mark.parametrize("engine", ["chromium", "firefox"], indirect=True)
def test_a_later_visit_in_a_new_browser_process_restores_the_snapshot(engine, site_server, tmp_path):
    url = site_server + LESSON
    for visit in (first_visit_keeps_a_snapshot, later_visit_restores_it):
        launched = engine.launch(tmp_path / "profile")
        try:
            visit(launched.tab(), url)
            external = launched.take_external()
        finally:
            launched.close()
        assert not external, f"requests left 127.0.0.1: {external}"


# Each wait is for whichever line ends the step, then its words are checked: a snapshot not
# kept, or not restored, fails at once with what the worker said.
def first_visit_keeps_a_snapshot(tab, url: str) -> None:
    steps.open_lesson(tab, url)
    assert tab.console(HOW_PYTHON_STARTED).endswith("(no snapshot)")
    assert re.match(KEPT, tab.console(SNAPSHOT_KEPT_OR_NOT))


def later_visit_restores_it(tab, url: str) -> None:
    steps.open_lesson(tab, url)
    assert re.match(RESTORED, tab.console(HOW_PYTHON_STARTED))
    steps.run(tab, "#cell-1")
    steps.wait_for(tab, "#cell-1", "^ok$", "data-status")


@pytest.mark.parametrize("engine", ["chromium", "firefox"], indirect=True)
def test_the_solution_opens_after_the_first_check_and_stays_at_hand(engine, lesson_tab):
    """The site's rule (after-check): the note says when, the first check opens it, the note announces it."""
    steps.solution_opens_after_the_first_check(
        lesson_tab, after_check=t("exercise.solution_after_check"), ready=t("exercise.solution_ready")
    )


@pytest.mark.parametrize("engine", ["chromium", "firefox"], indirect=True)
def test_work_saved_to_a_file_cleared_then_loaded_comes_back_and_a_bad_file_changes_nothing(engine, tab, site_server):
    """Save my work, Start over, Load work from a file: the home page's progress and the lesson's edit,
    solved exercise and quiz answer come back; a damaged file, another site's and another version's are
    refused and leave the work as it was; a file's newer edit of a cell edited here replaces it only if asked."""
    total = len(steps.course_exercise_ids(tab, site_server))
    solved, cleared = (t("exercise.count", solved=n, count=total) for n in (1, 0))
    lesson = site_server + LESSON
    steps.work_saved_cleared_and_loaded_back(tab, site_server, lesson, solved=solved, cleared=cleared)
    steps.damaged_work_file_changes_nothing(tab, site_server)
    steps.a_newer_edit_in_a_file_replaces_mine_only_when_asked(
        tab, site_server, lesson, keep=t("work.keep"), replace=t("work.replace")
    )
