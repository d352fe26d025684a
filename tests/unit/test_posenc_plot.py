"""posenc.plot: signatures the lesson relies on, figure content, no plt.show()."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import numpy as np
import pytest

from posenc import sinusoidal

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from posenc import plot  # noqa: E402


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
    assert 6 <= width <= 10 and 2.5 <= height <= 4


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
    assert alt.startswith("Three heatmaps side by side.")
    for panel in ("sinusoidal encoding, 16 positions by 8 dimensions", "learned absolute table", "RoPE scores"):
        assert panel in alt
    assert "constant along every diagonal" in alt


def test_drawing_into_given_axes_leaves_the_figures_alt_text_alone() -> None:
    fig, (left, right) = plt.subplots(1, 2)
    fig.alt_text = "the author's own words"
    plot.heatmap(sinusoidal(4, 4), ax=left)
    plot.similarity(sinusoidal(4, 4), ax=right)
    assert fig.alt_text == "the author's own words"
    bare, ax = plt.subplots()
    plot.heatmap(sinusoidal(4, 4), ax=ax)
    assert not hasattr(bare, "alt_text")
