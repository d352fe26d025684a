"""A page's course blocks, from its Markdown to what each fence becomes (builder-neutral).

`LessonBlocks` parses the page's fences once (`fences.tag_blocks`), checks them, runs
the cells, and keeps each block under its number until the Markdown renderer asks for
it by the ``course_block`` option of its fence. A fence without that option was added
after the page was parsed (by another plugin or an include): it is parsed when it is
asked for, numbered after the page's other blocks, and shown without build-time output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from .errors import LessonError
from .execute import PageExecutor, PageWork
from .exercises import Exercise, is_exercise, parse_exercise, parse_exercises
from .fences import BLOCK_ID, CELL, QUIZ, Block, Cell, fence_block, misspelled, tag_blocks, to_cell
from .outputs import Output
from .quiz import parse_quiz, render_quiz

EXERCISE = "exercise"  # the count of a page's exercises in `LessonBlocks.counts`


@dataclass(frozen=True)
class PendingCell:
    """A checked cell, its number on the page (from 1) and its build-time outputs."""

    cell: Cell
    index: int
    outputs: list[Output]
    variants: dict[str, list[Output]] = field(default_factory=dict)  # other pre-rendered combinations of its inputs


@dataclass(frozen=True)
class PendingExercise:
    """A checked (and, with a runner, proved) exercise, its number among the page's exercises
    and its cell's number among the page's cells (both from 1)."""

    exercise: Exercise
    number: int
    index: int


@dataclass(frozen=True)
class PendingQuiz:
    """A quiz, already rendered."""

    html: str


def page_work(blocks: list[Block]) -> tuple[list[Exercise], list[Cell], list[int]]:
    """A page's exercises, its other cells, in page order, and each cell's number on the page (cells and
    exercises share the numbering: ``<cell 4>`` in a traceback, ``id="cell-4"``). Raises `LessonError`."""
    exercises = parse_exercises(blocks)
    numbered = [
        (number, to_cell(block))
        for number, block in enumerate((block for block in blocks if block.lang == CELL), start=1)
        if not is_exercise(block)
    ]
    return exercises, [cell for _, cell in numbered], [number for number, _ in numbered]


def runs_of(markdown: str, path: str, first_line: int) -> PageWork | None:
    """What the build runs of a page (its cells and exercises), or None when the page does not parse.

    For `PageExecutor.run_pages` before the pages are built; a page that does not parse fails
    when `LessonBlocks` parses it, at its line.
    """
    try:
        exercises, cells, numbers = page_work(tag_blocks(markdown, path, first_line)[1])
    except LessonError:
        return None
    return PageWork(cells, exercises, numbers)


class LessonBlocks:
    """The ``pyodide`` and ``quiz`` blocks of one page, waiting to be rendered."""

    def __init__(self, markdown: str, path: str, first_line: int, runner: PageExecutor | None) -> None:
        """Parse, check and tag ``markdown``; run its cells with ``runner`` (None: no build-time run).

        ``first_line`` is the file's line of ``markdown``'s first line. Raises `LessonError`.
        """
        self.path = path
        self.misspelled = misspelled(markdown, path, first_line)
        """Fences whose language is a typo of ``pyodide`` or ``quiz``: the plugin warns at each."""
        self.markdown, blocks = tag_blocks(markdown, path, first_line)
        exercises, cells, numbers = page_work(blocks)
        quizzes = [parse_quiz(block) for block in blocks if block.lang == QUIZ]
        outputs = runner.run(cells, numbers) if runner and cells else [[] for _ in cells]
        variants = runner.variants(cells, numbers) if runner and cells else [{} for _ in cells]
        if runner:
            runner.prove(exercises)
        # Cells and exercises share the cell numbering (their elements' ids); exercises are numbered apart too.
        indices, exercise_numbers, quiz_numbers = count(1), count(1), count(1)
        cell_items, output_items, variant_items = iter(cells), iter(outputs), iter(variants)
        exercise_items, quiz_items = iter(exercises), iter(quizzes)
        self.blocks: dict[int, Block] = dict(enumerate(blocks, start=1))
        self.pending: dict[int, PendingCell | PendingExercise | PendingQuiz] = {}
        for number, block in self.blocks.items():
            if block.lang == QUIZ:
                self.pending[number] = PendingQuiz(render_quiz(next(quiz_items), next(quiz_numbers)))
            elif is_exercise(block):
                self.pending[number] = PendingExercise(next(exercise_items), next(exercise_numbers), next(indices))
            else:
                self.pending[number] = PendingCell(
                    next(cell_items), next(indices), next(output_items), next(variant_items)
                )
        self.counts = {CELL: len(cells) + len(exercises), EXERCISE: len(exercises), QUIZ: len(quizzes)}

    def take(self, lang: str, body: str, options: dict[str, str]) -> PendingCell | PendingExercise | PendingQuiz:
        """The block of a fence the renderer found: by its ``course_block`` number, else parsed now."""
        number = options.pop(BLOCK_ID, None)
        if number is not None:
            return self.pending.pop(int(number))
        block = fence_block(lang, body, options, self.path)
        if lang == QUIZ:
            self.counts[QUIZ] += 1
            return PendingQuiz(render_quiz(parse_quiz(block), self.counts[QUIZ]))
        self.counts[CELL] += 1
        if is_exercise(block):
            self.counts[EXERCISE] += 1
            return PendingExercise(parse_exercise(block), self.counts[EXERCISE], self.counts[CELL])
        return PendingCell(to_cell(block), self.counts[CELL], [])

    def check_all_taken(self) -> None:
        """Raise `LessonError` at the first block that the renderer never asked for."""
        if self.pending:
            block = self.blocks[min(self.pending)]
            typo = next((m for m in reversed(self.misspelled) if m.line < block.line), None)
            if typo:  # its closing line paired up with the next fence's opening: that is the cause
                later = f"; so the ```{block.lang} fence at line {block.line} is not rendered either"
                raise LessonError(typo.path, typo.line, typo.message + later)
            raise LessonError(
                self.path,
                block.line,
                f"this ```{block.lang} fence was not rendered; fences must start a line "
                "(inside admonitions and tabs, indent them like the text)",
            )
