"""The end of the course, written under the last lesson of ``nav``, and each lesson's exercises.

The last lesson's footer would lead on to whatever ``nav`` lists next (a guide for
authors): instead its "Next" is `END_TITLE`, a section at the end of that lesson
that lists what the course covered (every lesson of ``nav``, linked) and where to
go next (the plugin's ``course_end`` Markdown, then the course's home page).
Plain HTML: it reads the same without JavaScript.

`exercises_by_page` groups the course's exercise ids by page, for the sidebar's
progress ("2 / 4" beside each lesson, filled in by ``assets/js/nav_progress.js``
from the ``<script type="application/json" id="course-exercises">`` of every page).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .markup import Raw, tag
from .strings import parts, s

END_ID = "end-of-the-course"
EXERCISES_DATA_ID = "course-exercises"


@dataclass(frozen=True)
class Lesson:
    """A lesson of ``nav``: its title there and its URL relative to the page that links it."""

    title: str
    url: str


@dataclass(frozen=True)
class CourseEndLink:
    """What Material's footer reads of ``page.next_page``: the end section's URL and title."""

    url: str
    title: str = field(default_factory=lambda: s("end.title"))


def render_course_end(lessons: list[Lesson], next_steps_html: str, home_url: str) -> str:
    """The end-of-course section: what was covered, then where to go next."""
    covered = tag("ul", {}, *(tag("li", {}, tag("a", {"href": lesson.url}, lesson.title)) for lesson in lessons))
    return tag(
        "section",
        {"class": "course-end", "aria-labelledby": END_ID},
        tag("h2", {"id": END_ID}, s("end.title")),
        tag("p", {}, s("end.covered", count=len(lessons))),
        covered,
        tag("h3", {}, s("end.next")),
        Raw(next_steps_html),
        tag(
            "p",
            {},
            *parts(s("end.notebooks"), home=tag("a", {"href": home_url}, s("end.home"))),
        ),
    ).html


def exercises_by_page(exercise_ids: list[str]) -> dict[str, list[str]]:
    """``{page url: [its exercise ids]}``, from ids written ``<page url>#<slug>``, in page order."""
    pages: dict[str, list[str]] = {}
    for exercise_id in exercise_ids:
        pages.setdefault(exercise_id.rpartition("#")[0], []).append(exercise_id)
    return pages


def exercises_data(pages: dict[str, list[str]]) -> str:
    """The ``<script type="application/json">`` of each lesson's exercises (keys: URLs relative to the page)."""
    text = json.dumps(pages, ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{EXERCISES_DATA_ID}">{text}</script>'
