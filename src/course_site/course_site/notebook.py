"""Each lesson as a Jupyter notebook to take home: ``lessons/<lesson>.ipynb``, linked from its page.

Written with ``nbformat`` and checked with ``nbformat.validate``, from the lesson's Markdown
source (so math stays TeX, which Jupyter renders) and the blocks the build parsed and ran
(`lesson_page.LessonBlocks`):

- the prose between blocks: Markdown cells (admonitions become block quotes). Words for the page
  only (``<!-- page -->…<!-- /page -->``) are left out and words for the notebook only
  (``<!-- notebook: … -->``, a comment on the page) are put in (`for_notebook`); a link to
  another lesson's ``.md`` file points at that lesson's page on the site, or at its notebook
  when the site has no real address (`is_placeholder`); a link to a heading of the page points
  at that heading in the notebook;
- a cell: one code cell, its setup first, with its build-time outputs (text, PNG); a cell with
  inputs starts with the values to change, each with its allowed values in a comment;
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
import json
import posixpath
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
from nbformat import v4

from .contract import PACKAGE, PYTHON_FILES
from .exercises import Exercise
from .fences import QUIZ, Cell, fence_end
from .inputs import Input, bindings, default_key
from .lesson_page import LessonBlocks, PendingCell, PendingExercise
from .markup import tag
from .outputs import Output
from .quiz import Quiz, parse_quiz
from .strings import current, s

LINK_CLASS = "course-notebook"
CHECKER = PYTHON_FILES[f"{PACKAGE}/exercise_check.py"]  # pasted whole into a notebook's first code cell
CHECKER_CELL = '''
def check_exercise(check: str) -> None:
    """Run an exercise's check over this notebook's names and print the verdict; never raises."""
    print(run_check(check, globals()).message)
'''
_CHECKER_T = '''import re


def t(key, /, **params):
    """A verdict's words (_WORDS, the course's), its {name} placeholders filled from params."""
    return re.sub(r"\\{(\\w+)\\}", lambda m: str(params.get(m[1], m[0])), _WORDS.get(key, key))


'''
KERNEL = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}
_H1 = re.compile(r"(<h1\b[^>]*>.*?</h1>)", re.DOTALL)
_ADMONITION = re.compile(r'^(?P<marker>!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)(?:\s+"(?P<title>[^"]*)")?\s*$')
PAGE_ONLY = re.compile(r"<!--\s*page\s*-->.*?<!--\s*/page\s*-->", re.DOTALL)
"""Words for the page only, between ``<!-- page -->`` and ``<!-- /page -->``: left out of the notebook."""
NOTEBOOK_ONLY = re.compile(r"<!--\s*notebook:\s*(?P<text>.*?)\s*-->", re.DOTALL)
"""Words for the notebook only, in a comment ``<!-- notebook: … -->`` that the page does not show."""
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$", re.MULTILINE)
PLACEHOLDER_LABELS = frozenset({"example"})
"""A host with one of these labels is made up (``example.com``, ``example.github.io``, ``docs.example``)."""
PLACEHOLDER_TLDS = frozenset({"example", "invalid", "test"})
"""Top-level names reserved for examples and tests (RFC 2606), never a site's real address."""


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
            cells.append(v4.new_markdown_cell(_plain_markdown(_links(for_notebook(prose), source))))
        if number is None:
            continue
        pending = blocks.pending.get(number)
        if isinstance(pending, PendingExercise):
            if not checker_added:
                cells.append(_checker_cell())
                checker_added = True
            cells.extend(_exercise_cells(pending.exercise, pending.number, source))
        elif isinstance(pending, PendingCell):
            cells.append(_code_cell(pending, counter))
        elif blocks.blocks[number].lang == QUIZ:
            quiz = _quiz_markdown(parse_quiz(blocks.blocks[number]))
            cells.append(v4.new_markdown_cell(_links(for_notebook(quiz), source)))
    for number, cell in enumerate(cells, start=1):
        cell["id"] = f"cell-{number}"  # nbformat's are random: the same lesson builds the same file
    notebook = v4.new_notebook(cells=cells, metadata=dict(KERNEL))
    nbformat.validate(notebook)
    return notebook


