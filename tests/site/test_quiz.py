"""A quiz's HTML keeps right and wrong apart: the mark, the label and the data the script reads."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from course_site.fences import scan
from course_site.quiz import parse_quiz, render_quiz


class AnswerList(HTMLParser):
    """A rendered quiz: its radio values, and ``(data-option, data-correct, label)`` per answer ``<li>``."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.radios: list[str | None] = []
        self.answers: list[tuple[str, str, str]] = []
        self._label: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "input" and found.get("type") == "radio":
            self.radios.append(found["value"])
        elif tag == "li":
            self.answers.append((found["data-option"], found["data-correct"], ""))
        elif tag == "strong" and self.answers and not self.answers[-1][2]:
            self._label = []

    def handle_data(self, data: str) -> None:
        if self._label is not None:
            self._label.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "strong" and self._label is not None:
            option, correct, _ = self.answers[-1]
            self.answers[-1] = (option, correct, "".join(self._label))
            self._label = None


def quiz_page(mark: str) -> str:
    return (
        "```quiz\nWhich one?\n\n"
        "- [ ] First.\n    Why not the first.\n"
        f"- [{mark}] Second.\n    Why the second.\n"
        "- [ ] Third.\n    Why not the third.\n```\n"
    )


@pytest.mark.parametrize("mark", ["x", "X"])
def test_x_of_either_case_marks_the_one_right_option(mark):
    quiz = parse_quiz(scan(quiz_page(mark), "lessons/q.md")[0])
    assert [(option.text, option.correct, option.line) for option in quiz.options] == [
        ("First.", False, 4),
        ("Second.", True, 6),
        ("Third.", False, 8),
    ]


def test_only_the_right_option_is_rendered_right():
    html = render_quiz(parse_quiz(scan(quiz_page("x"), "lessons/q.md")[0]), 1)
    rendered = AnswerList(html)
    assert rendered.radios == ["0", "1", "2"]
    assert rendered.answers == [("0", "false", "Wrong: "), ("1", "true", "Right: "), ("2", "false", "Wrong: ")]
