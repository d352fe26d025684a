"""Quizzes written in Markdown.

A ``quiz`` fence holds the question, then a task list of options; ``[x]`` marks
the one right answer and the indented text under each option explains it::

    ```quiz
    Why does a Transformer need positional encoding?

    - [ ] Because attention is slow.
        Speed has nothing to do with order.
    - [x] Because self-attention is permutation-equivariant.
        Without a positional signal it sees a set of tokens.
    ```

The HTML is a form of radio inputs in a fieldset, plus a ``<details>`` block
with every answer and explanation, readable without JavaScript and left out of the
site's search index (``data-search-exclude``: a search would tell the right option);
``assets/js/quiz.js`` hides that block until the learner answers, adds the feedback
as an option is chosen, keeps the answer across reloads and reveals the
**Try again** button (``hidden`` without JavaScript) that forgets it (the class names
and attributes both use are in ``assets/js/contract.json``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown import Markdown

from .dom import QUIZ, QUIZ_DATA
from .errors import LessonError
from .fences import Block
from .markup import Raw, tag, void
from .strings import s

_OPTION = re.compile(r"^[-*] \[(?P<mark>[ xX])\][ \t]+(?P<text>.+)$")
_INLINE_EXTENSIONS = ["pymdownx.arithmatex", "pymdownx.betterem", "pymdownx.inlinehilite", "attr_list"]


@dataclass
class Option:
    text: str
    correct: bool
    line: int | None  # in the lesson file; None for a fence made by another plugin
    explanation: list[str] = field(default_factory=list)


@dataclass
class Quiz:
    question: str
    options: list[Option]


def parse_quiz(block: Block) -> Quiz:
    """Parse a ``quiz`` block; raise `LessonError` at the offending line."""
    if block.options:
        raise LessonError(block.path, block.line, f"a ```quiz fence takes no options, got {sorted(block.options)}")
    question: list[str] = []
    options: list[Option] = []
    for k, line in enumerate(block.body.split("\n")):
        match = _OPTION.match(line)
        if match:
            options.append(Option(match["text"].strip(), match["mark"] != " ", block.file_line(k)))
        elif options:
            _continue_option(block, options[-1], line, block.file_line(k))
        else:
            question.append(line)
    _check(block, " ".join(question).strip(), options)
    return Quiz("\n".join(question).strip(), options)


def _continue_option(block: Block, option: Option, line: str, number: int) -> None:
    if line.strip() and not line.startswith((" ", "\t")):
        raise LessonError(
            block.path, number, "text after the options must be indented under an option (its explanation)"
        )
    option.explanation.append(line[4:] if line.startswith("    ") else line.strip())


def _check(block: Block, question: str, options: list[Option]) -> None:
    if not question:
        raise LessonError(block.path, block.line, "the quiz has no question before its options")
    if len(options) < 2:
        raise LessonError(block.path, block.line, "a quiz needs at least two options written as '- [ ] text'")
    right = [option for option in options if option.correct]
    if not right:
        raise LessonError(
            block.path,
            options[0].line,
            "a quiz needs exactly one right option marked '- [x]', found 0: mark the right one '- [x]'",
        )
    if len(right) > 1:
        lines = ", ".join(str(option.line) for option in right)
        raise LessonError(
            block.path,
            right[1].line,
            f"a quiz needs exactly one right option marked '- [x]', found {len(right)} (lines {lines}): "
            "keep '- [x]' on the right one, '- [ ]' on the others",
        )
    for option in options:
        if not "\n".join(option.explanation).strip():
            raise LessonError(
                block.path, option.line, "every option needs an explanation, indented on the lines below it"
            )


def render_quiz(quiz: Quiz, number: int) -> str:
    """Return the quiz's HTML; ``number`` numbers the quizzes of a page from 1."""
    convert = markdown_converter()
    quiz_id = f"quiz-{number}"
    choices = [
        tag(
            "div",
            {"class": QUIZ["option"]},
            void("input", {"type": "radio", "id": f"{quiz_id}-{i}", "name": quiz_id, "value": i}),
            tag("label", {"for": f"{quiz_id}-{i}"}, Raw(convert(option.text, inline=True))),
        )
        for i, option in enumerate(quiz.options)
    ]
    answers = [
        tag(
            "li",
            {QUIZ_DATA["option"]: i, QUIZ_DATA["correct"]: str(option.correct).lower()},
            tag(
                "p",
                {},
                tag("strong", {}, s("quiz.right" if option.correct else "quiz.wrong")),
                Raw(convert(option.text, inline=True)),
            ),
            tag("div", {"class": QUIZ["why"]}, Raw(convert("\n".join(option.explanation)))),
        )
        for i, option in enumerate(quiz.options)
    ]
    return tag(
        "form",
        {"class": QUIZ["root"], "id": quiz_id, "novalidate": True},
        tag(
            "fieldset",
            {},
            tag("legend", {"class": QUIZ["question"]}, Raw(convert(quiz.question, inline=True))),
            *choices,
        ),
        tag("div", {"class": QUIZ["feedback"], "role": "status", "aria-live": "polite"}),
        tag("button", {"type": "button", "class": QUIZ["retry"], "hidden": True}, s("quiz.retry")),
        tag(
            "details",
            {"class": QUIZ["answers"], "data-search-exclude": True},  # which option is right, and why
            tag("summary", {}, s("quiz.answers")),
            tag("ol", {}, *answers),
        ),
    ).html


def markdown_converter():
    """Convert quiz Markdown with a child Markdown that writes math as the page does."""
    child = Markdown(
        extensions=_INLINE_EXTENSIONS,
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )

    def convert(text: str, *, inline: bool = False) -> str:
        html = child.reset().convert(text)
        if inline:
            html = re.sub(r"^<p>(.*)</p>$", r"\1", html, flags=re.DOTALL)
        return html

    return convert