def is_placeholder(url: str) -> bool:
    """Whether ``url`` has a made-up host (a build without ``SITE_URL`` keeps ``mkdocs.yml``'s placeholder).

    >>> is_placeholder("https://example.github.io/transformer-course/"), is_placeholder("https://a.github.io/c/")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    labels = host.split(".")
    return not host or bool(PLACEHOLDER_LABELS.intersection(labels)) or labels[-1] in PLACEHOLDER_TLDS


def _introduction(source: Source) -> str:
    if not is_placeholder(source.page_url):
        intro = s("notebook.intro_online", url=source.page_url, install=source.install)
        return f"{intro} {s('notebook.run_in_order')}"
    title = next((m["text"] for m in _HEADING.finditer(source.markdown)), s("notebook.this_lesson"))
    wheel = next((word for word in source.install.split() if word.endswith(".whl")), "")
    on_site = _site_path(wheel, source.page_url)
    shipped = s("notebook.wheel", path=on_site, file=posixpath.basename(on_site)) if on_site else ""
    return f"{s('notebook.intro_offline', title=title, wheel=shipped)} {s('notebook.run_in_order')}"


def _site_path(url: str, page_url: str) -> str:
    """``url``'s path from the site's root: what follows the part it shares with the page's URL ("" if none)."""
    shared = posixpath.commonprefix([url, page_url])
    root = shared[: shared.rfind("/") + 1]
    return url[len(root) :] if url and "://" in root and root.count("/") >= 3 else ""


def for_notebook(markdown: str) -> str:
    """The Markdown as the notebook shows it: page-only words out, notebook-only words in."""
    return NOTEBOOK_ONLY.sub(lambda m: m["text"], PAGE_ONLY.sub("", markdown))


def _links(markdown: str, source: Source) -> str:
    """Links to another lesson's ``.md`` at its page (or, without a real address, its notebook); ``#slug`` at the
    notebook's heading of that slug (Jupyter names a heading by its text, spaces as ``-``)."""
    headings = _heading_ids(source.markdown)
    placeholder = is_placeholder(source.page_url)

    def target(match: re.Match[str]) -> str:
        href = match["target"]
        path, _, fragment = href.partition("#")
        if not path and fragment in headings:
            return f"[{match['text']}](#{headings[fragment]})"
        if urlsplit(path).scheme or not path.endswith(".md"):
            return match[0]
        suffix = f"#{fragment}" if fragment else ""
        if placeholder:
            return f"[{match['text']}]({path[: -len('.md')]}.ipynb{suffix})"
        return f"[{match['text']}]({_page_url(path, source.page_url)}{suffix})"

    return _LINK.sub(target, markdown)


def _page_url(md_path: str, page_url: str) -> str:
    """The site's URL of the page made from ``md_path`` (relative to the lesson's file), as the page links it."""
    stem = md_path[: -len(".md")]
    if page_url.endswith("/"):  # directory URLs: lessons/32-x.md is lessons/32-x/
        folder = urljoin(page_url, "../")
        name = stem[: -len("index")] if posixpath.basename(stem) == "index" else f"{stem}/"
    else:
        folder = urljoin(page_url, "./")
        name = f"{stem}.html"
    return urljoin(folder, name)


def _heading_ids(markdown: str) -> dict[str, str]:
    """Each heading's slug on the page (MkDocs' ``toc``) and its id in Jupyter (its text, spaces as ``-``)."""
    from markdown.extensions.toc import slugify

    ids = {}
    for match in _HEADING.finditer(markdown):
        text = re.sub(r"[`*]", "", match["text"])
        ids.setdefault(slugify(text, "-"), text.replace(" ", "-"))
    return ids


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
    """The prose as Jupyter's Markdown reads it.

    An admonition (``!!!``) becomes a block quote with a bold title; a collapsible one
    (``???``, folded, or ``???+``, open) becomes ``<details>`` with its title as the summary,
    so an answer folded on the page is folded in the notebook too.
    """
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
        if match["marker"] != "!!!":
            out.append(_details(title, "\n".join(body), opened=match["marker"] == "???+"))
            continue
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
    """The cell's inputs as its first lines, at their defaults, each with the values it may take in a comment."""
    if not cell.inputs:
        return code
    allowed = "".join(f"#   {i.name}: {_allowed(i)}\n" for i in cell.inputs)
    note = f"# {s('notebook.inputs')}\n{allowed}"
    return f"{note}{bindings(cell.inputs, default_key(cell.inputs))}\n{code}"


