"""The HTML of a runnable cell: highlighted code, precomputed output, download note.

Without JavaScript the cell reads as a highlighted code block followed by the
output it produced at build time; ``assets/js/cell.js`` turns it into an editor.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from markdown import Markdown

from .execute import Output
from .fences import Cell
from .markup import Raw, tag, void

FigureURL = Callable[[bytes], str]
NOTICES = {"capped": "info", "dropped": "dropped"}  # the output limit's notices, as cell.js shows them


def render_cell(
    cell: Cell,
    index: int,
    outputs: list[Output],
    md: Markdown,
    *,
    packages: list[str],
    download_note: str,
    figure_url: FigureURL,
) -> str:
    """Return the cell's HTML; ``index`` numbers the cells of a page from 1.

    ``figure_url`` publishes a figure's PNG and returns its URL relative to the page.
    """
    attrs = {
        "class": "course-cell",
        "id": f"cell-{index}",
        "data-cell-index": index,
        "data-autorun": str(cell.options.autorun).lower(),
        "data-height": cell.options.height or "",
        "data-code": cell.code,
        "data-setup": cell.setup,
        "data-first-line": cell.code_line,
        "data-source-file": cell.block.path,
        "data-packages": " ".join(packages),
    }
    return tag(
        "div",
        attrs,
        tag("div", {"class": "course-cell__static"}, Raw(_highlight(cell.code, md))),
        render_outputs(outputs, figure_url) if outputs else None,
        tag("p", {"class": "course-cell__note"}, download_note),
    ).html


def render_outputs(outputs: list[Output], figure_url: FigureURL) -> Raw:
    """Build-time output, in the classes the live output uses; figures are separate files."""
    figures = 0
    parts = []
    for output in outputs:
        if output.kind == "figure":
            figures += 1
            parts.append(_figure(output, figures, figure_url(output.png)))
        elif output.kind in NOTICES:
            notice = f"course-cell__notice course-cell__notice--{NOTICES[output.kind]}"
            parts.append(tag("p", {"class": notice}, output.text))
        else:
            parts.append(tag("pre", {"class": f"course-out course-out--{output.kind}"}, output.text))
    return tag(
        "div",
        {"class": "course-cell__output", "data-precomputed": "true", "role": "log", "aria-label": "Output"},
        *parts,
    )


def _figure(output: Output, number: int, source: str) -> Raw:
    width, height = _png_size(output.png)
    image = void(
        "img",
        {"src": source, "alt": output.text or f"Figure {number}", "width": width, "height": height, "loading": "lazy"},
    )
    return tag("figure", {"class": "course-out course-out--figure"}, image)


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _highlight(code: str, md: Markdown) -> str:
    """Highlight ``code`` as Python with the page's own SuperFences settings."""
    fences = md.preprocessors["fenced_code_block"]
    fences.get_hl_settings()
    return fences.highlight(src=code, language="python", options={}, md=md, classes=[], id_value="", attrs={})
