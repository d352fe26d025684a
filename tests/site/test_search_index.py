"""The site's search gives no answer away: what a lesson hides until the learner asks (an exercise's
solution, hints and check, a quiz's feedback and which option is right) is not in Material's
``search/search_index.json``; what the page shows (task statements, quiz questions and options) is.

Every lesson is read from its Markdown: each hidden line (of more than 15 characters) that the page's
visible text does not also hold must be absent from that page's entries in the built index.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from course_site.exercises import parse_exercises
from course_site.fences import scan
from course_site.quiz import parse_quiz

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "lessons").glob("*.md"))
MIN_CHARS = 15
MARKUP = re.compile(r"[`$*_\[\]()\\]|\{[^}]*\}")  # Markdown and math: the index holds their rendering


def normal(text: str) -> str:
    """Text as the index can be compared with: tags and entities gone, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def plain_runs(line: str) -> list[str]:
    """The runs of a Markdown line between its markup (code spans, math, emphasis, links)."""
    return [run.strip() for run in MARKUP.split(line) if len(run.strip()) > MIN_CHARS]


def hidden_lines(markdown: str, path: str) -> dict[str, list[str]]:
    """What the page hides, by kind: code lines (compared whole) and Markdown runs (between markup)."""
    blocks = scan(markdown, path)
    hidden: dict[str, list[str]] = {"solution": [], "check": [], "hint": [], "quiz feedback": []}
    for exercise in parse_exercises(blocks):
        hidden["solution"] += [line.strip() for line in exercise.solution.splitlines()]
        hidden["check"] += [line.strip() for line in exercise.check.splitlines()]
        hidden["hint"] += [run for hint in exercise.hints for line in hint.splitlines() for run in plain_runs(line)]
    for block in blocks:
        if block.lang == "quiz":
            for option in parse_quiz(block).options:
                hidden["quiz feedback"] += [run for line in option.explanation for run in plain_runs(line)]
    return {kind: [line for line in lines if len(line) > MIN_CHARS] for kind, lines in hidden.items()}


def hidden_line_numbers(markdown: str, path: str) -> set[int]:
    """The Markdown lines of what the page hides: solution, check and hint sections, quiz explanations."""
    blocks = scan(markdown, path)
    numbers: set[int] = set()
    for exercise in parse_exercises(blocks):
        spans = [(exercise.solution_line, exercise.solution), (exercise.check_line, exercise.check)]
        spans += list(zip(exercise.hint_lines, exercise.hints, strict=True))
        for first, text in spans:
            numbers |= set(range(first, first + len(text.splitlines())))
    for block in blocks:
        if block.lang == "quiz":
            for option in parse_quiz(block).options:
                numbers |= set(range(option.line + 1, option.line + 1 + len(option.explanation)))
    return numbers


def shown_text(markdown: str, path: str) -> str:
    """The lesson's Markdown without what it hides: a hidden line also written elsewhere (a starter's
    ``def``, a hint that repeats the text) is not a secret."""
    hidden = hidden_line_numbers(markdown, path)
    return " ".join(" ".join(line for k, line in enumerate(markdown.splitlines(), start=1) if k not in hidden).split())


@pytest.fixture(scope="module")
def index(built_site: Path) -> dict[str, str]:
    """Each lesson's text in the search index ("lessons/32-positional-encoding/" -> its entries' text)."""
    docs = json.loads((built_site / "search/search_index.json").read_text())["docs"]
    pages: dict[str, list[str]] = {}
    for doc in docs:
        page = doc["location"].split("#", 1)[0]
        pages.setdefault(page, []).append(f"{doc['title']} {doc['text']}")
    return {page: normal(" ".join(texts)) for page, texts in pages.items()}


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda path: path.stem)
def test_nothing_a_lesson_hides_is_in_the_search_index(index, lesson):
    markdown = lesson.read_text()
    path = f"lessons/{lesson.name}"
    searchable = index[f"lessons/{lesson.stem}/"]
    shown = shown_text(markdown, path)
    hidden = hidden_lines(markdown, path)
    assert sum(map(len, hidden.values())) >= 10, hidden  # the lesson hides something: the test reads it
    found = [
        (kind, line)
        for kind, lines in hidden.items()
        for line in lines
        if " ".join(line.split()) not in shown and normal(line) in searchable
    ]
    assert not found, f"{path}: the search index holds what the page hides: {found[:5]}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda path: path.stem)
def test_what_a_lesson_shows_stays_searchable(index, lesson):
    markdown = lesson.read_text()
    searchable = index[f"lessons/{lesson.stem}/"]
    blocks = scan(markdown, f"lessons/{lesson.name}")
    exercises = parse_exercises(blocks)
    assert exercises
    for exercise in exercises:
        assert normal(exercise.title) in searchable, exercise.title
        for run in plain_runs(exercise.task)[:3]:
            assert normal(run) in searchable, (exercise.title, run)
    for block in blocks:
        if block.lang == "quiz":
            quiz = parse_quiz(block)
            for run in plain_runs(quiz.question)[:2]:
                assert normal(run) in searchable, run
            for option in quiz.options:
                for run in plain_runs(option.text)[:1]:
                    assert normal(run) in searchable, run
