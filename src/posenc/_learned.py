"""Learned absolute positional embedding (GPT-2, BERT).

A table with one trainable row per position, initialised from
``normal(0, std)`` with ``std = 0.02`` as in BERT and Hugging Face's GPT-2
(OpenAI's GPT-2 code uses 0.01 for its position table ``wpe``). It is only a
lookup: position ``p`` is row ``p``. Nothing ties row ``p`` to row ``p + 1``,
and there is simply no row for ``p >= max_len`` -- a learned table cannot
extrapolate to sequences longer than the ones it was built for.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._validate import (
    as_positions,
    check_count,
    check_positive,
    check_positive_int,
    check_seed,
)

__all__ = ["LearnedEmbedding"]


class LearnedEmbedding:
    r"""Learned absolute position table, ``table[p]`` is the vector of position ``p``.

    .. math:: E \in \mathbb{R}^{\mathrm{max\_len} \times d_{model}}, \quad
              E_{p, j} \sim \mathcal{N}(0, \mathrm{std}^2)

    Parameters
    ----------
    max_len : int
        Number of rows, i.e. the longest sequence the table can encode; >= 1.
    d_model : int
        Embedding width, >= 1 (odd widths are fine here).
    seed : int or None, default 0
        Seed for ``np.random.default_rng``: the same seed gives the same table.
    std : float, default 0.02
        Standard deviation of the normal initialisation; positive and finite.

    Attributes
    ----------
    table : ndarray of float64, shape (max_len, d_model)
        The embedding rows (what training would update).
    max_len, d_model : int
        The table's shape.

    Raises
    ------
    TypeError
        If ``max_len`` / ``d_model`` / ``seed`` are not ints, or ``std`` is not a number.
    ValueError
        If ``max_len < 1``, ``d_model < 1``, ``seed < 0`` or ``std`` is not positive and finite.

    Examples
    --------
    >>> emb = LearnedEmbedding(max_len=16, d_model=8, seed=0)
    >>> emb.table.shape
    (16, 8)
    >>> emb(4).shape  # rows for positions 0, 1, 2, 3
    (4, 8)
    >>> bool(np.allclose(emb([3, 3]), emb.table[3]))
    True
    >>> emb([16])
    Traceback (most recent call last):
        ...
    ValueError: position 16 is outside the learned table (rows 0..15):
    a learned table cannot extrapolate past max_len=16
    """

    def __init__(self, max_len: int, d_model: int, *, seed: int | None = 0, std: float = 0.02):
        max_len = check_count(max_len, "max_len")
        if max_len < 1:
            raise ValueError(f"max_len must be at least 1, got {max_len}")
        self.max_len: int = max_len
        self.d_model: int = check_positive_int(d_model, "d_model")
        self.std: float = check_positive(std, "std")
        self.seed: int | None = check_seed(seed)
        rng = np.random.default_rng(self.seed)
        self.table: NDArray[np.float64] = rng.normal(0.0, self.std, size=(max_len, self.d_model))

    def __repr__(self) -> str:
        return f"LearnedEmbedding(max_len={self.max_len}, d_model={self.d_model}, seed={self.seed}, std={self.std})"

    def __call__(self, positions: ArrayLike | int) -> NDArray[np.float64]:
        """Look up rows: ``table[positions]``, shape ``(n, d_model)``.

        Parameters
        ----------
        positions : int or array_like of int, shape (n,)
            A count ``n`` (positions ``0 .. n-1``, as in :func:`posenc.sinusoidal`)
            or a 1-D array of whole-number positions in ``[0, max_len)``.

        Returns
        -------
        rows : ndarray of float64, shape (n, d_model)
            A copy of the selected rows.

        Raises
        ------
        TypeError
            If ``positions`` is a float/bool/str instead of a count or holds non-numbers.
        ValueError
            If a position is fractional, non-finite, < 0 or >= ``max_len``
            (the message says the table cannot extrapolate past ``max_len``).
        """
        return self.table[self._indices(positions)]

    def _indices(self, positions: ArrayLike | int) -> NDArray[np.intp]:
        """Validate positions and turn them into row indices, shape ``(n,)``."""
        as_float = as_positions(positions)  # (n,), finite
        fractional = as_float != np.round(as_float)
        if fractional.any():
            bad = as_float[np.argmax(fractional)]
            raise ValueError(
                f"positions must be whole numbers for a learned table (a lookup has no row between integers), got {bad}"
            )
        outside = (as_float < 0) | (as_float >= self.max_len)
        if outside.any():
            bad = as_float[np.argmax(outside)]
            raise ValueError(
                f"position {bad:.0f} is outside the learned table (rows 0..{self.max_len - 1}): "
                f"a learned table cannot extrapolate past max_len={self.max_len}"
            )
        return as_float.astype(np.intp)
