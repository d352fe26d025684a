"""Each lesson as a Jupyter notebook to take home: ``lessons/<lesson>.ipynb``, linked from its page.

Written with ``nbformat`` and checked with ``nbformat.validate``, from the lesson's Markdown
source (so math stays TeX, which Jupyter renders) and the blocks the build parsed and ran
(`lesson_page.LessonBlocks`):

- the prose between blocks: Markdown cells (admonitions become block quotes);
- a cell: one code cell, its setup first, with its build-time outputs (text, PNG);
- an exercise: its task (Markdown: title, hints and solution folded in ``<details>``), a code
  cell with its setup and starter, and a check cell ``check_exercise(...)``, which prints the
  verdict ("All checks passed." or what is not right yet) and never raises, so the notebook
  runs top to bottom as it is; the page's checker (``exercise_check.py``) comes in a code cell
  before the first exercise;
- a quiz: the question and its options, the answers folded.

Builder-neutral: the plugin collects the notebooks (`Notebooks`) and writes them at the end.
"""

from __future__ import annotations

import base64
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import v4

from .contract import PACKAGE, PYTHON_FILES
from .execute import Output
from .exercises import Exercise
from .fences import QUIZ, Cell, fence_end
from .inputs import bindings, default_key
from .lesson_page import LessonBlocks, PendingCell, PendingExercise
from .markup import tag
from .quiz import Quiz, parse_quiz

LINK_TEXT = "Download as notebook (.ipynb)"
LINK_CLASS = "course-notebook"
CHECKER = PYTHON_FILES[f"{PACKAGE}/exercise_check.py"]  # pasted whole into a notebook's first code cell
CHECKER_CELL = '''
def check_exercise(check: str) -> None:
    """Run an exercise's check over this notebook's names and print the verdict; never raises."""
    print(run_check(check, globals()).message)
'''
KERNEL = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}
_H1 = re.compile(r"(<h1\b[^>]*>.*?</h1>)", re.DOTALL)
_ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)(?:\s+"(?P<title>[^"]*)")?\s*$')


@dataclass(frozen=True)
class Source:
    """Where the notebook comes from: the page's Markdown (front matter stripped), the file's line of its first line."""

    markdown: str
    first_line: int
    page_url: str  # the lesson's URL on the site
    install: str  # the line that installs the course package (in the introduction)


def lesson_notebook(source: Source, blocks: LessonBlocks) -> nbformat.NotebookNode:
    """The notebook of one lesson page; ``blocks`` as the build parsed and ran them (before rendering)."""
    cells = [v4.new_markdown_cell(_introduction(source))]
    counter = _Counter()
    checker_added = False
    for prose, number in _pieces(source, blocks):
        if prose.strip():
            cells.append(v4.new_markdown_cell(_plain_markdown(prose)))
        if number is None:
            continue
        pending = blocks.pending.get(number)
        if isinstance(pending, PendingExercise):
            if not checker_added:
                cells.append(_checker_cell())
                checker_added = True
            cells.extend(_exercise_cells(pending.exercise, pending.number))
        elif isinstance(pending, PendingCell):
            cells.append(_code_cell(pending, counter))
        elif blocks.blocks[number].lang == QUIZ:
            cells.append(v4.new_markdown_cell(_quiz_markdown(parse_quiz(blocks.blocks[number]))))
    for number, cell in enumerate(cells, start=1):
        cell["id"] = f"cell-{number}"  # nbformat's are random: the same lesson builds the same file
    notebook = v4.new_notebook(cells=cells, metadata=dict(KERNEL))
    nbformat.validate(notebook)
    return notebook


def _introduction(source: Source) -> str:
    return (
        f"*This notebook is the lesson at <{source.page_url}>, to run in Jupyter. Its code needs numpy, "
        f"matplotlib and the course's package `posenc`:* `{source.install}`. *Run the cells in order: "
        "each may use what the cells above defined. An exercise's check cell says whether your code passes.*"
    )


def _pieces(source: Source, blocks: LessonBlocks) -> Iterator[tuple[str, int | None]]:
    """The prose before each block of the page's source and the block's number; the prose after the last, None."""
    lines = source.markdown.splitlines(keepends=True)
    start = 0
    for number, block in sorted(blocks.blocks.items()):
        if block.line is None:  # added by another plugin: not in the source
            continue
        opening = block.line - source.first_line
        yield "".join(lines[start:opening]), number
        start = fence_end(lines, opening) + 1
    yield "".join(lines[start:]), None


def _plain_markdown(text: str) -> str:
    """The prose as Jupyter's Markdown reads it: admonitions as block quotes with a bold title."""
    out: list[str] = []
    lines = textwrap.dedent(text).strip("\n").split("\n")
    k = 0
    while k < len(lines):
        match = _ADMONITION.match(lines[k])
        if not match:
            out.append(lines[k])
            k += 1
            continue
        body, k = _indented(lines, k + 1)
        title = match["title"] if match["title"] is not None else match["kind"].capitalize()
        quoted = [f"> **{title}**" if title else ">", ">", *(f"> {line}".rstrip() for line in body)]
        out.extend(quoted if body else quoted[:1])
    return "\n".join(out)


def _indented(lines: list[str], k: int) -> tuple[list[str], int]:
    """The block indented by four spaces from line ``k`` on (blank lines inside it kept), and the line after it."""
    body: list[str] = []
    while k < len(lines) and (lines[k].startswith("    ") or not lines[k].strip()):
        body.append(lines[k][4:])
        k += 1
    while body and not body[-1].strip():
        body.pop()
        k -= 1
    return body, k


