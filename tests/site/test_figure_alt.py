"""The lessons' figures have alt text that says what they show, not only a title."""

from __future__ import annotations

import html
import re
from pathlib import Path

FIGURE_ALT = re.compile(r'<figure class="course-out course-out--figure"><img [^>]*\balt="([^"]*)"')
PLOT_KINDS = re.compile(r"\b(heatmaps?|line plots?|bar charts?|scatter plots?)\b", re.IGNORECASE)


def test_every_lesson_figure_says_what_kind_of_plot_it_is_and_what_is_on_it(built_site: Path):
    alts = {
        page.parent.name: [html.unescape(alt) for alt in FIGURE_ALT.findall(page.read_text())]
        for page in sorted((built_site / "lessons").glob("*/index.html"))
    }
    assert sum(len(found) for found in alts.values()) >= 5, alts
    for lesson, found in alts.items():
        for alt in found:
            assert PLOT_KINDS.search(alt), f"{lesson}: alt text names no kind of plot: {alt!r}"
            assert "axis" in alt or "positions by" in alt, f"{lesson}: alt text says nothing of its axes: {alt!r}"
