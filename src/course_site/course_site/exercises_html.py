"""The HTML of an exercise: its cell, plus title, check status, hints, solution.

An exercise is a cell (`cells.render_cell`) whose region is labelled
"Exercise N: Title" and holds the exercise's parts too. Without JavaScript the
page shows the starter code (in the cell), every hint and the solution, each in
a ``<details>``. ``assets/js/exercise.js`` enhances this markup; it relies on
these classes and attributes:

``.course-cell.course-exercise`` (the cell's root, ``role="region"``, ``aria-label="Exercise N: Title"``)
    ``data-exercise-id``: the learner's progress key, ``<page url>#<title slug>``;
    ``data-check-code``: the hidden check (sent with each run); ``data-solution``: the solution's code.
``.course-exercise__title`` (``id="exercise-<title slug>"``)
    the title, and the "Solved" badge ``.course-exercise__solved``, ``hidden`` until solved.
``.course-exercise__task``
    the task, Markdown rendered to HTML, above the editor (absent when the exercise has no task).
``.course-exercise__check`` (``role="status"``)
    the check's verdict after each run (``data-check="pass"`` or ``"fail"``).
``data-solutions``
    when "Show solution" appears: ``always``, ``after-check`` (after the first check) or ``after-pass``.
``.course-exercise__actions`` (``hidden`` without JavaScript)
    the ``button[data-action="hint"]`` and ``button[data-action="solution"]``, and the note
    ``.course-exercise__solution-note`` (``role="status"``) that says when the solution opens.
``details.course-exercise__hint`` (``data-hint="1"``, …)
    one per hint, in order.
``details.course-exercise__solution``
    like each hint, ``data-search-exclude``: Material's search leaves them out of its index.
    the solution's code in ``[aria-label="Solution"]``, and
    ``button[data-action="use-solution"]`` (``hidden`` without JavaScript).
``p.course-progress`` (``hidden`` without JavaScript)
    the course's progress, labelled "Your progress:", its count in ``.course-progress__count``;
    ``data-exercise-ids`` is the JSON list of every exercise's id.

What the page keeps hidden until the learner asks (hints, the solution) carries ``data-search-exclude``,
so that the site's search, which indexes every word of a page, does not give it away; the check's code
and the solution's are in attributes, which it never indexes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from .dom import CELL_DATA
from .exercises import Exercise, parse_exercises
from .fences import scan
from .markup import Raw, tag
from .strings import parts, s

ToHTML = Callable[[str], str]  # source text -> trusted HTML
RenderCell = Callable[..., str]  # cells.render_cell with the cell's own arguments bound
EXERCISE_CLASS = "course-exercise"
_PROGRESS = re.compile(r"(<h1\b[^>]*>.*?</h1>)", re.DOTALL)
SEARCH_EXCLUDE = "data-search-exclude"
"""Material's search plugin skips the text of an element with it, until the first end tag of that element's
name inside it (its parser matches elements by tag name): so it goes on a <details>, which holds no other."""


def exercise_label(exercise: Exercise, number: int) -> str:
    """The exercise region's accessible name: ``Exercise 1: The period of a pair``."""
    return s("exercise.label", number=number, title=exercise.title)


def exercise_id(exercise: Exercise, page_url: str) -> str:
    """The key of the learner's progress: the page's site-relative URL, ``#``, the title's slug."""
    return f"{page_url}#{exercise.slug}"


