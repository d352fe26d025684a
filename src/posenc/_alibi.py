"""ALiBi, attention with linear biases (Press, Smith and Lewis, 2022, "Train Short, Test Long").

No position vectors at all: each head ``h`` adds ``-m_h * |i - j|`` to the
score of query ``i`` and key ``j``, a penalty that grows linearly with distance.
The slopes ``m_h`` form a geometric sequence, so some heads look far and some
near. The rule for the slopes follows the paper's reference code
(``get_slopes`` in ofirpress/attention_with_linear_biases), which BLOOM uses too.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc._validate import check_count, check_positive_int

__all__ = ["alibi_bias", "alibi_slopes"]


def _power_of_two_slopes(n_heads: int) -> NDArray[np.float64]:
    """``2^(-8h/n)`` for ``h = 1..n``, shape ``(n,)``."""
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


def alibi_slopes(n_heads: int) -> NDArray[np.float64]:
    r"""The ALiBi slope of every head (Press et al. 2022).

    For ``n`` a power of two the slopes are the geometric sequence

    .. math:: m_h = 2^{-8h/n}, \quad h = 1, \dots, n,

    e.g. ``1/2, 1/4, ..., 1/256`` for 8 heads. Otherwise, with ``p`` the largest
    power of two below ``n``, they are the ``p`` slopes for ``p`` heads followed
    by the first ``n - p`` of every other slope for ``2p`` heads
    (``m_1, m_3, m_5, ...`` of that sequence), the rule of the paper's code.

    Parameters
    ----------
    n_heads : int
        Number of attention heads, positive.

    Returns
    -------
    slopes : ndarray of float64, shape (n_heads,)
        All in ``(0, 1)``.

    Raises
    ------
    TypeError
        If ``n_heads`` is not an int.
    ValueError
        If ``n_heads`` is not positive.

    Examples
    --------
    >>> alibi_slopes(8) * 256  # 1/2, 1/4, ..., 1/256
    array([128.,  64.,  32.,  16.,   8.,   4.,   2.,   1.])
    >>> alibi_slopes(6) * 64  # 4 heads' slopes, then 2^-1 and 2^-3 from the 8-head sequence
    array([16.  ,  4.  ,  1.  ,  0.25, 32.  ,  8.  ])
    """
    n_heads = check_positive_int(n_heads, "n_heads")
    power = 1 << (n_heads.bit_length() - 1)  # largest power of two <= n_heads
    if power == n_heads:
        return _power_of_two_slopes(n_heads)
    extra = _power_of_two_slopes(2 * power)[0::2][: n_heads - power]
    return np.concatenate([_power_of_two_slopes(power), extra])


def alibi_bias(n_heads: int, seq_len: int) -> NDArray[np.float64]:
    r"""ALiBi's additive score bias for every head, query and key.

    .. math:: B[h, i, j] = -m_h \, |i - j|

    with the slopes :math:`m_h` of :func:`alibi_slopes`. Add it to the scores
    :math:`q_i \cdot k_j / \sqrt{d}` before the softmax. A causal model
    (as in the paper) uses only ``j <= i``, where this is ``-m_h (i - j)``:
    combine it with :func:`causal_mask`.

    Parameters
    ----------
    n_heads : int
        Number of heads, positive.
    seq_len : int
        Number of positions, >= 0.

    Returns
    -------
    bias : ndarray of float64, shape (n_heads, seq_len, seq_len)
        Zero on the diagonal, symmetric in ``i`` and ``j``, never positive.

    Raises
    ------
    TypeError
        If ``n_heads`` or ``seq_len`` is not an int.
    ValueError
        If ``n_heads`` is not positive or ``seq_len`` is negative.

    Examples
    --------
    >>> alibi_bias(2, 3)[0]  # slope 1/16
    array([[-0.    , -0.0625, -0.125 ],
           [-0.0625, -0.    , -0.0625],
           [-0.125 , -0.0625, -0.    ]])
    """
    slopes = alibi_slopes(n_heads)  # (n_heads,)
    seq_len = check_count(seq_len, "seq_len")
    positions = np.arange(seq_len)
    distance = np.abs(positions[:, None] - positions[None, :])  # (seq_len, seq_len)
    return -slopes[:, None, None] * distance
