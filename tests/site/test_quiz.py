"""A quiz's HTML: right and wrong kept apart, and the structure that quiz.js and readers without it rely on."""

from __future__ import annotations

import pytest
from html_elements import Elements

from course_site.errors import LessonError
from course_site.fences import scan
from course_site.quiz import parse_quiz, render_quiz


def quiz_page(mark: str) -> str:
    return (
        "```quiz\nWhich one?\n\n"
        "- [ ] First.\n    Why not the first.\n"
        f"- [{mark}] Second.\n    Why the second.\n"
        "- [ ] Third.\n    Why not the third.\n```\n"
    )


def answers(html: str) -> list[tuple[str | None, str | None, str]]:
    """``(data-option, data-correct, label)`` of each answer in the details block."""
    rendered = Elements(html)
    labels = [text for _, text in rendered.all("strong")]
    items = [attrs for attrs, _ in rendered.all("li")]
    return [(item["data-option"], item["data-correct"], label) for item, label in zip(items, labels, strict=True)]


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
    assert answers(html) == [("0", "false", "Wrong: "), ("1", "true", "Right: "), ("2", "false", "Wrong: ")]


MATH_QUIZ = """\
```quiz
Which is *right*?
Second line of the question.

- [ ] $x^2$ of the first
    Why not the first.

    A second paragraph.
- [x] **Second**
    Why the second.
```
"""


def test_the_form_is_radios_in_a_fieldset_then_feedback_try_again_then_every_answer():
    rendered = Elements(render_quiz(parse_quiz(scan(MATH_QUIZ, "lessons/q.md")[0]), 3))

    def radio(value: str) -> list[tuple[str, dict[str, str | None]]]:
        return [
            ("div", {"class": "course-quiz__option"}),
            ("input", {"type": "radio", "id": f"quiz-3-{value}", "name": "quiz-3", "value": value}),
            ("label", {"for": f"quiz-3-{value}"}),
        ]

    assert rendered.tree() == [
        ("form", {"class": "course-quiz", "id": "quiz-3", "novalidate": None}),
        ("fieldset", {}),
        ("legend", {"class": "course-quiz__question"}),
        ("em", {}),
        *radio("0"),
        ("span", {"class": "arithmatex"}),
        *radio("1"),
        ("strong", {}),
        ("div", {"class": "course-quiz__feedback", "role": "status", "aria-live": "polite"}),
        ("button", {"type": "button", "class": "course-quiz__retry", "hidden": None}),
        ("details", {"class": "course-quiz__answers", "data-search-exclude": None}),  # not searchable
        ("summary", {}),
        ("ol", {}),
        ("li", {"data-option": "0", "data-correct": "false"}),
        ("p", {}),
        ("strong", {}),
        ("span", {"class": "arithmatex"}),
        ("div", {"class": "course-quiz__why"}),
        ("p", {}),
        ("p", {}),
        ("li", {"data-option": "1", "data-correct": "true"}),
        ("p", {}),
        ("strong", {}),
        ("strong", {}),
        ("div", {"class": "course-quiz__why"}),
        ("p", {}),
    ]
    texts = {name: [text for _, text in rendered.all(name)] for name in ("legend", "label", "summary", "p")}
    assert texts["legend"] == ["Which is right?\nSecond line of the question."]
    assert texts["label"] == ["\\(x^2\\) of the first", "Second"]
    assert texts["summary"] == ["Answers and explanations"]
    assert texts["p"] == [
        "Wrong: \\(x^2\\) of the first",
        "Why not the first.",
        "A second paragraph.",
        "Right: Second",
        "Why the second.",
    ]


ONE_RIGHT = "a quiz needs exactly one right option marked '- [x]'"


@pytest.mark.parametrize(
    ("page", "where", "message"),
    [
        ("```quiz shuffle\nQ?\n- [x] a\n    why\n- [ ] b\n    why\n```\n", 1, "a ```quiz fence takes no options"),
        ("```quiz\nQ?\n- [x] a\n    why\nnot indented\n- [ ] b\n    why\n```\n", 5, "text after the options must"),
        ("```quiz\nQ?\n- [x] a\n- [ ] b\n    why\n```\n", 3, "every option needs an explanation"),
        ("```quiz\nQ?\n- [x] a\n\n\n- [ ] b\n    why\n```\n", 3, "every option needs an explanation"),
        ("```quiz\n\n\n- [x] a\n    why\n- [ ] b\n    why\n```\n", 1, "the quiz has no question before its options"),
        ("```quiz\n- [x] a\n    why\n- [ ] b\n    why\n```\n", 1, "the quiz has no question before its options"),
        ("```quiz\nQ?\n- [x] a\n    why\n```\n", 1, "a quiz needs at least two options written as '- [ ] text'"),
        (
            "```quiz\nQ?\n- [ ] a\n    why\n- [ ] b\n    why\n```\n",
            3,  # the first option: where a '- [x]' belongs
            "a quiz needs exactly one right option marked '- [x]', found 0",
        ),
        (
            "```quiz\nQ?\n- [x] a\n    why\n- [x] b\n    why\n```\n",
            5,  # the second '- [x]'
            "a quiz needs exactly one right option marked '- [x]', found 2",
        ),
    ],
)
def test_a_bad_quiz_is_reported_at_its_line(page, where, message):
    with pytest.raises(LessonError) as caught:
        parse_quiz(scan(page, "lessons/q.md")[0])
    assert (caught.value.path, caught.value.line) == ("lessons/q.md", where)
    assert str(caught.value).startswith(f"lessons/q.md:{where}: {message}")


def test_explanations_may_be_indented_with_a_tab_and_keep_code_blocks():
    page = "```quiz\nQ?\n- [x] a\n\tWhy a.\n- [ ] b\n    Why not, in code:\n\n        b = 1\n```\n"
    quiz = parse_quiz(scan(page, "lessons/q.md")[0])
    assert [option.explanation for option in quiz.options] == [["Why a."], ["Why not, in code:", "", "    b = 1"]]
    codes = [text for _, text in Elements(render_quiz(quiz, 1)).all("code")]
    assert codes == ["b = 1\n"]
