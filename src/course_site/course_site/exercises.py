"""Exercises: a ``pyodide`` fence with ``exercise="Title"``, split into its sections.

::

    ```pyodide exercise="The period of a pair" solutions="after-pass"
    # --- task ---
    Markdown: what the learner is asked to do, shown above the editor
    # --- setup ---
    (hidden code, run first)
    # --- code ---
    (the starter code the learner edits; it must fail the check)
    # --- check ---
    (hidden Python run after the learner's code, in the same namespace)
    # --- solution ---
    (a full solution; it must pass the check)
    # --- hint ---
    Markdown, revealed one hint at a time (any number of hints)
    ```

``solutions`` (optional) is when "Show solution" appears for this exercise: ``always``,
``after-check`` (after the learner's first check) or ``after-pass`` (once the check passed);
without it, the site's rule (the plugin's ``solutions`` option) applies.

Parsing and validation only; ``exercises_html`` writes the HTML and
``execute.PageExecutor.prove`` proves the exercises at build time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .errors import LessonError
from .fences import CELL, EXERCISE_SECTIONS, Block, Cell, CellOptions, Section, cell_options, split_sections

EXERCISE = "exercise"  # the fence option that makes a cell an exercise; its value is the title
SOLUTIONS = "solutions"  # the fence option of this exercise's rule for its solution (exercises_html.SOLUTION_RULES)
SOLUTION_RULES = ("always", "after-check", "after-pass")
OPTIONS = (EXERCISE, "height", SOLUTIONS)
REQUIRED = (("code", "starter code"), ("check", "check"), ("solution", "solution"))


@dataclass(frozen=True)
class Exercise:
    """One exercise; every ``*_line`` is the Markdown line where that section's text starts."""

    title: str
    setup: str
    starter: str
    check: str
    solution: str
    hints: tuple[str, ...]  # Markdown source, in the order they are revealed
    block: Block = field(compare=False, repr=False)  # the fence
    setup_line: int
    starter_line: int
    check_line: int
    solution_line: int
    hint_lines: tuple[int, ...]
    height: int | None = None  # editor height in lines; None fits the code
    task: str = ""  # Markdown source of the task, shown above the editor; "" for none
    task_line: int | None = None
    solutions: str | None = None  # when its solution appears (SOLUTION_RULES); None: the site's rule

    @property
    def path(self) -> str:
        return self.block.path

    @property
    def line(self) -> int:
        """The Markdown line of the opening fence."""
        return self.block.line

    @property
    def slug(self) -> str:
        """The title in URL form: ``the-period-of-a-pair``; unique on its page."""
        return re.sub(r"\W+", "-", self.title.lower()).strip("-") or EXERCISE

    def cell(self) -> Cell:
        """The runnable part: the starter as the cell's code, the setup hidden; not run at build time."""
        options = CellOptions(height=self.height, execute=False)  # autorun is off by default
        return Cell(self.block, self.starter, self.setup, self.starter_line, self.setup_line, options)


def is_exercise(block: Block) -> bool:
    return block.lang == CELL and EXERCISE in block.options


def parse_exercises(blocks: list[Block]) -> list[Exercise]:
    """The page's exercises in page order; two with the same title are an error at the second."""
    exercises = [parse_exercise(block) for block in blocks if is_exercise(block)]
    seen: dict[str, Exercise] = {}
    for exercise in exercises:
        first = seen.setdefault(exercise.slug, exercise)
        if first is not exercise:
            raise LessonError(
                exercise.path,
                exercise.line,
                f'two exercises of this page are titled "{exercise.title}" (the first at line {first.line}); '
                "titles name the learner's saved progress, so they must differ",
            )
    return exercises


def parse_exercise(block: Block) -> Exercise:
    """Split an exercise fence into its sections; raise `LessonError` at the offending line."""
    _check_options(block)
    title = _title(block)
    cell_only = {name: value for name, value in block.options.items() if name not in (EXERCISE, SOLUTIONS)}
    height = cell_options(replace(block, options=cell_only)).height
    solutions = _solutions(block)
    sections = split_sections(block, EXERCISE_SECTIONS, repeatable=("hint",))
    named = {section.name: section for section in sections}
    for name, what in REQUIRED:
        if name not in named:
            raise LessonError(
                block.path, block.line, f"the exercise \"{title}\" has no {what} (a '# --- {name} ---' section)"
            )
    for section in sections:
        if section.name != "setup" and not section.text.strip():
            raise LessonError(block.path, section.marker_line, f"the exercise's '# --- {section.name} ---' is empty")
    hints = [section for section in sections if section.name == "hint"]
    task = named.get("task")
    parts = {  # each gives the exercise a text and the line it starts at (``<name>_line``)
        "setup": named.get("setup", Section("setup", block.body_line, block.body_line, "")),
        "starter": named["code"],
        "check": named["check"],
        "solution": named["solution"],
    }
    return Exercise(
        title=title,
        hints=tuple(hint.text for hint in hints),
        block=block,
        hint_lines=tuple(hint.line for hint in hints),
        height=height,
        task=task.text if task else "",
        task_line=task.line if task else None,
        solutions=solutions,
        **{name: part.text for name, part in parts.items()},
        **{f"{name}_line": part.line for name, part in parts.items()},
    )


def _check_options(block: Block) -> None:
    unknown = sorted(set(block.options) - set(OPTIONS))
    if unknown:
        raise LessonError(
            block.path,
            block.line,
            f"unknown option {unknown[0]!r} on an exercise (valid options: {', '.join(sorted(OPTIONS))})",
        )


def _solutions(block: Block) -> str | None:
    rule = block.options.get(SOLUTIONS)
    if rule is None or rule in SOLUTION_RULES:
        return rule
    raise LessonError(
        block.path,
        block.line,
        f"solutions={rule!r} on an exercise: when its solution appears is one of {', '.join(SOLUTION_RULES)}",
    )


def _title(block: Block) -> str:
    title = block.options[EXERCISE].strip()
    # A bare `exercise` option reads as "true" (see fences._parse_options).
    if not title or block.options[EXERCISE] == "true":
        raise LessonError(
            block.path, block.line, 'an exercise needs a title: exercise="The period of a pair" on the fence'
        )
    return title
