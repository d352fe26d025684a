"""A cell's HTML: what the script reads from its attributes, and the output it had at build time."""

from __future__ import annotations

import struct

from html_elements import Elements
from markdown import Markdown

from course_site.cells import render_cell
from course_site.execute import Output
from course_site.fences import scan, to_cell

PATH = "lessons/cells.md"
PAGE = '# C\n\n```pyodide height="8" autorun="true"\n# --- setup ---\nbase = 2\n# --- code ---\nprint(base < 3)\n```\n'


def png(width: int, height: int) -> bytes:
    """The start of a PNG: signature and IHDR chunk (whose start is all the size is read from)."""
    header = struct.pack(">II", width, height) + bytes([8, 6, 0, 0, 0])  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + header + b"\0\0\0\0"  # CRC not read


def render(page: str, outputs: list[Output], published: list[bytes] | None = None) -> Elements:
    """Render the page's first cell as cell 2; figures' PNGs are appended to ``published``."""
    published = [] if published is None else published

    def figure_url(data: bytes) -> str:
        published.append(data)
        return f"figures/{len(published)}.png"

    cell = to_cell(scan(page, PATH)[0])
    md = Markdown(extensions=["pymdownx.superfences"])
    html = render_cell(
        cell, 2, outputs, md, packages=["numpy", "matplotlib"], download_note="About 17 MB.", figure_url=figure_url
    )
    return Elements(html)


def output_blocks(rendered: Elements) -> list[tuple[str, str]]:
    """``(class, text)`` of each build-time output block."""
    return [(cls, text) for attrs, text in rendered.all("pre") if "course-out" in (cls := attrs.get("class") or "")]


def test_the_cell_carries_its_code_setup_options_and_origin():
    rendered = render(PAGE, [])
    root, _ = rendered.all("div")[0]
    assert {name: root[name] for name in root if name.startswith("data-") or name == "id"} == {
        "id": "cell-2",
        "data-cell-index": "2",
        "data-autorun": "true",
        "data-height": "8",
        "data-code": "print(base < 3)",
        "data-setup": "base = 2",
        "data-first-line": "7",
        "data-source-file": PATH,
        "data-packages": "numpy matplotlib",
    }
    assert root["class"] == "course-cell"
    assert [text for _, text in rendered.all("code")] == ["print(base < 3)\n"]
    static = [attrs for attrs, _ in rendered.all("div") if attrs.get("class") == "course-cell__static"]
    assert len(static) == 1
    assert ({"class": "nb"}, "print") in rendered.all("span")  # highlighted as Python: a builtin
    assert rendered.all("p")[-1] == ({"class": "course-cell__note"}, "About 17 MB.")
    assert output_blocks(rendered) == [] and rendered.all("figure") == []


def test_a_cell_without_options_is_neither_autorun_nor_sized():
    root, _ = render("```pyodide\nx = 1\n```\n", []).all("div")[0]
    assert (root["data-autorun"], root["data-height"], root["data-setup"]) == ("false", "", "")


def test_build_time_output_is_text_and_figures_are_numbered_images():
    published: list[bytes] = []
    outputs = [
        Output("stdout", "<b>not bold</b>\n"),
        Output("figure", "", png(640, 480)),
        Output("stderr", "careful\n"),
        Output("figure", "A sine wave", png(320, 200)),
        Output("figure", "", png(10, 20)),
    ]
    rendered = render(PAGE, outputs, published)
    region = [attrs for attrs, _ in rendered.all("div") if attrs.get("class") == "course-cell__output"]
    assert [(attrs["data-precomputed"], attrs["role"]) for attrs in region] == [("true", "log")]
    assert output_blocks(rendered) == [
        ("course-out course-out--stdout", "<b>not bold</b>\n"),
        ("course-out course-out--stderr", "careful\n"),
    ]
    assert rendered.all("b") == []
    images = [(a["src"], a["alt"], a["width"], a["height"], a["loading"]) for a, _ in rendered.all("img")]
    assert images == [
        ("figures/1.png", "Figure 1", "640", "480", "lazy"),
        ("figures/2.png", "A sine wave", "320", "200", "lazy"),
        ("figures/3.png", "Figure 3", "10", "20", "lazy"),
    ]
    assert published == [png(640, 480), png(320, 200), png(10, 20)]
    assert [attrs["class"] for attrs, _ in rendered.all("figure")] == ["course-out course-out--figure"] * 3
