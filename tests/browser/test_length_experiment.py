"""Lesson 34's experiment in Chromium: a model trained in the page, its progress line, and Stop mid-training.

The explorable cell (a task select and a scheme select, ``precompute=0``: the build pre-renders
the defaults only) trains a new model on each change; its ``\\r`` progress line shows while it
trains and stays one line. The table cell trains 63 models, long enough to press Stop in the middle.
"""

from __future__ import annotations

import re

import pytest
from page_fixture import LOAD_TIMEOUT_MS, guarded_page, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LESSON = "lessons/34-relative-position/"
EXPERIMENT = '[data-inputs="task scheme"]'

# Every text the output takes while the cell runs (a MutationObserver sees each streamed chunk).
RECORD_WHILE_RUNNING = """(cell) => {
  window.__seen = [];
  const root = document.querySelector(cell);
  const out = root.querySelector(".course-cell__output");
  new MutationObserver(() => {
    if (root.dataset.state === "running") window.__seen.push(out.textContent);
  }).observe(out, { childList: true, subtree: true, characterData: true });
}"""


def table_cell(page) -> str:
    """The selector of the cell that prints the table of all schemes (its pre-rendered output has it)."""
    cell = page.locator(".course-cell:not(.course-exercise)").filter(
        has=page.locator("pre.course-out", has_text=re.compile(r"latest-marked\s+1L"))
    )
    expect(cell).to_have_count(1)
    return "#" + cell.get_attribute("id")


def test_a_new_scheme_trains_live_and_run_shows_its_progress_line(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        wait_ready(page)
        cell = page.locator(EXPERIMENT)
        expect(cell.locator("pre.course-out").first).to_contain_text("training rope on copy: step 150/150")
        page.get_by_role("combobox", name="positions").select_option("alibi")
        output = cell.locator(".course-cell__output")
        expect(output).to_contain_text("training alibi on copy: step 150/150", timeout=LOAD_TIMEOUT_MS)
        expect(cell).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
        text = output.inner_text()
        assert text.count("training alibi") == 1, text  # "\r" rewrites the line, as a terminal does
        assert re.search(r"1L 0\.3\d, 2L 0\.\d\d, 4L 0\.\d\d, 8L 0\.\d\d", text), text  # ALiBi cannot copy
        expect(cell.locator("img[data-scheme=default]")).to_have_attribute("alt", re.compile("with alibi positions"))
        # An input's rerun keeps the old output until the new one is complete; Run writes as it goes.
        page.evaluate(RECORD_WHILE_RUNNING, EXPERIMENT)
        cell.locator(".course-cell__button--run").click()
        expect(cell).to_have_attribute("data-state", "done", timeout=LOAD_TIMEOUT_MS)
        seen = page.evaluate("window.__seen")
        steps = {int(m) for chunk in seen for m in re.findall(r"training alibi on copy: step (\d+)/150", chunk)}
        assert any(step < 150 for step in steps), seen  # the line showed progress before the run ended
        assert all(chunk.count("training alibi") <= 1 for chunk in seen), seen  # one line, rewritten
        assert not problems


def test_stop_ends_the_table_mid_training_and_the_page_runs_again(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        wait_ready(page)
        cell = table_cell(page)
        page.locator(f"{cell} .course-cell__button--run").click()
        output = page.locator(f"{cell} .course-cell__output")
        expect(output).to_contain_text(re.compile(r"trained \d+ of 63"), timeout=LOAD_TIMEOUT_MS)
        page.locator(f"{cell} .course-cell__button--stop").click()
        expect(page.locator(cell)).to_have_attribute("data-status", "stopped", timeout=LOAD_TIMEOUT_MS)
        assert "t5-sized" not in output.inner_text()  # the table was not printed: training ended mid-way
        page.get_by_role("combobox", name="task").select_option("majority")
        experiment = page.locator(EXPERIMENT)
        expect(experiment.locator(".course-cell__output")).to_contain_text("1L 1.00, 2L 1.00", timeout=LOAD_TIMEOUT_MS)
        expect(experiment).to_have_attribute("data-status", "ok")
        assert not problems
