"""Figures for the lesson: heatmaps of encodings and a three-way comparison.

matplotlib is imported *inside* each function, so ``import posenc`` and
``import posenc.plot`` work (and stay fast) where matplotlib is absent or slow
to load, e.g. in Pyodide before the package is fetched.

Figures are created with ``matplotlib.pyplot.figure`` / ``pyplot.subplots``, so
they are registered with pyplot: a notebook or the course's cell runner picks up
open figures by itself. Every function also *returns* its ``Figure``; none calls
``plt.show()``. Close figures you no longer need with ``plt.close(fig)``.
Each figure carries a title and fits a page's text column, a phone's too: 5 x 3.2 in for a
heatmap, 5 x 9 in for the comparison (its panels stacked), 4.5 x 3.6 in for a similarity map.
None is wider than 5 in, so that its 10 pt text stays legible when a phone shows it about
340 px wide. A figure a function makes
itself also gets alt text, in ``fig.alt_text``: what the figure shows, in words
("Heatmap of sinusoidal positional encoding, 64 rows (position pos) by 128
columns …"). The course's cells use it as the image's alt; a
function that draws into axes you pass leaves your figure's alt text alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._learned import LearnedEmbedding
from posenc._rope import rope
from posenc._sinusoidal import sinusoidal
from posenc._validate import as_real_array, check_count, check_d_model, check_positive, check_seed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["compare", "cosine_similarity", "heatmap", "similarity"]

# Layout (inches and fractions of the figure): fixed margins rather than a layout engine, which would
# re-solve the layout at every draw; a fixed title height, since nothing sits above an image to dodge.
_FIGSIZE = (5.0, 3.2)
_SIMILARITY_FIGSIZE = (4.5, 3.6)
_COMPARE_FIGSIZE = (5.0, 9.0)
_MARGINS = {"left": 0.14, "right": 0.98, "bottom": 0.16, "top": 0.89}
_COMPARE_MARGINS = {"left": 0.15, "right": 0.98, "bottom": 0.06, "top": 0.87, "hspace": 0.55}
_COLORBAR = {"shrink": 0.9, "pad": 0.03}
_TITLE = {"y": 1.0}
_ALT_ATTRIBUTE = "alt_text"  # where the course's cells look for a figure's alt text


def _new_axes(ax: Axes | None, figsize: tuple[float, float] = _FIGSIZE) -> tuple[Figure, Axes]:
    """Return ``(figure, axes)``: the given axes' figure, or a new pyplot figure."""
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=figsize)
    fig.subplots_adjust(**_MARGINS)
    return fig, fig.add_subplot()


def _set_alt(fig: Figure, text: str) -> None:
    """Give ``fig`` its alt text (matplotlib has no attribute of its own for it)."""
    setattr(fig, _ALT_ATTRIBUTE, text)


def _mid_sentence(title: str) -> str:
    """``title`` as it reads inside a sentence: "Sinusoidal encoding" -> "sinusoidal encoding"; "RoPE" stays."""
    first_word = title.partition(" ")[0]
    if first_word[:1].isupper() and first_word[1:].islower():
        return title[0].lower() + title[1:]
    return title


def _range_text(values: NDArray) -> str:
    """ "values from -1 to 1" for a non-empty array, else "no values"."""
    if not values.size:
        return "no values"
    return f"values from {float(values.min()):.3g} to {float(values.max()):.3g}"


def _as_matrix(matrix: ArrayLike, name: str = "matrix") -> NDArray[np.floating]:
    """A finite 2-D float array."""
    matrix = as_real_array(matrix, name, min_ndim=2)
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows x columns), got shape {matrix.shape}")
    return matrix


