"""Find the course's fenced blocks in a page's Markdown, with their line numbers.

SuperFences hands a formatter the block's text but not where it came from. To
report ``lessons/<file>.md:<line>`` for a bad option, a broken quiz or a cell
that raises, the plugin parses each fence once, in the page's Markdown, into a
`Block` (`tag_blocks`), and writes the block's number into the fence's header
(``course_block="3"``) in place of its options; SuperFences passes that option back
to the formatter, which takes the block by its number. Option values may be quoted or
not (``height=10``, ``height="10"``): this parser reads both. A fence that another plugin or an include
adds later has no number: `fence_block` parses it from what SuperFences hands
over, without lines in the lesson's file.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import LessonError
from .inputs import PRECOMPUTE_DEFAULT, Input, parse_inputs
from .names import defined_names

CELL = "pyodide"
QUIZ = "quiz"
BLOCK_ID = "course_block"
"""Fence option carrying a block's number on its page (SuperFences option names allow no hyphen)."""

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_LANG = re.compile(r"^\{?\s*\.?(?P<lang>[\w-]+)")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*(?:\{[^}]*\})?[ \t]*$")
_HEADING_MARKUP = re.compile(r"[`*$]")
_OPTION = re.compile(r"""(?P<key>[A-Za-z][\w-]*)(?:=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>\S+)))?""")
_SECTION = re.compile(r"^#\s*---\s*(?P<name>[\w-]+)\s*---\s*$")

CELL_SECTIONS = ("setup", "inputs", "code")
CODE_LAYOUTS = ("shown", "folded")  # code=…: the code above its output, or folded under it (a cell with inputs)
EXERCISE_SECTIONS = ("task", "setup", "code", "check", "solution", "hint")  # in a fence with exercise="Title"
HEIGHT_RANGE = (3, 40)


@dataclass(frozen=True)
class CellOptions:
    """Options of a ``pyodide`` fence, after validation."""

    height: int | None = None  # editor height in lines; None fits the code
    autorun: bool = False  # run as soon as Python is ready
    execute: bool = True  # run at build time and embed the output
    precompute: int = PRECOMPUTE_DEFAULT  # pre-render every combination of the inputs up to this many
    code: str | None = None  # "shown" or "folded"; None: folded in a cell with inputs, else shown
    label: str | None = None  # the inputs' legend; None: the nearest heading above the cell
    alt: str | None = None  # its figures' alt text, {name} filled from the inputs and the cell's variables


@dataclass
class Block:
    """One ``pyodide`` or ``quiz`` fence of a page.

    ``line`` is the 1-based Markdown line of the opening fence; ``body_line``
    the line of the first body line, so body line ``k`` sits at
    ``body_line + k - 1``. A fence that is not in the lesson's file (made by
    another plugin) has ``line`` None and counts its body lines from 1.
    """

    lang: str
    path: str
    line: int | None
    body_line: int
    body: str
    options: dict[str, str] = field(default_factory=dict)
    heading: str = ""  # the text of the nearest heading above the fence ("" if none)

    def file_line(self, k: int) -> int | None:
        """The lesson file's line of body line ``k`` (0-based), if the fence is in the file."""
        return None if self.line is None else self.body_line + k


@dataclass(frozen=True)
class Section:
    """One ``# --- name ---`` section of a fence body, blank lines around it trimmed.

    ``marker_line`` is the Markdown line of its marker (of the first body line
    for a body without markers); ``line`` that of its first non-blank line.
    """

    name: str
    marker_line: int
    line: int
    text: str


@dataclass
class Cell:
    """A runnable cell: its code, its setup, options and where it is."""

    block: Block
    code: str
    setup: str
    code_line: int  # Markdown line of the first visible code line
    setup_line: int
    options: CellOptions
    inputs: tuple[Input, ...] = ()  # the ``# --- inputs ---`` section, parsed (`inputs`)

    @property
    def code_folded(self) -> bool:
        """Whether the page folds the code under the output: ``code=folded``, or inputs without ``code=shown``."""
        return self.options.code == "folded" or (self.options.code is None and bool(self.inputs))


