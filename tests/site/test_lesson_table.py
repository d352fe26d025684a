"""Lesson 34's table as the build printed it (Pyodide's numpy) is the table CPython prints.

``tests/lesson/test_relative_lesson.py`` checks the lesson's prose and findings against the
table the lesson's cell computes in CPython; this test closes the loop to the page: the table
in the built page, from the site's own Pyodide, is the same text.
"""

from __future__ import annotations

import contextlib
import html
import io
import re
from pathlib import Path

from course_site.fences import CELL, scan, to_cell

ROOT = Path(__file__).resolve().parents[2]
LESSON = "34-relative-position.md"
HEADER = re.compile(r"latest-marked\s+1L")


def built_table(site: Path) -> str:
    page = (site / "lessons" / LESSON.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<pre class="course-out course-out--stdout">(.*?)</pre>', page, flags=re.S)
    (table,) = [html.unescape(block) for block in blocks if HEADER.search(block)]
    return table.rsplit("\r", 1)[-1]


def cpython_table() -> str:
    source = f"lessons/{LESSON}"
    blocks = scan((ROOT / source).read_text(encoding="utf-8"), source)
    (cell,) = [to_cell(b) for b in blocks if b.lang == CELL and "seeds = " in b.body and "exercise" not in b.options]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(f"{cell.setup}\n{cell.code}", "<table cell>", "exec"), {"__name__": "__main__"})
    return printed.getvalue().rsplit("\r", 1)[-1]


def test_the_pages_table_is_the_one_cpython_prints(built_site: Path):
    built = built_table(built_site)
    assert built.count("\n") == 24 and "t5-sized" in built
    assert built == cpython_table()
