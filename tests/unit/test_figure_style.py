"""Figures in the page's colour scheme (``course_kernel.figure_style`` and the PNGs of a cell's figures), in CPython."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pytest

matplotlib.use("agg")
import matplotlib.pyplot as plt
from matplotlib.colors import to_rgb
from PIL import Image

from course_kernel import cell_exec as kernel
from course_kernel import figure_style, figures


@pytest.fixture
def style():
    return figure_style


@pytest.fixture
def cell_exec():
    plt.close("all")  # a cell shows every open figure
    yield kernel
    plt.close("all")


def luminance(png: bytes, box: tuple[int, int, int, int] | None = None) -> float:
    """Relative luminance (WCAG) of the PNG's mean colour, or of ``box``'s."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixels = np.asarray(image.crop(box) if box else image, dtype=float) / 255
    linear = np.where(pixels <= 0.04045, pixels / 12.92, ((pixels + 0.055) / 1.055) ** 2.4)
    return float((linear.mean(axis=(0, 1)) * [0.2126, 0.7152, 0.0722]).sum())


def line_figure():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [1, 0, 1], label="data", color="C0")
    ax.axhline(0.5, color="k")
    ax.set(title="A title", xlabel="x", ylabel="y")
    ax.legend()
    return fig, ax


def test_slate_recolours_paper_and_ink_and_keeps_the_data_colours(style):
    fig, ax = line_figure()
    style.restyle(fig, "slate")
    assert to_rgb(fig.get_facecolor()) == to_rgb(style.SLATE["figure.facecolor"])
    assert to_rgb(ax.get_facecolor()) == to_rgb(style.SLATE["axes.facecolor"])
    assert to_rgb(ax.title.get_color()) == to_rgb(style.SLATE["text.color"])
    assert to_rgb(ax.xaxis.label.get_color()) == to_rgb(style.SLATE["text.color"])
    assert to_rgb(ax.get_xticklabels()[0].get_color()) == to_rgb(style.SLATE["text.color"])
    assert to_rgb(ax.lines[1].get_color()) == to_rgb(style.SLATE["text.color"])  # the black rule
    assert to_rgb(ax.lines[0].get_color()) == to_rgb("C0")  # the data keep their colour
    assert to_rgb(ax.get_legend().get_texts()[0].get_color()) == to_rgb(style.SLATE["text.color"])


def test_the_default_scheme_leaves_the_figure_as_drawn(style):
    fig, ax = line_figure()
    style.restyle(fig, "default")
    assert to_rgb(fig.get_facecolor()) == (1, 1, 1) and to_rgb(ax.title.get_color()) == (0, 0, 0)


def test_the_build_gets_each_figure_light_and_dark(cell_exec):
    shown = []
    ok = cell_exec.run_cell(
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(figsize=(5, 3))\nax.plot([1, 2, 1])",
        {},
        filename="<cell 1>",
        emit=lambda kind, payload: shown.append(payload) if kind == "figure" else None,
        session=cell_exec.Session(schemes=("default", "slate")),
    )
    assert ok
    [figure] = shown
    assert figure["scheme"] == "default"
    assert luminance(figure["png"]) > 0.8  # white paper
    assert luminance(figure["png_dark"]) < 0.2  # Material's slate
    assert figure["text_px"] == pytest.approx(10 * figures.FIGURE_DPI / 72, abs=0.01)  # 10 pt ticks


def test_a_run_in_the_dark_scheme_draws_its_figure_dark_only(cell_exec):
    shown = []
    cell_exec.run_cell(
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
        {},
        filename="<cell 1>",
        emit=lambda kind, payload: shown.append(payload) if kind == "figure" else None,
        session=cell_exec.Session(schemes=("slate",)),
    )
    [figure] = shown
    assert figure["scheme"] == "slate" and "png_dark" not in figure
    assert luminance(figure["png"]) < 0.2


def test_greys_keep_their_place_between_paper_and_ink_and_colour_maps_stay(style):
    fig, ax = plt.subplots()
    band = ax.axvspan(0, 1, color="0.9")
    image = ax.imshow(np.linspace(-1, 1, 9).reshape(3, 3), cmap="RdBu_r")  # its middle is a grey
    bar = fig.colorbar(image)
    before = bar.solids.get_facecolor().copy() if hasattr(bar.solids, "get_facecolor") else None
    style.restyle(fig, "slate")
    paper, ink = np.array(to_rgb(style.SLATE["figure.facecolor"])), np.array(to_rgb(style.SLATE["text.color"]))
    np.testing.assert_allclose(to_rgb(band.get_facecolor()), paper + (ink - paper) * 0.1, atol=1e-6)
    if before is not None:
        np.testing.assert_array_equal(bar.solids.get_facecolor(), before)
    assert image.get_cmap().name == "RdBu_r"