def scan(markdown: str, path: str, first_line: int = 1) -> list[Block]:
    """Return the ``pyodide`` and ``quiz`` blocks of ``markdown`` in page order.

    Fences of any other language are skipped whole, so an author guide may
    show a ``pyodide`` fence inside a four-backtick ``markdown`` fence.
    ``first_line`` is the file's line of ``markdown``'s first line (after front matter).
    """
    return [block for block, _ in _iter_blocks(markdown.splitlines(), path, first_line - 1)]


def tag_blocks(markdown: str, path: str, first_line: int = 1) -> tuple[str, list[Block]]:
    """`scan` ``markdown``, and return it with block ``n``'s options replaced by ``course_block="n"``.

    The block keeps the options parsed here, where unquoted values (``height=10``) are fine;
    SuperFences, which requires quotes, never sees them.
    """
    lines = markdown.splitlines(keepends=True)
    blocks = []
    for number, (block, column) in enumerate(_iter_blocks(markdown.splitlines(), path, first_line - 1), start=1):
        index = block.line - first_line
        line = lines[index]
        brace = "}" if line.rstrip().endswith("}") else ""
        ending = line[len(line.rstrip("\r\n")) :]
        lines[index] = f'{line[:column]} {BLOCK_ID}="{number}"{brace}{ending}'
        blocks.append(block)
    return "".join(lines), blocks


def fence_block(lang: str, body: str, options: dict[str, str], path: str) -> Block:
    """The `Block` of a fence that SuperFences found but `tag_blocks` did not (no file lines)."""
    return Block(lang, path, None, 1, body.strip("\n"), dict(options))


@dataclass(frozen=True)
class Misspelling:
    """A fence whose language is a typo of ``pyodide`` or ``quiz``: Markdown shows it as plain code."""

    path: str
    line: int
    lang: str
    meant: str  # CELL or QUIZ

    @property
    def message(self) -> str:
        return (
            f"```{self.lang} fence: did you mean `{self.meant}`? As spelled, it is shown as plain code, "
            f"not as a {'cell' if self.meant == CELL else 'quiz'}"
        )

    def error(self) -> LessonError:
        return LessonError(self.path, self.line, self.message)


def misspelled(markdown: str, path: str, first_line: int = 1) -> list[Misspelling]:
    """The fences of ``markdown`` whose language is within two edits of ``pyodide`` or ``quiz``, in page order."""
    found = []
    for i, _, _, lang in _fences(markdown.splitlines()):
        meant = next((name for name in (CELL, QUIZ) if _edits(lang.lower(), name) <= 2), None)
        if meant and lang not in (CELL, QUIZ):
            found.append(Misspelling(path, first_line + i, lang, meant))
    return found