def heatmap(
    matrix: ArrayLike,
    *,
    title: str = "Sinusoidal positional encoding",
    xlabel: str = "embedding dimension i",
    ylabel: str = "position pos",
    cmap: str = "RdBu_r",
    ax: Axes | None = None,
) -> Figure:
    """Show a positions x dimensions matrix as an image with a colorbar.

    Colour limits are symmetric, ``[-max|m|, +max|m|]``, so 0 is always the
    neutral middle of a diverging colormap.

    Parameters
    ----------
    matrix : array_like, shape (n_positions, d_model)
        Finite values, e.g. ``sinusoidal(64, 64)``. Row 0 is drawn at the top.
    title, xlabel, ylabel : str
        Axes title and labels.
    cmap : str, default "RdBu_r"
        Any matplotlib colormap name.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new 5 x 3.2 in pyplot figure.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure holding the axes (not shown; the caller or runner displays it).
        A new figure has alt text in ``fig.alt_text``.

    Raises
    ------
    TypeError, ValueError
        If ``matrix`` is not a finite, real, 2-D array.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = heatmap(sinusoidal(32, 16))
    >>> fig.axes[0].get_title()
    'Sinusoidal positional encoding'
    >>> print(fig.alt_text)
    Heatmap of sinusoidal positional encoding, 32 rows (position pos) by 16 columns
    (embedding dimension i), values from -1 to 1
    >>> plt.close(fig)
    """
    matrix = _as_matrix(matrix)
    new_figure = ax is None
    fig, ax = _new_axes(ax)
    limit = float(np.max(np.abs(matrix), initial=0.0)) or 1.0  # empty or all-zero: any symmetric range will do
    image = ax.imshow(matrix, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto", interpolation="nearest")
    fig.colorbar(image, **_COLORBAR)  # beside the image's axes
    ax.set_title(title, **_TITLE)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if new_figure:
        rows, columns = matrix.shape
        size = f"{rows} rows ({ylabel}) by {columns} columns ({xlabel})"
        _set_alt(fig, f"Heatmap of {_mid_sentence(title)}, {size}, {_range_text(matrix)}")
    return fig


def cosine_similarity(matrix: ArrayLike) -> NDArray[np.float64]:
    r"""Cosine similarity of every pair of rows, ``S[p, q] = u_p . u_q / (|u_p| |u_q|)``.

    Parameters
    ----------
    matrix : array_like, shape (n, d)
        One vector per row (e.g. per position). A zero row has similarity 0
        with everything.

    Returns
    -------
    similarity : ndarray of float64, shape (n, n)
        Symmetric, entries in ``[-1, 1]``.

    Examples
    --------
    >>> np.round(cosine_similarity([[1.0, 0.0], [1.0, 1.0]]), 3)
    array([[1.   , 0.707],
           [0.707, 1.   ]])
    """
    matrix = np.asarray(_as_matrix(matrix), dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)  # (n, 1)
    unit = matrix / np.where(norms > 0, norms, np.inf)  # zero rows: 0 / inf = 0
    return np.clip(unit @ unit.T, -1.0, 1.0)


def similarity(
    matrix: ArrayLike,
    *,
    title: str = "Cosine similarity between positions",
    cmap: str = "RdBu_r",
    ax: Axes | None = None,
) -> Figure:
    """Heatmap of :func:`cosine_similarity` between the rows (positions) of ``matrix``.

    For the sinusoidal encoding the picture is bright along the diagonal and
    fades with distance: nearby positions have similar vectors.

    Parameters
    ----------
    matrix : array_like, shape (n_positions, d_model)
        One vector per position.
    title : str
        Axes title.
    cmap : str, default "RdBu_r"
        Diverging colormap; limits are fixed to ``[-1, 1]``.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new 4.5 x 3.6 in pyplot figure.

    Returns
    -------
    fig : matplotlib.figure.Figure
        A new figure has alt text in ``fig.alt_text``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = similarity(sinusoidal(16, 8))
    >>> fig.axes[0].get_xlabel()
    'position'
    >>> fig.alt_text
    'Heatmap of cosine similarity between positions, 16 by 16 positions, values from 0.325 to 1'
    >>> plt.close(fig)
    """
    sim = cosine_similarity(matrix)  # (n, n)
    new_figure = ax is None
    fig, ax = _new_axes(ax, figsize=_SIMILARITY_FIGSIZE)
    image = ax.imshow(sim, cmap=cmap, vmin=-1.0, vmax=1.0, interpolation="nearest")
    fig.colorbar(image, **_COLORBAR)  # beside the image's axes
    ax.set_title(title, **_TITLE)
    ax.set_xlabel("position")
    ax.set_ylabel("position")
    if new_figure:
        n = len(sim)
        _set_alt(fig, f"Heatmap of {_mid_sentence(title)}, {n} by {n} positions, {_range_text(sim)}")
    return fig


def _rope_scores(n_positions: int, d_model: int, seed: int | None, base: float) -> NDArray:
    """``S[m, n] = rope(q)_m . rope(k)_n`` for one fixed random ``q`` and ``k``, shape (n, n).

    The same ``q`` sits at every query position and the same ``k`` at every
    key position, so any change along a row comes from the rotation alone. S
    depends only on ``m - n``: constant along each diagonal (a Toeplitz matrix).
    """
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, d_model))  # (d_model,) each
    queries = rope(np.tile(q, (n_positions, 1)), base=base)  # (n, d_model)
    keys = rope(np.tile(k, (n_positions, 1)), base=base)  # (n, d_model)
    return queries @ keys.T / np.sqrt(d_model)


