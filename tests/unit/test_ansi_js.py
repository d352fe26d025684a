"""Terminal output in cells: the contrast of assets/css/ansi.css's colours in Material's light and dark
(slate) schemes, and a rule for every class assets/js/ansi.js gives (its logic: tests/js/ansi.test.mjs)."""

from __future__ import annotations

import colorsys
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "src/course_site/course_site/assets/css"
LIGHT = ".course-cell"
SLATE = '[data-md-color-scheme="slate"] .course-cell'
MIN_CONTRAST = 4.5  # WCAG AA for text


def custom_properties(css: str, selector: str) -> dict[str, str]:
    """The ``--name: value`` pairs of the rules whose selector list has ``selector``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    found: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        if selector in (s.strip() for s in selectors.split(",")):
            found.update(re.findall(r"(--[\w-]+):\s*([^;]+);", body))
    assert found, f"no rule {selector!r}"
    return found


def rgba(value: str) -> tuple[float, float, float, float]:
    """``#rrggbb`` or ``rgba(r, g, b, a)`` as 0–255 channels and an alpha."""
    if value.startswith("#"):
        return (*(int(value[i : i + 2], 16) for i in (1, 3, 5)), 1.0)
    r, g, b, a = (float(x) for x in re.findall(r"[\d.]+", value))
    return r, g, b, a


def over(top: tuple[float, ...], below: tuple[float, ...]) -> tuple[float, float, float, float]:
    *colour, alpha = top
    return (*(alpha * c + (1 - alpha) * b for c, b in zip(colour, below[:3], strict=True)), 1.0)


def hsl(hue: float, saturation: float, lightness: float, alpha: float = 1.0) -> tuple[float, float, float, float]:
    r, g, b = colorsys.hls_to_rgb(hue / 360, lightness, saturation)
    return r * 255, g * 255, b * 255, alpha


def contrast(one: tuple[float, ...], two: tuple[float, ...]) -> float:
    def luminance(colour: tuple[float, ...]) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in colour[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# Material 9's page background and code text (--md-default-bg-color, --md-code-fg-color; hue 225deg in slate).
SCHEMES = {
    LIGHT: {"page": rgba("#ffffff"), "text": rgba("#36464e")},
    SLATE: {"page": hsl(225, 0.15, 0.14), "text": hsl(225, 0.18, 0.86, 0.82)},
}


@pytest.mark.parametrize("selector", [LIGHT, SLATE], ids=["light", "slate"])
def test_ansi_colours_are_readable(selector):
    colours = custom_properties((CSS / "ansi.css").read_text(), selector)
    tints = custom_properties((CSS / "course.css").read_text(), selector)
    page, text = SCHEMES[selector]["page"], SCHEMES[selector]["text"]
    # Output is drawn on the cell, or on the stderr and error outputs' tints of it.
    grounds = [page, *(over(rgba(tints[name]), page) for name in ("--course-warn-bg", "--course-bad-bg"))]
    foregrounds = {name: rgba(value) for name, value in colours.items() if not name.endswith("-bg")}
    backgrounds = {name: rgba(value) for name, value in colours.items() if name.endswith("-bg")}
    assert len(foregrounds) == len(backgrounds) == 16
    poor = [
        (name, round(contrast(colour, ground), 2))
        for name, colour in foregrounds.items()
        for ground in grounds
        if contrast(colour, ground) < MIN_CONTRAST
    ]
    poor += [
        (name, round(contrast(over(text, colour), colour), 2))
        for name, colour in backgrounds.items()
        if contrast(over(text, colour), colour) < MIN_CONTRAST
    ]
    assert poor == []


def test_every_class_the_module_gives_has_a_rule():
    module = (ROOT / "src/course_site/course_site/assets/js/ansi.js").read_text()
    css = (CSS / "ansi.css").read_text()
    names = re.search(r"COLOUR_NAMES = \[([^\]]+)\]", module)[1]
    colours = [n.strip().strip('"') for n in names.split(",")]
    expected = [f"ansi-{c}{i}-{layer}" for c in colours for i in ("", "-intense") for layer in ("fg", "bg")]
    expected += ["ansi-default-inverse-fg", "ansi-default-inverse-bg", "ansi-bold", "ansi-italic", "ansi-underline"]
    assert [name for name in expected if f".{name} {{" not in css] == []
