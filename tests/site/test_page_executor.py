"""The build's cell runner in this process: where an error is reported, and when a cached output is stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from course_site import node_process
from course_site.errors import LessonError
from course_site.execute import Output, PageExecutor, PageWork
from course_site.fences import scan, to_cell
from course_site.lesson_page import LessonBlocks, runs_of

ROOT = Path(__file__).resolve().parents[2]
PATH = "lessons/runner.md"


@pytest.fixture
def runner(make_executor) -> PageExecutor:
    """The build's runner (the site's Pyodide under Node), with a cache of its own."""
    return make_executor()


def cells_of(page: str):
    return [to_cell(block) for block in scan(page, PATH)]


def printed(outputs) -> str:
    return "".join(output.text for output in outputs if output.kind == "stdout")


def test_sections_that_start_with_blank_lines_keep_their_file_lines():
    page = "# L\n\n```pyodide\n# --- setup ---\n\n\nbase = 2\n# --- code ---\n\nprint(base)\n```\n"
    cell = cells_of(page)[0]
    lines = page.splitlines()
    assert lines[cell.setup_line - 1] == "base = 2" and lines[cell.code_line - 1] == "print(base)"


def test_an_error_in_the_setup_is_reported_at_the_setup_line(runner):
    page = "# L\n\n```pyodide\n# --- setup ---\nok = 1\n1 / 0\n# --- code ---\nprint(ok)\n```\n"
    with pytest.raises(LessonError) as caught:
        runner.run(cells_of(page))
    assert caught.value.line == 6
    assert f'File "{PATH}", line 6' in caught.value.detail
    assert str(caught.value) == f"{PATH}:6: cell 1 of the page raised\n{caught.value.detail}"


def test_an_error_after_blank_lines_is_reported_at_its_line(runner):
    page = "# L\n\n```pyodide\n\n\nok = 1\n1 / 0\n```\n"
    with pytest.raises(LessonError) as caught:
        runner.run(cells_of(page))
    assert caught.value.line == 7


def test_a_changed_setup_runs_the_cell_again(runner):
    page = "```pyodide\n# --- setup ---\nbase = {}\n# --- code ---\nprint(base)\n```\n"
    assert printed(runner.run(cells_of(page.format(2)))[0]) == "2\n"
    assert printed(runner.run(cells_of(page.format(3)))[0]) == "3\n"


def test_the_page_keeps_each_cells_build_time_output_and_leaves_unexecuted_cells_empty(runner):
    page = '```pyodide\nprint(6 * 7)\n```\n\n```pyodide execute="false"\nprint(1)\n```\n'
    first, second = LessonBlocks(page, PATH, 1, runner).pending.values()
    assert (first.index, first.outputs) == (1, [Output("stdout", "42\n")])
    assert (second.index, second.outputs) == (2, [])


def test_pages_run_together_and_each_page_later_gets_its_own_outputs_or_error(runner, monkeypatch):
    good = "# L\n\n```pyodide\nprint(6 * 7)\n```\n"
    bad = "# L\n\n```pyodide\nprint(1)\n```\n\n```pyodide\n1 / 0\n```\n"
    pages = [PageWork(cells_of(page), []) for page in (good, bad)]
    started = []
    real = node_process.NodeProcess
    monkeypatch.setattr(node_process, "NodeProcess", lambda request: started.append(request) or real(request))
    runner.workers = 2
    runner.run_pages(pages)
    assert len(started) == 2  # one Python per page
    # Building the pages then starts no Python: the outputs are cached, the error kept.
    assert printed(runner.run(pages[0].cells)[0]) == "42\n"
    with pytest.raises(LessonError) as caught:
        runner.run(pages[1].cells)
    assert caught.value.line == 8 and "ZeroDivisionError" in caught.value.detail
    assert len(started) == 2


def test_a_page_starts_python_once_for_its_cells_and_its_exercises(make_executor, monkeypatch):
    page = (
        '# L\n\n```pyodide\nbase = 2\n```\n\n```pyodide exercise="Double"\n'
        "# --- code ---\nanswer = 0\n# --- check ---\nassert answer == 4, 'not yet'\n"
        "# --- solution ---\nanswer = 4\n```\n"
    )
    work = runs_of(page, PATH, 1)
    assert len(work.cells) == 1 and len(work.exercises) == 1
    started = []
    real = node_process.NodeProcess
    monkeypatch.setattr(node_process, "NodeProcess", lambda request: started.append(request) or real(request))
    runner = make_executor()
    runner.run_pages([work])
    runner.prove(work.exercises)
    assert printed(runner.run(work.cells)[0]) == ""
    assert len(started) == 1 and started[0]["exercises"] and started[0]["cells"]