def compare(n_positions: int = 64, d_model: int = 64, *, seed: int = 0, base: float = 10000.0) -> Figure:
    """Three panels: sinusoidal (fixed), learned absolute (random init), RoPE (relative).

    * top -- ``sinusoidal(n_positions, d_model)``: smooth waves, fast on the
      left columns, slow on the right;
    * middle -- a freshly initialised ``LearnedEmbedding`` table: noise, no
      structure until training puts some there;
    * bottom -- RoPE's score ``rope(q)_m . rope(k)_n / sqrt(d)`` for one fixed
      random ``q`` and ``k``: constant along every diagonal, i.e. it depends
      only on the offset ``m - n``.

    Parameters
    ----------
    n_positions : int, default 64
        Number of positions (rows), >= 1.
    d_model : int, default 64
        Embedding width, positive and even.
    seed : int, default 0
        Seeds the learned table and the random ``q``, ``k``.
    base : float, default 10000.0
        Frequency base for sinusoidal and RoPE.

    Returns
    -------
    fig : matplotlib.figure.Figure
        A new 5 x 9 in pyplot figure (the three panels stacked) with a suptitle, and alt text
        describing the three panels in ``fig.alt_text``.

    Raises
    ------
    TypeError, ValueError
        On a bad count, width, seed or base (as the underlying functions).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = compare(16, 8)
    >>> [ax.get_title() for ax in fig.axes[:3]]  # then come the three colorbars
    ['sinusoidal (fixed)', 'learned absolute (random init)', 'RoPE (rotary, relative)']
    >>> plt.close(fig)
    """
    n_positions = check_count(n_positions, "n_positions")
    if n_positions < 1:
        raise ValueError(f"n_positions must be at least 1, got {n_positions}")
    d_model = check_d_model(d_model)
    seed = check_seed(seed)
    base = check_positive(base, "base")

    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=_COMPARE_FIGSIZE)
    fig.subplots_adjust(**_COMPARE_MARGINS)
    heatmap(sinusoidal(n_positions, d_model, base=base), title="sinusoidal (fixed)", ax=axes[0])
    heatmap(
        LearnedEmbedding(n_positions, d_model, seed=seed).table,
        title="learned absolute (random init)",
        ax=axes[1],
    )
    heatmap(
        _rope_scores(n_positions, d_model, seed, base),
        title="RoPE (rotary, relative)",
        xlabel="key position n",
        ylabel="query position m",
        ax=axes[2],
    )
    fig.suptitle(
        "Positional encodings: fixed waves, a random\nlearned table, and RoPE scores that depend\nonly on m − n"
    )
    _set_alt(fig, _compare_alt(n_positions, d_model))
    return fig


def _compare_alt(n_positions: int, d_model: int) -> str:
    """Alt text of :func:`compare`'s figure: the three panels and what each shows."""
    return (
        f"Three heatmaps, one above the other. Top: the sinusoidal encoding, {n_positions} positions by {d_model} "
        "dimensions, smooth waves that change fast in the left columns and slowly in the right ones. "
        f"Middle: a learned absolute table at random initialisation, {n_positions} by {d_model}, noise "
        f"without structure. Bottom: RoPE scores of {n_positions} query positions m against {n_positions} key "
        "positions n, constant along every diagonal because they depend only on the offset m − n."
    )
