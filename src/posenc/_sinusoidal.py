"""Fixed sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

Every position ``p`` gets a vector of ``d_model / 2`` (sin, cos) pairs, one
pair per frequency. Pair ``i`` turns at angular speed ``1 / base^(2i/d_model)``:
pair 0 once per radian, the last pair roughly ``base`` times slower. Because a
shift by ``k`` positions rotates each pair by a fixed angle, ``PE(p + k)`` is a
linear function of ``PE(p)`` -- the property the paper hoped attention could use
to read relative offsets.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._validate import as_positions, check_angles_finite, check_d_model, check_positive

__all__ = ["frequencies", "sinusoidal"]

# Angles per block: 2**17 float64 = 1 MiB, small enough to stay in cache while
# sin and cos read it, large enough that the Python loop costs nothing.
_BLOCK_ANGLES = 1 << 17


def frequencies(d_model: int, *, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Angular frequencies ``1 / base^(2i / d_model)`` of the ``d_model / 2`` pairs.

    .. math:: \omega_i = \mathrm{base}^{-2i/d_{model}}, \quad i = 0, \dots, d_{model}/2 - 1

    These are also RoPE's :math:`\theta_i`.

    Parameters
    ----------
    d_model : int
        Embedding width, positive and even.
    base : float, default 10000.0
        Wavelength scale, positive and finite.

    Returns
    -------
    omega : ndarray of float64, shape (d_model // 2,)
        Decreasing from 1 (for ``base > 1``).

    Raises
    ------
    TypeError, ValueError
        If ``d_model`` is not a positive even int or ``base`` is not positive and finite.

    Examples
    --------
    >>> frequencies(4, base=100.0)
    array([1. , 0.1])
    """
    d_model = check_d_model(d_model)
    base = check_positive(base, "base")
    return 1.0 / _denominators(d_model, base)


def _denominators(d_model: int, base: float) -> NDArray[np.float64]:
    """``base^(2i / d_model)`` for ``i = 0 .. d_model/2 - 1``, shape ``(d_model // 2,)``."""
    two_i = np.arange(0, d_model, 2)  # 0, 2, 4, ..., d_model - 2
    return base ** (two_i / d_model)


def sinusoidal(positions: ArrayLike | int, d_model: int, *, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Sinusoidal positional encoding, sin/cos interleaved as in the paper.

    .. math::

        PE[p, 2i]   &= \sin\left(p / \mathrm{base}^{2i/d_{model}}\right) \\
        PE[p, 2i+1] &= \cos\left(p / \mathrm{base}^{2i/d_{model}}\right)

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        Either a count ``n`` (positions ``0, 1, ..., n - 1``; numpy integers are
        fine, bool is not) or a 1-D array of finite real positions. Fractional,
        negative and very large positions are allowed: the formula is defined
        for every real ``p``, which is what lets the encoding extrapolate.
    d_model : int
        Embedding width; positive and even (sin/cos pairs).
    base : float, default 10000.0
        Sets the longest wavelength, ``2 * pi * base``. Positive and finite.

    Returns
    -------
    pe : ndarray of float64, shape (n, d_model)
        Row ``r`` encodes ``positions[r]``. Every entry lies in ``[-1, 1]``.

    Raises
    ------
    TypeError
        If ``positions`` is a float, bool or string instead of a count, holds
        non-numbers, or ``d_model`` / ``base`` have the wrong type.
    ValueError
        If the count is negative, ``positions`` is not 1-D or not finite,
        ``d_model`` is not positive and even, or ``base`` is not positive and finite.

    Examples
    --------
    >>> pe = sinusoidal(50, 8)
    >>> pe.shape
    (50, 8)
    >>> np.round(pe[1, :2], 4)  # sin(1), cos(1): the fastest pair turns 1 rad per step
    array([0.8415, 0.5403])
    >>> np.round(sinusoidal([0.5, 1e9], 4), 3).shape  # fractional and huge positions work
    (2, 4)
    """
    positions = as_positions(positions)  # (n,)
    d_model = check_d_model(d_model)
    base = check_positive(base, "base")
    denominators = _denominators(d_model, base)  # (d_model/2,)
    with np.errstate(over="ignore", divide="ignore"):  # a tiny base: check_angles_finite says so
        fastest = float(np.max(1.0 / denominators))  # rad per position
    check_angles_finite(positions, fastest, base)
    return _fill_sin_cos(positions, denominators)


def _fill_sin_cos(positions: NDArray[np.float64], denominators: NDArray[np.float64]) -> NDArray[np.float64]:
    """Write sin into the even columns and cos into the odd columns, block by block.

    The angles ``p / base^(2i/d)`` are computed once per (position, pair) and
    sin/cos write straight into strided views of the output: no full-size
    temporaries, no interleaving copy.
    """
    n, half = len(positions), len(denominators)
    pe = np.empty((n, 2 * half))  # (n, d_model), float64
    rows = max(1, _BLOCK_ANGLES // half)
    for start in range(0, n, rows):
        block = slice(start, start + rows)
        angles = positions[block, None] / denominators  # (rows, d_model/2)
        np.sin(angles, out=pe[block, 0::2])  # PE[p, 2i]
        np.cos(angles, out=pe[block, 1::2])  # PE[p, 2i+1]
    return pe