def _edits(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, start=1):
        row = [i]
        for j, y in enumerate(b, start=1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _fences(lines: list[str]) -> Iterator[tuple[int, int, re.Match[str], str]]:
    """Each fence of any language: its opening line's index, its closing line's, the opening match, the language."""
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if not opening:
            i += 1
            continue
        end = _closing_line(lines, i, opening["fence"])
        lang_match = _LANG.match(opening["info"])
        yield i, end, opening, lang_match["lang"] if lang_match else ""
        i = end + 1


def _iter_blocks(lines: list[str], path: str, offset: int) -> Iterator[tuple[Block, int]]:
    """Each block, with the column in its opening line where its options start."""
    heading, after = "", 0  # the nearest heading so far, and the first line not yet looked at
    for i, end, opening, lang in _fences(lines):
        heading = _last_heading(lines[after:i], heading)
        after = end + 1
        if lang not in (CELL, QUIZ):
            continue
        line = offset + i + 1
        if end == len(lines):
            raise LessonError(path, line, f"the ```{lang} fence is never closed")
        indent = len(opening["indent"])
        body = "\n".join(_dedent(text, indent) for text in lines[i + 1 : end])
        lang_end = _LANG.match(opening["info"]).end()
        options = _parse_options(opening["info"][lang_end:].rstrip("}"), path, line)
        yield Block(lang, path, line, line + 1, body, options, heading), opening.start("info") + lang_end


def _last_heading(lines: list[str], heading: str) -> str:
    """The text of the last ATX heading (``## Try it``) of ``lines``, without its markup; else ``heading``."""
    for text in lines:
        found = _HEADING.match(text)
        if found and found["text"].strip():
            heading = _HEADING_MARKUP.sub("", found["text"]).strip()
    return heading


def fence_end(lines: list[str], start: int) -> int:
    """Index of the line that closes the fence opening at ``lines[start]`` (``len(lines)`` if none)."""
    return _closing_line(lines, start, _FENCE_OPEN.match(lines[start])["fence"])


def _closing_line(lines: list[str], start: int, fence: str) -> int:
    """Index of the line closing the fence opened at ``start`` (or ``len(lines)``)."""
    closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for j in range(start + 1, len(lines)):
        if closing.match(lines[j]):
            return j
    return len(lines)


def _dedent(line: str, indent: int) -> str:
    stripped = len(line) - len(line.lstrip(" \t"))
    return line[min(indent, stripped) :]


def _parse_options(text: str, path: str, line: int) -> dict[str, str]:
    """Parse ``key="value"`` pairs of a fence header; a bare key means ``"true"``."""
    options: dict[str, str] = {}
    rest = text.strip()
    while rest:
        match = _OPTION.match(rest)
        if not match:
            raise LessonError(path, line, f"cannot read the fence option {rest.split()[0]!r}")
        value = next((v for v in match.group("dq", "sq", "bare") if v is not None), "true")
        options[match["key"]] = value
        rest = rest[match.end() :].lstrip()
    return options


def to_cell(block: Block) -> Cell:
    """Validate a ``pyodide`` block's options and split off its setup."""
    options = cell_options(block)
    sections = _split_sections(block)
    setup_line, setup = sections.get("setup", (block.body_line, ""))
    code_line, code = sections["code"]
    inputs_line, inputs_text = sections.get("inputs", (block.body_line, ""))
    inputs = parse_inputs(inputs_text, block.path, inputs_line)
    if "inputs" in sections and not inputs:
        raise LessonError(block.path, inputs_line, "the '# --- inputs ---' section defines no input")
    if "precompute" in block.options and not inputs:
        raise LessonError(block.path, block.line, "precompute=\"...\" needs an '# --- inputs ---' section in the cell")
    if options.alt is not None:
        _check_alt(block, options.alt, [item.name for item in inputs], defined_names(setup, code))
    return Cell(block, code, setup, code_line, setup_line, options, inputs)


def _check_alt(block: Block, alt: str, inputs: list[str], variables: list[str]) -> None:
    """Raise `LessonError` unless every ``{name}`` of ``alt`` is one of the cell's inputs or variables."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(alt) if field is not None]
    except ValueError as exc:
        raise LessonError(block.path, block.line, f'alt="{alt}": {exc} (write {{{{ and }}}} for braces)') from None
    for field_name in fields:
        name = re.split(r"[.\[]", field_name, maxsplit=1)[0]
        if name not in inputs and name not in variables:
            known = ", ".join([*inputs, *variables]) or "none"
            raise LessonError(
                block.path,
                block.line,
                f'alt="…{{{field_name}}}…": {name!r} is neither an input nor a variable of the cell '
                f"(they are: {known})",
            )


def cell_options(block: Block) -> CellOptions:
    known = {"height", "autorun", "execute", "precompute", "code", "label", "alt"}
    unknown = sorted(set(block.options) - known)
    if unknown:
        raise LessonError(
            block.path,
            block.line,
            f"unknown option {unknown[0]!r} on a ```pyodide fence (valid options: {', '.join(sorted(known))})",
        )
    return CellOptions(
        height=_height(block),
        autorun=_boolean(block, "autorun", default=False),
        execute=_boolean(block, "execute", default=True),
        precompute=_precompute(block),
        code=_choice(block, "code", CODE_LAYOUTS),
        label=_text(block, "label"),
        alt=_text(block, "alt"),
    )


def _choice(block: Block, name: str, choices: tuple[str, ...]) -> str | None:
    raw = block.options.get(name)
    if raw is not None and raw not in choices:
        allowed = " or ".join(f'"{choice}"' for choice in choices)
        raise LessonError(block.path, block.line, f'{name}="{raw}" must be {allowed}')
    return raw


def _text(block: Block, name: str) -> str | None:
    raw = block.options.get(name)
    if raw is not None and not raw.strip():
        raise LessonError(block.path, block.line, f'{name}="" needs a text')
    return raw.strip() if raw is not None else None


def _precompute(block: Block) -> int:
    raw = block.options.get("precompute")
    if raw is None:
        return PRECOMPUTE_DEFAULT
    if not raw.isdigit():
        raise LessonError(
            block.path, block.line, f'precompute="{raw}" must be a whole number of combinations (0: none)'
        )
    return int(raw)


def _height(block: Block) -> int | None:
    raw = block.options.get("height")
    if raw is None:
        return None
    low, high = HEIGHT_RANGE
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise LessonError(
            block.path, block.line, f'height="{raw}" must be a whole number of lines from {low} to {high}'
        )
    return int(raw)


def _boolean(block: Block, name: str, *, default: bool) -> bool:
    raw = block.options.get(name)
    if raw is None:
        return default
    if raw.lower() not in ("true", "false"):
        raise LessonError(block.path, block.line, f'{name}="{raw}" must be "true" or "false"')
    return raw.lower() == "true"


def _split_sections(block: Block) -> dict[str, tuple[int, str]]:
    """Split a cell body on ``# --- setup ---`` / ``# --- code ---`` marker lines.

    Returns ``{section: (Markdown line of its first line, text)}``. Without
    markers the whole body is code.
    """
    sections = {section.name: (section.line, section.text) for section in split_sections(block, CELL_SECTIONS)}
    if not sections.get("code", (0, ""))[1].strip():
        raise LessonError(block.path, block.line, "the ```pyodide cell has no visible code")
    return sections


def split_sections(block: Block, valid: tuple[str, ...], *, repeatable: tuple[str, ...] = ()) -> list[Section]:
    """Split a fence body on ``# --- name ---`` marker lines, in body order.

    A body without markers is one ``code`` section. Raises `LessonError` at the
    marker of an unknown section (of an exercise's section outside an exercise),
    of a second section of a name not in ``repeatable``, and at the body for
    text before the first marker.
    """
    lines = block.body.split("\n")
    markers: list[tuple[str, int]] = []
    for k, line in enumerate(lines):
        match = _SECTION.match(line.strip())
        if not match:
            continue
        name, where = match["name"], block.file_line(k)
        if name not in valid:
            raise LessonError(block.path, where, _misplaced(name, valid))
        if name not in repeatable and name in dict(markers):
            raise LessonError(block.path, where, f"section '# --- {name} ---' appears twice")
        markers.append((name, k))
    if not markers:
        markers = [("code", -1)]
    elif "\n".join(lines[: markers[0][1]]).strip():
        raise LessonError(block.path, block.file_line(0), "code before the first '# --- ... ---' marker")
    ends = [k for _, k in markers[1:]] + [len(lines)]
    return [
        Section(name, block.body_line + max(k, 0), *_section(block, lines[k + 1 : end], k + 1))
        for (name, k), end in zip(markers, ends, strict=True)
    ]


def _misplaced(name: str, valid: tuple[str, ...]) -> str:
    if name in EXERCISE_SECTIONS:
        return f"'# --- {name} ---' outside an exercise: exercise sections need exercise=\"Title\" on the fence"
    return f"unknown section '# --- {name} ---' (valid: {', '.join(valid)})"


def _section(block: Block, lines: list[str], start: int) -> tuple[int, str]:
    """Trim blank lines around a section; return its first Markdown line and text."""
    lead = next((k for k, line in enumerate(lines) if line.strip()), 0)
    return block.body_line + start + lead, "\n".join(lines[lead:]).rstrip()