@dataclass
class _Counter:
    """Jupyter's execution count of the cells that ran at build time, in page order."""

    value: int = 0

    def next(self) -> int:
        self.value += 1
        return self.value


def _code_source(setup: str, code: str) -> str:
    return f"{setup}\n\n{code}" if setup.strip() else code


def _code_cell(pending: PendingCell, counter: _Counter) -> nbformat.NotebookNode:
    """A cell's setup and code, with the outputs it gave at build time."""
    cell = pending.cell
    ran = cell.options.execute and bool(pending.outputs)
    count = counter.next() if cell.options.execute else None
    outputs = list(_outputs(pending.outputs, count)) if ran else []
    code = _code_source(cell.setup, cell.code)
    return v4.new_code_cell(_with_inputs(cell, code), execution_count=count, outputs=outputs)


def _with_inputs(cell: Cell, code: str) -> str:
    """The cell's inputs bound to their defaults above its code: the page's sliders are plain values here."""
    if not cell.inputs:
        return code
    note = "# The inputs of this cell on the page, at their defaults: change the values and run it again.\n"
    return f"{note}{bindings(cell.inputs, default_key(cell.inputs))}\n{code}"


def _outputs(outputs: list[Output], count: int | None) -> Iterator[nbformat.NotebookNode]:
    """Build-time outputs as Jupyter's: streams (consecutive chunks of one stream joined), results, figures."""
    figures = 0
    stream: tuple[str, list[str]] | None = None
    for output in outputs:
        if output.kind in ("stdout", "stderr") and stream and stream[0] == output.kind:
            stream[1].append(output.text)
            continue
        if stream:
            yield v4.new_output("stream", name=stream[0], text="".join(stream[1]))
            stream = None
        if output.kind in ("stdout", "stderr"):
            stream = (output.kind, [output.text])
        elif output.kind == "result":
            yield v4.new_output("execute_result", data={"text/plain": output.text}, execution_count=count)
        elif output.kind == "figure":
            figures += 1
            png = base64.b64encode(output.png).decode("ascii")
            data = {"image/png": png, "text/plain": output.text or f"Figure {figures}"}
            yield v4.new_output("display_data", data=data)
        else:  # the output limit's notices, an error's text
            yield v4.new_output("stream", name="stderr", text=output.text + "\n")
    if stream:
        yield v4.new_output("stream", name=stream[0], text="".join(stream[1]))


def _checker_cell() -> nbformat.NotebookNode:
    """The page's exercise checker and ``check_exercise``, the function each check cell calls."""
    intro = "# The exercises' checker, the one the lesson page runs: run this cell once, before the exercises.\n"
    return v4.new_code_cell(intro + CHECKER.read_text().rstrip() + "\n\n" + CHECKER_CELL.strip() + "\n")


def _exercise_cells(exercise: Exercise, number: int) -> list[nbformat.NotebookNode]:
    """The task, the starter cell and the check cell of one exercise."""
    check = (
        f"# Check exercise {number} (run your code above first); prints the verdict.\n"
        f"check_exercise({_python_string(exercise.check)})"
    )
    return [
        v4.new_markdown_cell(_task_markdown(exercise, number)),
        v4.new_code_cell(_code_source(exercise.setup, exercise.starter)),
        v4.new_code_cell(check),
    ]


def _task_markdown(exercise: Exercise, number: int) -> str:
    parts = [
        f"**Exercise {number}: {exercise.title}**",
        *([exercise.task] if exercise.task else []),
        "Edit the code in the cell below and run it, then run the check cell after it.",
    ]
    for k, hint in enumerate(exercise.hints, start=1):
        parts.append(_details(f"Hint {k}", hint))
    parts.append(_details("Solution", f"```python\n{exercise.solution}\n```"))
    return "\n\n".join(parts)


def _details(summary: str, markdown: str) -> str:
    """A folded block: Jupyter renders Markdown between the HTML tags when blank lines surround it."""
    return f"<details><summary>{summary}</summary>\n\n{markdown}\n\n</details>"


def _quiz_markdown(quiz: Quiz) -> str:
    options = "\n".join(f"- {option.text}" for option in quiz.options)
    answers = "\n".join(
        f"- {'**Right:**' if option.correct else 'Not this one:'} {option.text}  \n  {' '.join(option.explanation)}"
        for option in quiz.options
    )
    return f"**Quiz.** {quiz.question}\n\n{options}\n\n{_details('Answers', answers)}"


def _python_string(text: str) -> str:
    """``text`` as a Python literal that reads like the code: a raw triple-quoted string where one can hold it."""
    body = f"\n{text}\n"
    for quote in ("'''", '"""'):
        if quote not in text:
            return f"r{quote}{body}{quote}"
    return repr(text)


def notebook_path(src_uri: str) -> str:
    """Where a lesson's notebook is published, from the site's root: ``lessons/<name>.ipynb``."""
    return re.sub(r"\.md$", ".ipynb", src_uri)


def insert_link(html: str, href: str) -> str:
    """The page's HTML with the download link after its title (at the top without one)."""
    link = tag("p", {"class": LINK_CLASS}, tag("a", {"href": href, "download": True}, LINK_TEXT)).html
    if _H1.search(html):
        return _H1.sub(lambda m: m[1] + link, html, count=1)
    return link + html


@dataclass
class Notebooks:
    """The lessons' notebooks of one build, by site path, written at its end."""

    written: dict[str, str] = field(default_factory=dict)

    def add(self, path: str, source: Source, blocks: LessonBlocks) -> None:
        self.written[path] = nbformat.writes(lesson_notebook(source, blocks))

    def publish(self, site_dir: Path) -> None:
        for path, text in self.written.items():
            target = site_dir / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