def _allowed(item: Input) -> str:
    """What an input may hold, in words: ``one of 2.0, 4.0``, ``a whole number from 0 to 63``, ``True or False``."""
    label = f"{item.label}, " if item.label and item.label != item.name else ""
    if item.kind == "checkbox":
        return label + s("notebook.bool")
    if item.kind == "select":
        return label + s("notebook.one_of", values=", ".join(map(repr, item.values)))
    low, high, step = (item.slider[k] for k in ("min", "max", "step"))
    kind = "notebook.number_range" if item.slider["float"] else "notebook.whole_range"
    steps = s("notebook.steps", step=repr(step)) if step != 1 else ""
    return label + s(kind, low=repr(low), high=repr(high), steps=steps)


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
            data = {"image/png": png, "text/plain": output.text or s("figure.alt", number=figures)}
            yield v4.new_output("display_data", data=data)
        else:  # the output limit's notices, an error's text
            yield v4.new_output("stream", name="stderr", text=output.text + "\n")
    if stream:
        yield v4.new_output("stream", name=stream[0], text="".join(stream[1]))


def _checker_cell() -> nbformat.NotebookNode:
    """The page's exercise checker and ``check_exercise``, the function each check cell calls."""
    intro = f"# {s('notebook.checker')}\n"
    # After the checker's own text, whose `from __future__` import must come first.
    checker = CHECKER.read_text().rstrip()
    return v4.new_code_cell(intro + checker + "\n\n" + _checker_words() + CHECKER_CELL.strip() + "\n")


def _checker_words() -> str:
    """The checker's verdicts in the site's language: its ``t``, over the catalogue's ``exercise.*`` strings."""
    words = {
        key: text for key, text in current().messages.items() if key.startswith("exercise.") and isinstance(text, str)
    }
    return f"_WORDS = {json.dumps(words, ensure_ascii=False, indent=4)}\n" + _CHECKER_T


def _exercise_cells(exercise: Exercise, number: int, source: Source) -> list[nbformat.NotebookNode]:
    """The task, the starter cell and the check cell of one exercise."""
    check = f"# {s('notebook.check', number=number)}\ncheck_exercise({_python_string(exercise.check)})"
    return [
        v4.new_markdown_cell(_links(for_notebook(_task_markdown(exercise, number)), source)),
        v4.new_code_cell(_code_source(exercise.setup, exercise.starter)),
        v4.new_code_cell(check),
    ]


def _task_markdown(exercise: Exercise, number: int) -> str:
    parts = [
        f"**{s('exercise.label', number=number, title=exercise.title)}**",
        *([exercise.task] if exercise.task else []),
        s("notebook.exercise"),
    ]
    for k, hint in enumerate(exercise.hints, start=1):
        parts.append(_details(s("notebook.hint", number=k), hint))
    parts.append(_details(s("exercise.solution"), f"```python\n{exercise.solution}\n```"))
    return "\n\n".join(parts)


def _details(summary: str, markdown: str, *, opened: bool = False) -> str:
    """A folded block (open if ``opened``); Jupyter renders Markdown between the tags when blank lines surround it."""
    tag = "<details open>" if opened else "<details>"
    return f"{tag}<summary>{summary}</summary>\n\n{markdown}\n\n</details>"


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
    link = tag("p", {"class": LINK_CLASS}, tag("a", {"href": href, "download": True}, s("notebook.link"))).html
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
