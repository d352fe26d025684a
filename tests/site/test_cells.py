"""A cell's HTML: what the script reads from its attributes, and the output it had at build time."""

from __future__ import annotations

import re
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
        "data-defines": "base",
        "data-code-layout": "shown",
    }
    assert root["class"] == "course-cell"
    assert [text for _, text in rendered.all("code")] == ["base = 2\n", "print(base < 3)\n"]  # setup, then code
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


TOOLBAR = [  # (kind, the button's text, its tooltip)
    ("run", "Run", "Run this cell (Shift+Enter)"),
    ("stop", "Stop", "Stop this cell"),
    ("reset", "Reset", "Put back the lesson's code (undo with Ctrl+Z)"),
    ("copy", "Copy", "Copy the code to the clipboard"),
    ("clear", "Clear", "Clear the output"),
]
_PATH_COMMAND = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)")
_PATH_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)")
_PATH_ARITY = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}


def path_points(d: str) -> list[tuple[float, float]]:
    """Every end and control point of an SVG path's data, in absolute coordinates (of an arc: its end)."""
    assert re.fullmatch(r"(?:[MmLlHhVvCcSsQqTtAaZz][-\d.\s,]*)+", d), f"not SVG path data: {d!r}"
    x = y = start_x = start_y = 0.0
    points = []
    for letter, args in _PATH_COMMAND.findall(d):
        numbers = [float(n) for n in _PATH_NUMBER.findall(args)]
        command, relative = letter.lower(), letter.islower()
        arity = _PATH_ARITY[command]
        assert (numbers and len(numbers) % arity == 0) if arity else not numbers, f"bad arguments in {d!r}"
        if command == "z":
            x, y = start_x, start_y
            continue
        for group in (numbers[i : i + arity] for i in range(0, len(numbers), arity)):
            origin_x, origin_y = (x, y) if relative else (0.0, 0.0)
            if command == "h":
                x = origin_x + group[0]
            elif command == "v":
                y = origin_y + group[0]
            else:
                pairs = [group[5:7]] if command == "a" else [group[i : i + 2] for i in range(0, arity, 2)]
                points += [(origin_x + px, origin_y + py) for px, py in pairs[:-1]]
                x, y = origin_x + pairs[-1][0], origin_y + pairs[-1][1]
            points.append((x, y))
            if command == "m":
                start_x, start_y, command = x, y, "l"  # further pairs after a moveto are linetos
    return points


def test_the_toolbar_is_hidden_until_the_script_reveals_it_and_names_each_control():
    rendered = render(PAGE, [])
    tree = rendered.tree()
    start = tree.index(("div", {"class": "course-cell__toolbar", "hidden": None}))
    icon = {"viewbox": "0 0 24 24", "aria-hidden": "true", "focusable": "false"}
    expected = []
    for kind, _, title in TOOLBAR:
        button = {"type": "button", "class": f"course-cell__button course-cell__button--{kind}", "title": title}
        if kind == "stop":  # no run to stop yet
            button["disabled"] = None
        expected += [("button", button), ("svg", icon), ("path", {"d": "(icon)"}), ("span", {})]
    expected += [
        ("span", {"class": "course-cell__count", "hidden": None}),
        ("span", {"class": "course-cell__status", "role": "status"}),
        ("progress", {"class": "course-cell__progress", "aria-hidden": "true", "hidden": None}),
        ("span", {"class": "course-cell__edited", "hidden": None}),
        ("span", {"id": "cell-2-hint", "class": "course-cell__hint"}),
    ]
    found = [(name, {**attrs, "d": "(icon)"} if name == "path" else attrs) for name, attrs in tree[start + 1 :]]
    assert found[: len(expected)] == expected
    assert [text for _, text in rendered.all("button")] == [label for _, label, _ in TOOLBAR]
    spans = dict((attrs.get("class"), text) for attrs, text in rendered.all("span"))
    assert spans["course-cell__edited"] == "edited; Reset restores the lesson's code"
    assert spans["course-cell__hint"] == (
        "Shift+Enter or Ctrl+Enter runs the cell. Tab indents; press Escape, then Tab, to leave the editor."
    )
    assert spans["course-cell__count"] == spans["course-cell__status"] == ""


def test_each_toolbar_icon_is_path_data_that_fills_its_24_unit_box():
    icons = [attrs["d"] for attrs, _ in render(PAGE, []).all("path")]
    assert len(icons) == len(TOOLBAR)
    for d in icons:
        xs, ys = zip(*path_points(d), strict=True)
        assert 0 <= min(xs) and max(xs) <= 24 and 0 <= min(ys) and max(ys) <= 24, d
        assert max(xs) - min(xs) >= 10 and max(ys) - min(ys) >= 10, d  # not a speck in a corner
        assert abs((min(xs) + max(xs)) / 2 - 12) <= 2 and abs((min(ys) + max(ys)) / 2 - 12) <= 2, d  # centred


def test_an_empty_output_region_is_a_hidden_polite_log_named_after_its_cell():
    [attrs] = [attrs for attrs, _ in render(PAGE, []).all("div") if attrs.get("class") == "course-cell__output"]
    assert attrs == {
        "class": "course-cell__output",
        "data-precomputed": "false",
        "role": "log",
        "aria-live": "polite",
        "aria-label": "Output of cell 2",
        "tabindex": "0",
        "hidden": None,
    }


_PRECOMPUTED_LABEL = "Precomputed output (from when the site was built). Run the cell to make your own."


def test_build_time_output_starts_with_a_label_that_the_script_shows_and_a_visible_region():
    rendered = render(PAGE, [Output("stdout", "True\n")])
    [region] = [attrs for attrs, _ in rendered.all("div") if attrs.get("class") == "course-cell__output"]
    assert "hidden" not in region and region["aria-live"] == "polite"
    tree = rendered.tree()
    label = tree[tree.index(("div", region)) + 1]
    assert label == ("p", {"class": "course-cell__label", "hidden": None})
    assert ({"class": "course-cell__label", "hidden": None}, _PRECOMPUTED_LABEL) in rendered.all("p")
    assert not [attrs for attrs, _ in render(PAGE, []).all("p") if attrs.get("class") == "course-cell__label"]
