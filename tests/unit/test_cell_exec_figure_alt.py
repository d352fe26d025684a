"""Alt text of the figures a cell shows, in CPython: the author's, else what the axes draw, else "Figure N"."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("agg")
import matplotlib.pyplot as plt

import posenc
import posenc.plot
from course_kernel import figures


@pytest.fixture(scope="module")
def figure_alt():
    yield figures.alt_text
    plt.close("all")


def test_the_authors_alt_text_comes_first(figure_alt):
    fig, ax = plt.subplots()
    ax.plot([1, 2])
    ax.set_title("Ignored")
    fig.alt_text = "  Rising line from 1 to 2  "
    assert figure_alt(fig, 1) == "Rising line from 1 to 2"


def test_a_posenc_figure_brings_its_own_description(figure_alt):
    fig = posenc.plot.heatmap(posenc.sinusoidal(64, 128))
    assert figure_alt(fig, 1).startswith("Heatmap of sinusoidal positional encoding, 64 rows (position pos) by 128")


def test_panels_are_described_by_kind_title_size_labels_and_lines(figure_alt):
    fig, (left, right) = plt.subplots(1, 2)
    posenc.plot.heatmap(posenc.sinusoidal(8, 4), ax=left, xlabel="column j")  # with a colorbar, left out
    right.plot(np.arange(3), label="column 0")
    right.plot(np.arange(3), label="_hidden helper line")
    right.set(title="Sine columns", xlabel="position", ylabel=r"$\mathrm{PE}_p \cdot x$")
    fig.suptitle("Two views")
    assert figure_alt(fig, 1) == (
        "Two views. Panel 1: heatmap titled “Sinusoidal positional encoding”; 8 rows by 4 columns; "
        "x axis: column j; y axis: position pos. Panel 2: line plot titled “Sine columns”; "
        "x axis: position; y axis: PE_p · x; lines: “column 0”"
    )


@pytest.mark.parametrize(
    ("draw", "expected"),
    [
        (lambda ax: ax.bar([1, 2], [3, 4]), "Bar chart"),
        (lambda ax: ax.scatter([1, 2], [3, 4]), "Scatter plot"),
        (lambda ax: ax.imshow(np.zeros((2, 3, 3))), "Image; 2 rows by 3 columns"),
        (lambda ax: ax.plot([0, 1]), "Line plot"),
        (lambda ax: None, "Empty plot"),
    ],
)
def test_the_kind_of_plot_is_named(figure_alt, draw, expected):
    fig, ax = plt.subplots()
    draw(ax)
    assert figure_alt(fig, 1) == expected


def test_a_figure_with_nothing_to_say_is_numbered(figure_alt):
    assert figure_alt(plt.figure(), 3) == "Figure 3"
    titled = plt.figure()
    titled.suptitle("Only a suptitle")
    assert figure_alt(titled, 4) == "Only a suptitle"


def run_figure(code: str, alt: str) -> str:
    from course_kernel import cell_exec

    plt.close("all")
    shown = []
    emit = lambda kind, payload: shown.append(payload) if kind == "figure" else None  # noqa: E731
    assert cell_exec.run_cell(code, {}, filename="<cell 1>", emit=emit, session=cell_exec.Session(alt=alt))
    [figure] = shown
    return figure["alt"]


def test_a_fences_alt_is_filled_from_the_cells_names_after_the_run():
    code = "import matplotlib.pyplot as plt\nmethod, factor = 'yarn', 4.0\nkept = 17\nplt.plot([1, 2])"
    alt = run_figure(code, "θ′/θ for {method}, s = {factor:g}: {kept} pairs kept")
    assert alt == "θ′/θ for yarn, s = 4: 17 pairs kept"


def test_a_fences_alt_comes_before_the_figures_own_and_one_naming_a_missing_name_is_passed_over():
    code = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\nfig.alt_text = 'its own'"
    assert run_figure(code, "the fence's, {fig.number}") == "the fence's, 1"
    assert run_figure(code, "names {gone}") == "its own"  # an edit removed the name: the figure's own words
