"""A page's course blocks, from its Markdown to what each fence becomes (builder-neutral).

`LessonBlocks` parses the page's fences once (`fences.tag_blocks`), checks them, runs
the cells, and keeps each block under its number until the Markdown renderer asks for
it by the ``course_block`` option of its fence. A fence without that option was added
after the page was parsed (by another plugin or an include): it is parsed when it is
asked for, numbered after the page's other blocks, and shown without build-time output.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LessonError
from .execute import Output, PageRunner
from .fences import BLOCK_ID, CELL, QUIZ, Block, Cell, fence_block, tag_blocks, to_cell
from .quiz import parse_quiz, render_quiz


@dataclass(frozen=True)
class PendingCell:
    """A checked cell, its number on the page (from 1) and its build-time outputs."""

    cell: Cell
    index: int
    outputs: list[Output]


@dataclass(frozen=True)
class PendingQuiz:
    """A quiz, already rendered."""

    html: str


class LessonBlocks:
    """The ``pyodide`` and ``quiz`` blocks of one page, waiting to be rendered."""

    def __init__(self, markdown: str, path: str, first_line: int, runner: PageRunner | None) -> None:
        """Parse, check and tag ``markdown``; run its cells with ``runner`` (None: no build-time run).

        ``first_line`` is the file's line of ``markdown``'s first line. Raises `LessonError`.
        """
        self.path = path
        self.markdown, blocks = tag_blocks(markdown, path, first_line)
        cells = [to_cell(block) for block in blocks if block.lang == CELL]
        quizzes = [parse_quiz(block) for block in blocks if block.lang == QUIZ]
        outputs = runner.run(cells) if runner and cells else [[] for _ in cells]
        cell_items = iter([PendingCell(*item) for item in zip(cells, range(1, len(cells) + 1), outputs, strict=True)])
        quiz_items = iter([PendingQuiz(render_quiz(quiz, n)) for n, quiz in enumerate(quizzes, start=1)])
        self.blocks: dict[int, Block] = dict(enumerate(blocks, start=1))
        self.pending: dict[int, PendingCell | PendingQuiz] = {
            number: next(cell_items if block.lang == CELL else quiz_items) for number, block in self.blocks.items()
        }
        self.counts = {CELL: len(cells), QUIZ: len(quizzes)}

    def take(self, lang: str, body: str, options: dict[str, str]) -> PendingCell | PendingQuiz:
        """The block of a fence the renderer found: by its ``course_block`` number, else parsed now."""
        number = options.pop(BLOCK_ID, None)
        if number is not None:
            return self.pending.pop(int(number))
        block = fence_block(lang, body, options, self.path)
        self.counts[lang] += 1
        if lang == CELL:
            return PendingCell(to_cell(block), self.counts[CELL], [])
        return PendingQuiz(render_quiz(parse_quiz(block), self.counts[QUIZ]))

    def check_all_taken(self) -> None:
        """Raise `LessonError` at the first block that the renderer never asked for."""
        if self.pending:
            block = self.blocks[min(self.pending)]
            raise LessonError(
                self.path,
                block.line,
                f"this ```{block.lang} fence was not rendered; fences must start a line "
                "(inside admonitions and tabs, indent them like the text)",
            )