def render_exercise(
    exercise: Exercise,
    number: int,
    render_cell: RenderCell,
    *,
    page_url: str,
    markdown: ToHTML,
    highlight: ToHTML,
    solutions: str = "after-check",
) -> str:
    """Return the exercise's HTML: ``render_cell`` (of ``exercise.cell()``) given the exercise's parts.

    ``number`` numbers the exercises of a page from 1; ``markdown`` renders the
    task and a hint, ``highlight`` the solution's Python code; ``solutions`` is the site's rule
    (``exercises.SOLUTION_RULES``: from the start, after the first check, once the check passed),
    which the exercise's own ``solutions=`` overrides.
    """
    attrs = {
        "class": EXERCISE_CLASS,
        "data-exercise-id": exercise_id(exercise, page_url),
        CELL_DATA["check"]: exercise.check,
        "data-solution": exercise.solution,
        "data-solutions": exercise.solutions or solutions,
    }
    title = tag(
        "p",
        {"class": "course-exercise__title", "id": f"exercise-{exercise.slug}"},
        *parts(
            s("exercise.heading"), exercise=tag("strong", {}, s("exercise.number", number=number)), title=exercise.title
        ),
        " ",
        tag("span", {"class": "course-exercise__solved", "hidden": True}, s("exercise.solved")),
    )
    if exercise.task:
        task = tag("div", {"class": "course-exercise__task"}, Raw(markdown(exercise.task)))
        title = Raw(title.html + task.html)
    footer = Raw(
        "".join(
            part.html
            for part in (
                tag("p", {"class": "course-exercise__check", "role": "status", "aria-live": "polite"}),
                _actions(exercise),
                _hints(exercise, markdown),
                _solution(exercise, highlight),
            )
            if part is not None
        )
    )
    return render_cell(region_label=exercise_label(exercise, number), extra_attrs=attrs, header=title, footer=footer)


def _actions(exercise: Exercise) -> Raw:
    hint = tag("button", {"type": "button", "data-action": "hint"}, s("exercise.hint")) if exercise.hints else None
    count = tag("span", {"class": "course-exercise__hint-count"}) if exercise.hints else None
    return tag(
        "div",
        {"class": "course-exercise__actions", "hidden": True},
        hint,
        count,
        tag("button", {"type": "button", "data-action": "solution"}, s("exercise.show_solution")),
        tag("p", {"class": "course-exercise__solution-note", "role": "status", "aria-live": "polite"}),
    )


def _hints(exercise: Exercise, markdown: ToHTML) -> Raw | None:
    if not exercise.hints:
        return None
    total = len(exercise.hints)
    return tag(
        "div",
        {"class": "course-exercise__hints"},
        *(
            tag(
                "details",
                {"class": "course-exercise__hint", "data-hint": k, SEARCH_EXCLUDE: True},
                tag("summary", {}, s("exercise.hint_summary", number=k, count=total)),
                tag("div", {"class": "course-exercise__hint-text"}, Raw(markdown(hint))),
            )
            for k, hint in enumerate(exercise.hints, start=1)
        ),
    )


def _solution(exercise: Exercise, highlight: ToHTML) -> Raw:
    return tag(
        "details",
        {"class": "course-exercise__solution", SEARCH_EXCLUDE: True},
        tag("summary", {}, s("exercise.solution")),
        tag(
            "div",
            {"class": "course-exercise__solution-code", "role": "group", "aria-label": s("exercise.solution")},
            Raw(highlight(exercise.solution)),
        ),
        tag(
            "button",
            {"type": "button", "data-action": "use-solution", "hidden": True},
            s("exercise.use_solution"),
        ),
    )


def render_progress(exercise_ids: list[str]) -> str:
    """The home page's "Your progress: 3 of 7 exercises solved", filled in by ``exercise.js`` (``showProgress``)."""
    attrs = {"class": "course-progress", "data-exercise-ids": json.dumps(exercise_ids), "hidden": True}
    return tag(
        "p", attrs, tag("strong", {}, s("progress.label")), " ", tag("span", {"class": "course-progress__count"})
    ).html


def insert_progress(html: str, exercise_ids: list[str]) -> str:
    """The home page's HTML with the course's progress after its title (unchanged without exercises)."""
    if not exercise_ids:
        return html
    progress = render_progress(exercise_ids)
    html, found = _PROGRESS.subn(lambda title: title[1] + progress, html, count=1)
    return html if found else progress + html


def course_exercise_ids(pages: Iterable[tuple[str, str, str]]) -> list[str]:
    """Every exercise's id, from each page's ``(markdown, path, url)``, in page order.

    Raises `LessonError` at an exercise that does not parse.
    """
    return [
        exercise_id(exercise, url)
        for markdown, path, url in pages
        for exercise in parse_exercises(scan(markdown, path))
    ]
