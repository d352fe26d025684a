"""The markup of a runnable cell (cells.py): the cells' DOM contract as the build writes it."""

from __future__ import annotations

import re

from markdown import Markdown

from course_site.cells import render_cell
from course_site.fences import Block, Cell, CellOptions


def cell_html(**keywords: object) -> str:
    block = Block(lang="pyodide", path="lessons/l.md", line=3, body_line=4, body="print(1)")
    cell = Cell(block=block, code="print(1)", setup="", code_line=4, setup_line=4, options=CellOptions())
    md = Markdown(extensions=["pymdownx.superfences"])
    return render_cell(cell, 2, [], md, packages=[], download_note="", figure_url=lambda png: "", **keywords)


def test_a_cell_is_a_region_named_python_cell_and_its_number():
    html = cell_html()
    assert re.search(r'<div class="course-cell" id="cell-2" role="region" aria-label="Python cell 2"', html)


def test_the_region_label_can_be_given():
    assert 'role="region" aria-label="Exercise 1: warm up"' in cell_html(region_label="Exercise 1: warm up")


def test_buttons_are_named_by_their_text_and_the_output_is_a_log():
    html = cell_html()
    for name in ("Run", "Stop", "Reset", "Copy", "Clear"):
        assert re.search(rf"<button type=\"button\"[^>]*>(<svg[^>]*>.*?</svg>)<span>{name}</span></button>", html)
    assert html.count('role="log"') == 1


def test_a_carriage_return_in_output_survives_the_html_parser():
    """A progress line's ``\\r`` is written ``&#13;``: a raw one would reach the DOM as a line break."""
    from course_site.cells import output_parts
    from course_site.execute import Output

    (pre,) = output_parts([Output("stdout", "step 1\rstep 2\rdone\n")], lambda png: "")
    assert "\r" not in pre.html
    assert "step 1&#13;step 2&#13;done\n" in pre.html
