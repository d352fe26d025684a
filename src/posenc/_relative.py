"""Relative positions: what a score sees of the offset ``j - i`` between query ``i`` and key ``j``.

Four ways to turn an offset into something attention can use, each as its
reference defines it:

* ``t5_relative_bucket`` -- T5's buckets (Raffel et al. 2020, section 2.1): one
  learned scalar per bucket, exact buckets for small distances and logarithmic
  ones up to ``max_distance``. The arithmetic is that of ``_relative_position_bucket``
  in Hugging Face transformers, ``src/transformers/models/t5/modeling_t5.py``
  (read at commit 6b8b757dfcb582379a64f013cdce46c43629f2b0), which comes from Mesh
  TensorFlow, including its float32 rounding;
* ``shaw_relative_indices`` -- Shaw, Uszkoreit and Vaswani (2018), section 3.2: one
  learned vector per offset, clipped to ``[-k, k]``, as ``_generate_relative_positions_matrix``
  in tensor2tensor's ``tensor2tensor/layers/common_attention.py`` indexes them;
* ``kerple_log_bias`` / ``kerple_power_bias`` -- KERPLE (Chi, Fan, Ramadge and
  Rudnicky 2022), the logarithmic and power kernels as ``ParallelKerpleLog`` and
  ``ParallelKerplePower`` in chijames/KERPLE's ``megatron/mpu/layers.py`` compute them;
* ``fire_distance`` -- FIRE (Li et al. 2023, "Functional Interpolation for Relative
  Positions"): the distance ``psi(i - j) / psi(max(L, i))`` that its MLP reads, as
  the PyTorch module printed with the paper computes it.

Integer results are ``np.intp``, the index type of the platform (int32 in
Pyodide's wasm32), so they index tables and feed ``np.bincount`` everywhere.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._validate import (
    as_int_array,
    as_real_array,
    check_bool,
    check_count,
    check_positive,
    check_positive_int,
)

__all__ = ["fire_distance", "kerple_log_bias", "kerple_power_bias", "shaw_relative_indices", "t5_relative_bucket"]


def t5_relative_bucket(
    relative_position: ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> NDArray[np.intp]:
    r"""T5's bucket for each relative position ``r = j - i`` (key minus query).

    With :math:`B` buckets per direction (``num_buckets // 2`` if ``bidirectional``,
    else ``num_buckets``), :math:`e = \lfloor B/2 \rfloor` exact buckets and
    ``D = max_distance``, the distance is :math:`n = |r|` (bidirectional) or
    :math:`n = \max(-r, 0)` (causal: keys after the query all count as distance 0), and

    .. math::

        \mathrm{bucket}(n) = \begin{cases}
            n & n < e \\
            \min\!\left(B - 1,\; e + \left\lfloor
                \dfrac{\ln(n / e)}{\ln(D / e)} (B - e) \right\rfloor\right) & n \ge e
        \end{cases}

    plus ``B`` for keys after the query (:math:`r > 0`) when ``bidirectional``. The
    second line is computed as transformers computes it, in float32 and in this
    order: ``float32(n) / e``, its float32 logarithm, divided by ``ln(D / e)`` (a
    Python float, rounded to float32), times ``B - e``, then truncated. At the
    offsets where the exact quotient is a whole number this rounding decides the
    bucket: with ``num_buckets=9, max_distance=128`` (causal), distance 8 has
    :math:`\ln 2 / \ln 32 \cdot 5 = 1` exactly and lands in bucket 5, while float64
    arithmetic gives 0.99999... and bucket 4.

    Parameters
    ----------
    relative_position : int or array_like of int
        Offsets ``memory_position - query_position``, any shape.
    bidirectional : bool, default True
        True for an encoder (keys on both sides get their own buckets), False for
        a causal decoder.
    num_buckets : int, default 32
        Number of buckets in all; at least 2 per direction.
    max_distance : int, default 128
        Distance from which every offset shares the last bucket; larger than the
        ``e`` exact buckets (``num_buckets // 4`` bidirectional, ``num_buckets // 2`` causal).

    Returns
    -------
    bucket : ndarray of intp, same shape as ``relative_position``
        Values in ``0 .. num_buckets - 1`` (``0 .. num_buckets // 2 * 2 - 1`` when
        bidirectional with an odd ``num_buckets``, as in transformers).

    Raises
    ------
    TypeError
        If ``relative_position`` does not hold integers, ``bidirectional`` is not a
        bool, or ``num_buckets`` / ``max_distance`` is not an int.
    ValueError
        If ``num_buckets`` leaves fewer than 2 buckets per direction, or
        ``max_distance`` is not larger than the exact range (the logarithm would
        divide by ``ln 1 = 0``; transformers returns garbage there).

    Examples
    --------
    >>> t5_relative_bucket(np.arange(-3, 4))  # keys before the query: 3 2 1; after: 16 + 1 2 3
    array([ 3,  2,  1,  0, 17, 18, 19])
    >>> t5_relative_bucket(-np.array([0, 15, 16, 31, 32, 127, 128, 1000]), bidirectional=False)
    array([ 0, 15, 16, 21, 21, 31, 31, 31])
    """
    relative_position = as_int_array(relative_position, "relative_position")
    bidirectional = check_bool(bidirectional, "bidirectional")
    num_buckets = check_positive_int(num_buckets, "num_buckets")
    max_distance = check_positive_int(max_distance, "max_distance")
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_direction // 2
    _check_bucket_sizes(num_buckets, max_distance, per_direction, max_exact, bidirectional)
    if bidirectional:
        after_query = (relative_position > 0) * per_direction  # keys after the query: the upper half
        distance = np.abs(relative_position)
    else:
        after_query = 0
        distance = np.maximum(-relative_position, 0)
    far = _log_bucket(distance, max_exact, max_distance, per_direction)
    return (after_query + np.where(distance < max_exact, distance, far)).astype(np.intp)


def _check_bucket_sizes(num_buckets: int, max_distance: int, per_direction: int, max_exact: int, both: bool) -> None:
    """At least one exact bucket, and a logarithmic range that does not divide by ``ln 1``."""
    direction = "num_buckets // 2 per direction (bidirectional)" if both else "num_buckets (causal)"
    if max_exact < 1:
        raise ValueError(
            f"num_buckets={num_buckets} leaves {per_direction} bucket(s) per direction; {direction} must be at least 2"
        )
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be larger than the {max_exact} exact buckets "
            f"(half of {direction}), got max_distance={max_distance} for num_buckets={num_buckets}"
        )


def _log_bucket(distance: NDArray[np.int64], max_exact: int, max_distance: int, per_direction: int) -> NDArray:
    """``e + trunc(ln(n/e) / ln(D/e) * (B - e))`` capped at ``B - 1``, in transformers' float32 steps.

    Distances below ``e`` are raised to ``e`` first (their bucket is the exact
    one, this value is discarded), so the logarithm never sees 0.
    """
    ratio = np.maximum(distance, max_exact).astype(np.float32) / np.float32(max_exact)  # float32 division
    log_ratio = np.log(ratio.astype(np.float64)).astype(np.float32)  # float32 log, correctly rounded
    scaled = log_ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(per_direction - max_exact)
    steps = np.minimum(scaled, np.float32(per_direction - 1 - max_exact)).astype(np.int64)  # trunc, as .to(long)
    return max_exact + steps


def shaw_relative_indices(length: int, k: int) -> NDArray[np.intp]:
    r"""Index of the relative-position embedding of every (query, key) pair (Shaw et al. 2018).

    .. math:: \mathrm{index}[i, j] = \mathrm{clip}(j - i, -k, k) + k

    Shaw et al. learn ``2k + 1`` vectors :math:`w_{-k}, \dots, w_k` and give the pair
    ``(i, j)`` the vector :math:`w_{\mathrm{clip}(j - i, k)}`; this is the row of that
    vector in a ``(2k + 1, d)`` table, as tensor2tensor's
    ``_generate_relative_positions_matrix`` computes it. Offsets beyond ``k`` share
    the end rows, so any length works with the same table.

    Parameters
    ----------
    length : int
        Sequence length, >= 0.
    k : int
        Largest offset told apart (Shaw et al.'s clipping distance), >= 0.

    Returns
    -------
    index : ndarray of intp, shape (length, length)
        Values in ``0 .. 2k``; ``k`` on the diagonal, constant along each diagonal.

    Raises
    ------
    TypeError
        If ``length`` or ``k`` is not an int.
    ValueError
        If ``length`` or ``k`` is negative.

    Examples
    --------
    >>> shaw_relative_indices(4, 1)
    array([[1, 2, 2, 2],
           [0, 1, 2, 2],
           [0, 0, 1, 2],
           [0, 0, 0, 1]])
    """
    length = check_count(length, "length")
    k = check_count(k, "k")
    positions = np.arange(length, dtype=np.intp)
    offset = positions[None, :] - positions[:, None]  # (length, length), j - i
    return np.clip(offset, -k, k) + k


def _head_parameters(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """A positive finite number or a 1-D array of them (one per head), as float64."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a positive number or a 1-D array of them (one per head), got {value!r}")
    arr = as_real_array(value, name, min_ndim=0).astype(np.float64)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or a 1-D array (one per head), got shape {arr.shape}")
    if not np.all(arr > 0):
        raise ValueError(f"{name} must be positive, got {value!r}")
    return arr


def _distances(seq_len: int, r1: NDArray, r2: NDArray) -> tuple[NDArray[np.float64], NDArray, NDArray]:
    """``|i - j|`` of shape (seq_len, seq_len), and ``r1``, ``r2`` shaped to broadcast against it."""
    try:
        heads = np.broadcast_shapes(r1.shape, r2.shape)
    except ValueError:
        raise ValueError(
            f"r1 and r2 must have the same number of heads, got shapes r1.shape={r1.shape} and r2.shape={r2.shape}"
        ) from None
    positions = np.arange(seq_len, dtype=np.float64)
    distance = np.abs(positions[:, None] - positions[None, :])  # (seq_len, seq_len)
    return distance, np.broadcast_to(r1, heads)[..., None, None], np.broadcast_to(r2, heads)[..., None, None]


def kerple_log_bias(seq_len: int, r1: ArrayLike, r2: ArrayLike) -> NDArray[np.float64]:
    r"""KERPLE's logarithmic kernel as a score bias (Chi et al. 2022).

    .. math:: B[h, i, j] = -r_1 \ln\!\left(1 + r_2 \, |i - j|\right), \quad r_1, r_2 > 0

    ``r1`` and ``r2`` are learned per head (``bias_p`` and ``bias_a`` of
    ``ParallelKerpleLog`` in the paper's code, which clamps both to at least 0.01).
    Add the bias to the scores before the softmax, like ALiBi's; a causal model
    uses only ``j <= i`` (the code zeroes the entries above the diagonal, which the
    mask hides anyway; here they mirror those below).

    Parameters
    ----------
    seq_len : int
        Number of positions, >= 0.
    r1, r2 : float or array_like of float, shape (n_heads,)
        Positive and finite; a number for one head, or one value per head
        (``r1`` and ``r2`` broadcast together).

    Returns
    -------
    bias : ndarray of float64, shape (*heads, seq_len, seq_len)
        ``(seq_len, seq_len)`` for numbers, ``(n_heads, seq_len, seq_len)`` for
        arrays. Zero on the diagonal, never positive; grows like a logarithm.

    Raises
    ------
    TypeError
        If ``seq_len`` is not an int or ``r1`` / ``r2`` is not numeric.
    ValueError
        If ``seq_len`` is negative, or ``r1`` / ``r2`` is not positive and finite,
        has more than one axis, or their head counts differ.

    Examples
    --------
    >>> kerple_log_bias(3, 1.0, np.e - 1)  # -ln(1 + (e - 1) d): 0, -1, -ln(2e - 1)
    array([[-0.        , -1.        , -1.48988013],
           [-1.        , -0.        , -1.        ],
           [-1.48988013, -1.        , -0.        ]])
    """
    seq_len = check_count(seq_len, "seq_len")
    distance, r1, r2 = _distances(seq_len, _head_parameters(r1, "r1"), _head_parameters(r2, "r2"))
    return -r1 * np.log1p(r2 * distance)


def kerple_power_bias(seq_len: int, r1: ArrayLike, r2: ArrayLike) -> NDArray[np.float64]:
    r"""KERPLE's power kernel as a score bias (Chi et al. 2022).

    .. math:: B[h, i, j] = -r_1 \, |i - j|^{r_2}, \quad r_1 > 0,\; 0 < r_2 \le 2

    ``r1`` and ``r2`` are learned per head (``bias_a`` and ``bias_p`` of
    ``ParallelKerplePower``, which clamps ``r2`` to ``[0.01, 2]``: above 2 the
    kernel is no longer conditionally positive definite). ``r2 = 1`` is ALiBi's
    linear penalty with slope ``r1``. As with :func:`kerple_log_bias`, a causal
    model uses only ``j <= i``.

    Parameters
    ----------
    seq_len : int
        Number of positions, >= 0.
    r1 : float or array_like of float, shape (n_heads,)
        Positive and finite.
    r2 : float or array_like of float, shape (n_heads,)
        In ``(0, 2]``.

    Returns
    -------
    bias : ndarray of float64, shape (*heads, seq_len, seq_len)
        As :func:`kerple_log_bias`.

    Raises
    ------
    TypeError, ValueError
        As :func:`kerple_log_bias`; also if ``r2 > 2``.

    Examples
    --------
    >>> kerple_power_bias(4, 0.5, 2.0)[3]  # -0.5 d^2 for the last query
    array([-4.5, -2. , -0.5, -0. ])
    >>> kerple_power_bias(3, [0.5, 0.25], 1.0)[:, 2]  # r2 = 1: ALiBi with slopes 1/2 and 1/4
    array([[-1.  , -0.5 , -0.  ],
           [-0.5 , -0.25, -0.  ]])
    """
    seq_len = check_count(seq_len, "seq_len")
    r1, r2 = _head_parameters(r1, "r1"), _head_parameters(r2, "r2")
    if np.any(r2 > 2.0):
        raise ValueError(f"r2 must be in (0, 2] (the power kernel's exponent), got {r2.tolist()!r}")
    distance, r1, r2 = _distances(seq_len, r1, r2)
    return -r1 * distance**r2


def fire_distance(length: int, *, c: float = 0.1, threshold: float = 512.0) -> NDArray[np.float64]:
    r"""FIRE's normalised distance, the input of its MLP (Li et al. 2023).

    .. math::

        \psi(x) = \ln(c x + 1), \qquad
        \delta[i, j] = \frac{\psi(i - j)}{\psi(\max(L, i))}, \quad j \le i

    with positions counted from 0, ``c > 0`` and the threshold ``L > 0`` (both
    learned in FIRE; the defaults are the initial values of the paper's code).
    FIRE's bias is :math:`f_\theta(\delta[i, j])` for a small MLP
    :math:`f_\theta`. Dividing by the query's own position maps every causal
    distance into ``[0, 1]`` whatever the length ("progressive interpolation"),
    and the threshold keeps short sequences (``i < L``) from being stretched. As
    in the paper's code, ``|i - j|`` is used above the diagonal (``j > i``), which
    a causal mask hides; the code also adds ``1e-6`` to the denominator, left out here.

    Parameters
    ----------
    length : int
        Sequence length, >= 0.
    c : float, default 0.1
        Slope inside the logarithm, positive and finite.
    threshold : float, default 512.0
        ``L``: queries before position ``L`` are normalised by ``psi(L)``. Positive and finite.

    Returns
    -------
    distance : ndarray of float64, shape (length, length)
        Row ``i`` (query), column ``j`` (key). In ``[0, 1]`` for ``j <= i``, zero on
        the diagonal, increasing away from it along a row.

    Raises
    ------
    TypeError
        If ``length`` is not an int or ``c`` / ``threshold`` is not a number.
    ValueError
        If ``length`` is negative or ``c`` / ``threshold`` is not positive and finite.

    Examples
    --------
    >>> np.round(fire_distance(4, c=1.0, threshold=1.0), 4)[3]  # ln(d + 1) / ln(4)
    array([1.    , 0.7925, 0.5   , 0.    ])
    """
    length = check_count(length, "length")
    c = check_positive(c, "c")
    threshold = check_positive(threshold, "threshold")
    positions = np.arange(length, dtype=np.float64)
    distance = np.abs(positions[:, None] - positions[None, :])  # (length, length)
    normaliser = np.log1p(c * np.maximum(threshold, positions))[:, None]  # (length, 1): psi(max(L, i))
    return np.log1p(c * distance) / normaliser
