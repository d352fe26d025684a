"""The HTML of a runnable cell: highlighted code, toolbar, output, download note.

The build writes the cell's whole structure; ``assets/js/cell.js`` only finds
and enhances it (the class names and attributes both use are in
``assets/js/contract.json``).  Without JavaScript the cell reads as a highlighted
code block followed by the output it produced at build time and a ``<noscript>`` note
that says what a reader can do: the toolbar, whose buttons need JavaScript, stays
``hidden`` until the script reveals it, and the note about the download of a first
Run is shown only once the script has made the cell live (``course.css``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from markdown import Markdown

from .dom import CELL, CELL_DATA
from .fences import Cell
from .inputs import bindings, default_key, key_text
from .inputs_html import inputs_attrs, render_inputs
from .markup import Raw, tag, void
from .names import defined_names
from .outputs import Output
from .strings import s

FigureURL = Callable[[bytes], str]
NOTICES = {"capped": "info", "dropped": "dropped"}  # the output limit's notices, as cell.js shows them

_BUTTONS = [
    # (kind, icon path): the label is the catalogue's cell.<kind>, the title cell.<kind>_title
    ("run", "M8 5v14l11-7z"),
    ("stop", "M6 6h12v12H6z"),
    (
        "reset",
        "M12 5V1L7 6l5 5V7c3.31 0 6 2.69 6 6s-2.69 6-6 6-6-2.69-6-6H4c0 4.42 3.58 8 8 8s8-3.58 8-8-3.58-8-8-8z",
    ),
    (
        "copy",
        "M16 1H4a2 2 0 0 0-2 2v14h2V3h12zm3 4H8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2V7"
        "a2 2 0 0 0-2-2zm0 16H8V7h11z",
    ),
    (
        "clear",
        "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z",
    ),
]


def render_cell(
    cell: Cell,
    index: int,
    outputs: list[Output],
    md: Markdown,
    *,
    packages: list[str],
    download_note: str,
    figure_url: FigureURL,
    region_label: str | None = None,
    extra_attrs: dict[str, str] | None = None,
    header: Raw | None = None,
    footer: Raw | None = None,
    variants: dict[str, list[Output]] | None = None,
) -> str:
    """Return the cell's HTML; ``index`` numbers the cells of a page from 1.

    ``figure_url`` publishes a figure's PNG and returns its URL relative to the page.
    The cell is a region named ``region_label`` (default ``Python cell {index}``).
    An exercise (`exercises_html`) adds ``extra_attrs`` (its ``class`` joins the
    cell's), and ``header`` and ``footer``, inside the region around the cell's parts.
    A cell with inputs gets their fieldset above its output; ``variants`` are the outputs of the
    other combinations the build pre-rendered, by combination (`inputs.key_text`). A cell whose
    code is folded (`Cell.code_folded`: one with inputs, or ``code=folded``) shows its controls, its
    toolbar and its output first, and its code (and setup) in a ``<details>`` after them.
    """
    cell_id = f"cell-{index}"
    extra = dict(extra_attrs or {})
    attrs = {
        "class": f"{CELL['root']} {extra.pop('class')}" if "class" in extra else CELL["root"],
        "id": cell_id,
        "role": "region",
        "aria-label": region_label or s("cell.region", cell=index),
        CELL_DATA["index"]: index,
        CELL_DATA["autorun"]: str(cell.options.autorun).lower(),
        CELL_DATA["height"]: cell.options.height or "",
        CELL_DATA["code"]: cell.code,
        CELL_DATA["setup"]: cell.setup,
        "data-first-line": cell.code_line,
        "data-source-file": cell.block.path,
        CELL_DATA["packages"]: " ".join(packages),
        CELL_DATA["defines"]: " ".join(defined_names(_bindings(cell), cell.setup, cell.code)),
        CELL_DATA["alt"]: cell.options.alt,
        CELL_DATA["layout"]: "folded" if cell.code_folded else "shown",
        **inputs_attrs(cell.inputs),
        **extra,
    }
    label = region_label or s("cell.region", cell=index)
    legend = cell.options.label or cell.block.heading or s("inputs.legend", cell=label)
    code = [_setup(cell.setup, md), tag("div", {"class": CELL["static"]}, Raw(highlight_python(cell.code, md)))]
    toolbar = _toolbar(f"{cell_id}-hint")
    inputs = _inputs(cell, cell_id, legend, outputs, variants or {}, figure_url)
    shown = _outputs(outputs, figure_url, index)
    parts = [inputs, toolbar, shown, _folded_code(cell, code)] if cell.code_folded else [*code, toolbar, inputs, shown]
    return tag(
        "div",
        attrs,
        header,
        *parts,
        tag("noscript", {}, tag("p", {"class": f"{CELL['note']} {CELL['note']}--static"}, s("cell.no_script"))),
        tag("p", {"class": CELL["note"]}, download_note),
        footer,
    ).html


def _bindings(cell: Cell) -> str:
    """The lines binding the cell's inputs to their defaults ("" without inputs)."""
    return bindings(cell.inputs, default_key(cell.inputs)) if cell.inputs else ""


def _folded_code(cell: Cell, code: list[Raw | None]) -> Raw:
    """The cell's code (and setup) under a disclosure that says how long it is: closed, editable once opened."""
    lines = len(cell.code.splitlines())
    summary = s("cell.show_code", count=lines)
    return tag("details", {"class": CELL["code"]}, tag("summary", {"class": CELL["codeSummary"]}, summary), *code)


def _setup(setup: str, md: Markdown) -> Raw | None:
    """The cell's setup code, shown on request ("setup: 2 lines"); it runs before the code, every run."""
    if not setup.strip():
        return None
    lines = len(setup.strip("\n").splitlines())
    summary = s("cell.setup", count=lines)
    return tag(
        "details",
        {"class": CELL["setup"]},
        tag("summary", {"title": s("cell.setup_title")}, summary),
        Raw(highlight_python(setup.strip("\n"), md)),
    )


def _toolbar(hint_id: str) -> Raw:
    """The buttons (Stop disabled until a run), the run count, the status, the progress bar, the
    "edited" note and the keyboard hint: hidden until JS enhances."""
    buttons = [
        tag(
            "button",
            {
                "type": "button",
                "class": f"{CELL['button']} {CELL[kind]}",
                "title": s(f"cell.{kind}_title"),
                "disabled": kind == "stop",
            },
            tag("svg", {"viewBox": "0 0 24 24", "aria-hidden": "true", "focusable": "false"}, tag("path", {"d": icon})),
            tag("span", {}, s(f"cell.{kind}")),
        )
        for kind, icon in _BUTTONS
    ]
    return tag(
        "div",
        {"class": CELL["toolbar"], "hidden": True},
        *buttons,
        tag("span", {"class": CELL["count"], "hidden": True}),
        tag("span", {"class": CELL["status"], "role": "status"}),
        tag("progress", {"class": CELL["progress"], "aria-hidden": "true", "hidden": True}),
        tag("span", {"class": CELL["edited"], "hidden": True}, s("cell.edited")),
        tag("span", {"id": hint_id, "class": CELL["hint"]}, s("cell.keys")),
    )


def _inputs(
    cell: Cell, cell_id: str, legend: str, outputs: list[Output], variants: dict, figure_url: FigureURL
) -> Raw | None:
    """The inputs' fieldset, with every pre-rendered combination: the defaults' (the cell's output) and the others."""
    if not cell.inputs:
        return None
    shown = {key: output_parts(outs, figure_url) for key, outs in variants.items()}
    if shown and outputs:
        shown[key_text(default_key(cell.inputs))] = output_parts(outputs, figure_url)
    return render_inputs(cell.inputs, cell_id, legend, shown)


def _outputs(outputs: list[Output], figure_url: FigureURL, index: int) -> Raw:
    """The output region: build-time output, in the classes the live output uses; figures are separate files.

    Empty (and hidden) when there is none, for the output of a Run.
    """
    parts = output_parts(outputs, figure_url)
    label = tag("p", {"class": CELL["label"], "hidden": True}, s("cell.precomputed")) if parts else None
    attrs = {
        "class": CELL["output"],
        CELL_DATA["precomputed"]: str(bool(parts)).lower(),
        "role": "log",
        "aria-live": "polite",
        "aria-label": s("cell.output", cell=index),
        "tabindex": 0,
        "hidden": not parts,
    }
    return tag("div", attrs, label, *parts)


def output_parts(outputs: list[Output], figure_url: FigureURL) -> list[Raw]:
    """Build-time output as the page shows it: text in ``<pre>``, figures, the output limit's notices."""
    figures = 0
    parts = []
    for output in outputs:
        if output.kind == "figure":
            figures += 1
            parts.append(_figure(output, figures, figure_url))
        elif output.kind in NOTICES:
            notice = f"{CELL['notice']} {CELL['notice']}--{NOTICES[output.kind]}"
            parts.append(tag("p", {"class": notice}, output.text))
        else:
            parts.append(tag("pre", {"class": f"{CELL['out']} {CELL['out']}--{output.kind}"}, output.text))
    return parts


def _figure(output: Output, number: int, figure_url: FigureURL) -> Raw:
    """The figure in the light scheme and, when the build drew it, in the dark one: the page's
    CSS shows the one of the scheme in use (``data-scheme``), so switching the palette switches it."""
    alt = output.text or s("figure.alt", number=number)
    images = [_image(output.png, "default", alt, figure_url, output.text_px)]
    if output.png_dark:
        images.append(_image(output.png_dark, "slate", alt, figure_url, output.text_px))
    return tag("figure", {"class": f"{CELL['out']} {CELL['out']}--figure"}, *images)


def _image(png: bytes, scheme: str, alt: str, figure_url: FigureURL, text_px: float) -> Raw:
    """``data-text-px``: the font size of the figure's smallest text in the PNG's pixels."""
    width, height = _png_size(png)
    attrs = {"src": figure_url(png), "alt": alt, "width": width, "height": height, "loading": "lazy"}
    return void("img", {**attrs, "data-scheme": scheme, "data-text-px": text_px or None})


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def highlight_python(code: str, md: Markdown) -> str:
    """Highlight ``code`` as Python with the page's own SuperFences settings (``fences`` knows ``md``)."""
    fences = md.preprocessors["fenced_code_block"]
    fences.get_hl_settings()
    return fences.highlight(src=code, language="python", options={}, classes=[], id_value="", attrs={})
