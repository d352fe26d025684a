"""posenc.plot: signatures the lesson relies on, figure content, no plt.show()."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import matplotlib
import numpy as np
import pytest

from posenc import sinusoidal

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from posenc import plot


@pytest.fixture(autouse=True)
def _no_show_and_close(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("posenc.plot must never call plt.show()")

    monkeypatch.setattr(plt, "show", forbidden)
    yield
    plt.close("all")


def test_signatures() -> None:
    assert str(inspect.signature(plot.heatmap)) == (
        "(matrix: 'ArrayLike', *, title: 'str' = 'Sinusoidal positional encoding', "
        "xlabel: 'str' = 'embedding dimension i', ylabel: 'str' = 'position pos', "
        "cmap: 'str' = 'RdBu_r', ax: 'Axes | None' = None) -> 'Figure'"
    )
    assert str(inspect.signature(plot.compare)) == (
        "(n_positions: 'int' = 64, d_model: 'int' = 64, *, seed: 'int' = 0, base: 'float' = 10000.0) -> 'Figure'"
    )


def test_heatmap_content() -> None:
    pe = sinusoidal(32, 16)
    fig = plot.heatmap(pe)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() == "Sinusoidal positional encoding"
    assert ax.get_xlabel() == "embedding dimension i"
    assert ax.get_ylabel() == "position pos"
    assert len(fig.axes) == 2  # image + colorbar
    image = ax.images[0]
    np.testing.assert_array_equal(image.get_array(), pe)
    low, high = image.get_clim()
    assert low == -high == -np.abs(pe).max()
    assert image.get_cmap().name == "RdBu_r"
    width, height = fig.get_size_inches()
    assert 4 <= width <= 5 and 2.5 <= height <= 4  # fits a phone's column (docs: 5 in at most)


def test_heatmap_custom_labels_and_ax() -> None:
    fig, (left, right) = plt.subplots(1, 2)
    returned = plot.heatmap(np.arange(6.0).reshape(2, 3), title="T", xlabel="X", ylabel="Y", cmap="viridis", ax=right)
    assert returned is fig
    assert (right.get_title(), right.get_xlabel(), right.get_ylabel()) == ("T", "X", "Y")
    assert right.images[0].get_clim() == (-5.0, 5.0)
    assert not left.images


def test_heatmap_zero_matrix_and_bad_input() -> None:
    assert plot.heatmap(np.zeros((2, 2))).axes[0].images[0].get_clim() == (-1.0, 1.0)
    with pytest.raises(ValueError, match="matrix must be 2-D"):
        plot.heatmap(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="matrix must have at least 2 dimensions"):
        plot.heatmap(np.zeros(3))
    with pytest.raises(ValueError, match="matrix must be finite"):
        plot.heatmap([[0.0, np.nan]])


def test_compare_panels() -> None:
    fig = plot.compare(32, 16, seed=3)
    assert isinstance(fig, Figure)
    titles = [ax.get_title() for ax in fig.axes[:3]]
    assert titles == [
        "sinusoidal (fixed)",
        "learned absolute (random init)",
        "RoPE (rotary, relative)",
    ]
    assert fig.get_suptitle()
    sin_img, learned_img, rope_img = (ax.images[0].get_array() for ax in fig.axes[:3])
    np.testing.assert_array_equal(sin_img, sinusoidal(32, 16))
    assert learned_img.shape == (32, 16)
    # the RoPE panel is Toeplitz: constant along every diagonal (depends on m - n only)
    assert rope_img.shape == (32, 32)
    for offset in range(-31, 32):
        diagonal = np.diagonal(rope_img, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-10)


def test_compare_defaults_and_errors() -> None:
    fig = plot.compare()
    assert fig.axes[0].images[0].get_array().shape == (64, 64)
    with pytest.raises(ValueError, match="d_model"):
        plot.compare(8, 7)
    with pytest.raises(ValueError, match="n_positions"):
        plot.compare(0, 8)
    with pytest.raises(TypeError, match="n_positions"):
        plot.compare(8.0, 8)  # type: ignore[arg-type]


def test_similarity() -> None:
    pe = sinusoidal(20, 16)
    sim = plot.cosine_similarity(pe)
    np.testing.assert_allclose(np.diag(sim), 1.0)
    np.testing.assert_allclose(sim, sim.T)
    fig = plot.similarity(pe)
    assert fig.axes[0].get_title() == "Cosine similarity between positions"
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), sim)
    assert plot.cosine_similarity(np.zeros((2, 3))).tolist() == [[0.0, 0.0], [0.0, 0.0]]


# -- alt text: what the figure shows, for the course's cells ---------------------------------


def test_heatmap_alt_text_says_what_it_shows() -> None:
    fig = plot.heatmap(sinusoidal(64, 128))
    assert fig.alt_text == (
        "Heatmap of sinusoidal positional encoding, 64 rows (position pos) by 128 columns (embedding dimension i), "
        "values from -1 to 1"
    )
    custom = plot.heatmap(np.arange(6.0).reshape(2, 3), title="RoPE table", xlabel="X", ylabel="Y")
    assert custom.alt_text == "Heatmap of RoPE table, 2 rows (Y) by 3 columns (X), values from 0 to 5"


def test_similarity_alt_text_gives_size_and_range() -> None:
    fig = plot.similarity(np.eye(3))
    assert fig.alt_text == "Heatmap of cosine similarity between positions, 3 by 3 positions, values from 0 to 1"


def test_compare_alt_text_describes_each_panel() -> None:
    alt = plot.compare(16, 8).alt_text
    assert alt.startswith("Three heatmaps, one above the other.")
    for panel in ("sinusoidal encoding, 16 positions by 8 dimensions", "learned absolute table", "RoPE scores"):
        assert panel in alt
    assert alt.endswith("constant along every diagonal because they depend only on the offset m − n.")


def test_drawing_into_given_axes_leaves_the_figures_alt_text_alone() -> None:
    fig, (left, right) = plt.subplots(1, 2)
    fig.alt_text = "the author's own words"
    plot.heatmap(sinusoidal(4, 4), ax=left)
    plot.similarity(sinusoidal(4, 4), ax=right)
    assert fig.alt_text == "the author's own words"
    bare, ax = plt.subplots()
    plot.heatmap(sinusoidal(4, 4), ax=ax)
    assert not hasattr(bare, "alt_text")


def test_similarity_figure_has_fixed_limits_sharp_pixels_and_a_colorbar() -> None:
    fig = plot.similarity(sinusoidal(12, 8))
    ax = fig.axes[0]
    image = ax.images[0]
    assert image.get_clim() == (-1.0, 1.0)
    assert image.get_cmap().name == "RdBu_r"
    assert image.get_interpolation() == "nearest"
    assert len(fig.axes) == 2 and image.colorbar is not None and image.colorbar.ax is fig.axes[1]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("position", "position")
    assert ax.title.get_position()[1] == 1.0
    for box in (axes.get_position() for axes in fig.axes):
        assert 0 <= box.x0 < box.x1 <= 1 and 0 <= box.y0 < box.y1 <= 1  # nothing drawn off the figure
    # Fixed limits, not the data's: an all-zero matrix still maps 0 to the middle of [-1, 1].
    assert plot.similarity(np.zeros((2, 2))).axes[0].images[0].get_clim() == (-1.0, 1.0)


def test_cosine_similarity_normalises_short_rows_and_stays_in_range() -> None:
    np.testing.assert_array_equal(plot.cosine_similarity([[0.1, 0.0], [0.0, 0.2]]), np.eye(2))
    # [1, 1, 1] / |[1, 1, 1]| dotted with itself rounds to 1.0000000000000002 before clipping.
    sim = plot.cosine_similarity([[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]])
    assert sim.max() == 1.0 and sim.min() == -1.0


def test_compare_draws_what_its_arguments_ask_for() -> None:
    from posenc import LearnedEmbedding, rope

    fig = plot.compare(6, 8, seed=5, base=100.0)
    sinusoidal_panel, learned_panel, rope_panel = (ax.images[0].get_array() for ax in fig.axes[:3])
    np.testing.assert_array_equal(sinusoidal_panel, sinusoidal(6, 8, base=100.0))
    np.testing.assert_array_equal(learned_panel, LearnedEmbedding(6, 8, seed=5).table)
    q, k = np.random.default_rng(5).normal(size=(2, 8))
    scores = rope(np.tile(q, (6, 1)), base=100.0) @ rope(np.tile(k, (6, 1)), base=100.0).T / np.sqrt(8)
    np.testing.assert_allclose(rope_panel, scores, rtol=1e-12)
    assert (fig.axes[2].get_xlabel(), fig.axes[2].get_ylabel()) == ("key position n", "query position m")
    assert fig.get_suptitle().startswith("Positional encodings: fixed waves")
    assert len(fig.axes) == 6  # three panels, three colorbars
    tops = [ax.get_position().y1 for ax in fig.axes[:3]]
    assert tops == sorted(tops, reverse=True) and len({ax.get_position().x0 for ax in fig.axes[:3]}) == 1  # stacked
    for ax in fig.axes:
        box = ax.get_position()
        assert 0 <= box.x0 < box.x1 <= 1 and 0 <= box.y0 < box.y1 <= 1  # nothing drawn off the figure


def test_compare_accepts_one_position_and_names_bad_arguments() -> None:
    assert plot.compare(1, 4).axes[0].images[0].get_array().shape == (1, 4)
    from posenc import LearnedEmbedding

    learned = plot.compare(4, 4).axes[1].images[0].get_array()
    np.testing.assert_array_equal(learned, LearnedEmbedding(4, 4, seed=0).table)  # the documented default seed
    with pytest.raises(ValueError, match=r"^n_positions "):
        plot.compare(-1, 8)
    with pytest.raises(TypeError, match=r"^seed "):
        plot.compare(4, 8, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^base "):
        plot.compare(4, 8, base=0.0)


@pytest.mark.filterwarnings("ignore:Attempting to set identical low and high ylims")  # matplotlib, on 0 rows
def test_heatmap_of_an_empty_matrix_and_its_pixels() -> None:
    assert plot.heatmap(np.zeros((0, 3))).axes[0].images[0].get_clim() == (-1.0, 1.0)
    ax = plot.heatmap(np.ones((2, 9))).axes[0]
    assert ax.get_aspect() == "auto" and ax.images[0].get_interpolation() == "nearest"
    assert ax.title.get_position()[1] == 1.0


def test_figures_have_their_documented_sizes() -> None:
    """At most 5 in wide, for a phone's column: 5 x 3.2 in for a heatmap, 4.5 x 3.6 in for the
    similarity map, 5 x 9 in for the comparison."""
    assert tuple(plot.heatmap(np.ones((2, 2))).get_size_inches()) == (5.0, 3.2)
    assert tuple(plot.similarity(np.ones((2, 2))).get_size_inches()) == (4.5, 3.6)
    assert tuple(plot.compare(2, 2).get_size_inches()) == (5.0, 9.0)


@pytest.mark.filterwarnings("ignore:Attempting to set identical low and high ylims")  # matplotlib, on 0 rows
@pytest.mark.parametrize(
    ("title", "in_a_sentence"),
    [
        ("Scores of RoPE queries", "scores of RoPE queries"),  # a capitalised first word reads lower-case
        ("PEs of RoPE", "PEs of RoPE"),  # an abbreviation stays
        ("RoPE scores", "RoPE scores"),
        ("", ""),
    ],
)
def test_alt_text_puts_the_title_mid_sentence(title: str, in_a_sentence: str) -> None:
    alt = plot.heatmap(np.zeros((0, 2)), title=title, xlabel="x", ylabel="y").alt_text
    assert alt == f"Heatmap of {in_a_sentence}, 0 rows (y) by 2 columns (x), no values"


def test_cosine_similarity_is_float64_for_any_float_input() -> None:
    sim = plot.cosine_similarity(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    assert sim.dtype == np.float64
    np.testing.assert_array_equal(sim, [[1.0, 0.0], [0.0, 0.0]])  # a zero row is similar to nothing


def test_heatmap_limits_follow_small_values_too() -> None:
    assert plot.heatmap(np.array([[0.25, -0.5]])).axes[0].images[0].get_clim() == (-0.5, 0.5)
