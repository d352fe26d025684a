"""Scaled dot-product attention (Vaswani et al., 2017, section 3.2.1).

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Shapes follow the usual convention: ``q`` is ``(..., len_q, d_k)``, ``k`` is
``(..., len_k, d_k)``, ``v`` is ``(..., len_k, d_v)``; leading axes (batch,
heads) broadcast like ``np.matmul``.

Note that nothing here knows about positions: without a positional encoding,
self-attention treats a sentence as a *bag* of tokens (it is
permutation-equivariant). That is why the other modules of this package exist.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._validate import as_real_array, check_count

__all__ = ["attention", "attention_weights", "causal_mask", "self_attention"]


def causal_mask(n: int) -> NDArray[np.bool_]:
    """Lower-triangular mask: query ``i`` may attend to keys ``j <= i``.

    Parameters
    ----------
    n : int
        Sequence length, >= 0.

    Returns
    -------
    mask : ndarray of bool, shape (n, n)
        ``mask[i, j] = (j <= i)``; True means "may attend".

    Raises
    ------
    TypeError
        If ``n`` is not an int (bool and floats are rejected).
    ValueError
        If ``n`` is negative.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    n = check_count(n, "n")
    return np.tri(n, dtype=bool)


def attention_weights(q: ArrayLike, k: ArrayLike, *, mask: ArrayLike | None = None) -> NDArray[np.floating]:
    r"""Attention weights ``softmax(q k^T / sqrt(d_k))`` over the keys.

    .. math:: A = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right),
              \quad \textstyle\sum_j A_{ij} = 1

    The softmax subtracts each row's maximum first, so scores as large as
    ``1e8`` (or larger) give finite weights.

    Parameters
    ----------
    q : array_like, shape (..., len_q, d_k)
        Queries, finite.
    k : array_like, shape (..., len_k, d_k)
        Keys, finite; ``len_k >= 1``.
    mask : array_like of bool, optional
        Broadcastable to ``(..., len_q, len_k)``; True = may attend, False =
        weight forced to exactly 0. Every query must be allowed at least one key.

    Returns
    -------
    weights : ndarray, shape (..., len_q, len_k)
        Non-negative, each row sums to 1. float64 unless all inputs are a
        smaller float type (then that type); integers count as float64.

    Raises
    ------
    TypeError
        If ``q``/``k`` are not real numeric arrays or ``mask`` is not boolean.
    ValueError
        If an array has fewer than 2 dimensions or a NaN/inf; if the shapes
        do not fit (message says "shape" and gives both shapes); if ``mask``
        does not broadcast or masks out every key of some query (a fully
        masked row has no softmax -- we raise rather than return NaN or guess).

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])
    >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> w = attention_weights(q, k)
    >>> w.shape, bool(np.isclose(w.sum(), 1.0))
    ((1, 2), True)
    >>> attention_weights(q, k, mask=[[False, True]])
    array([[0., 1.]])
    """
    q = as_real_array(q, "q", min_ndim=2)
    k = as_real_array(k, "k", min_ndim=2)
    _check_query_key(q, k)
    scores = _scaled_scores(q, k)  # (..., len_q, len_k)
    if mask is not None:
        mask = _as_mask(mask, scores.shape)
        scores = np.where(mask, scores, -np.inf)  # masked keys get exp(-inf) = 0
    return _softmax(scores)


def attention(q: ArrayLike, k: ArrayLike, v: ArrayLike, *, mask: ArrayLike | None = None) -> NDArray[np.floating]:
    r"""Scaled dot-product attention ``softmax(q k^T / sqrt(d_k)) v``.

    .. math:: \mathrm{Attention}(Q, K, V) =
              \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

    Parameters
    ----------
    q : array_like, shape (..., len_q, d_k)
        Queries, finite.
    k : array_like, shape (..., len_k, d_k)
        Keys, finite; ``len_k >= 1``.
    v : array_like, shape (..., len_k, d_v)
        Values, finite; one per key.
    mask : array_like of bool, optional
        Broadcastable to ``(..., len_q, len_k)``; True = may attend. A query
        row with every key masked raises ``ValueError`` (see
        :func:`attention_weights`).

    Returns
    -------
    out : ndarray, shape (..., len_q, d_v)
        Each output row is a convex combination (weights sum to 1) of the rows
        of ``v``. Leading axes are the broadcast of those of ``q``, ``k``, ``v``.

    Raises
    ------
    TypeError
        If an input is not a real numeric array or ``mask`` is not boolean.
    ValueError
        On NaN/inf input, fewer than 2 dimensions, mismatched shapes (the
        message says "shape" and gives the shapes), or a bad / fully masking ``mask``.

    Examples
    --------
    >>> q = np.zeros((2, 4))                # equal scores -> uniform weights
    >>> k = np.ones((3, 4))
    >>> v = np.array([[0.0], [3.0], [6.0]])
    >>> attention(q, k, v)                  # average of the values
    array([[3.],
           [3.]])
    >>> attention(q, k, v, mask=causal_mask(3)[:2])  # row 0 sees key 0; row 1 keys 0, 1
    array([[0. ],
           [1.5]])
    """
    q = as_real_array(q, "q", min_ndim=2)
    k = as_real_array(k, "k", min_ndim=2)
    v = as_real_array(v, "v", min_ndim=2)
    _check_query_key(q, k)
    _check_key_value(q, k, v)
    weights = attention_weights(q, k, mask=mask)  # (..., len_q, len_k)
    return weights @ v  # (..., len_q, d_v)


def self_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
) -> NDArray[np.floating]:
    """Single-head self-attention: ``attention(x @ w_q, x @ w_k, x @ w_v, mask=mask)``.

    Parameters
    ----------
    x : array_like, shape (..., seq, d_model)
        Token vectors (add or apply positions *before* calling, if wanted).
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key projections.
    w_v : array_like, shape (d_model, d_v)
        Value projection.
    mask : array_like of bool, optional
        Broadcastable to ``(..., seq, seq)``, e.g. :func:`causal_mask`.

    Returns
    -------
    out : ndarray, shape (..., seq, d_v)

    Raises
    ------
    TypeError, ValueError
        As :func:`attention`; also if a projection is not 2-D or its shape does
        not fit ``x`` (the message gives the shapes).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(5, 8))
    >>> w_q, w_k, w_v = (rng.normal(size=(8, 4)) for _ in range(3))
    >>> self_attention(x, w_q, w_k, w_v, mask=causal_mask(5)).shape
    (5, 4)
    """
    x = as_real_array(x, "x", min_ndim=2)
    w_q = as_real_array(w_q, "w_q", min_ndim=2)
    w_k = as_real_array(w_k, "w_k", min_ndim=2)
    w_v = as_real_array(w_v, "w_v", min_ndim=2)
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if w.ndim != 2 or w.shape[0] != x.shape[-1]:
            raise ValueError(
                f"{name} must have shape (d_model, d_out) with d_model = x.shape[-1] = "
                f"{x.shape[-1]}, got {name}.shape={w.shape} for x.shape={x.shape}"
            )
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"w_q and w_k must project to the same d_k, got shapes w_q.shape={w_q.shape} and w_k.shape={w_k.shape}"
        )
    return attention(x @ w_q, x @ w_k, x @ w_v, mask=mask)


# --- helpers -----------------------------------------------------------------


def _check_query_key(q: NDArray, k: NDArray) -> None:
    """``q`` (..., len_q, d_k) and ``k`` (..., len_k, d_k) must fit together."""
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share the last dimension d_k, got shapes q.shape={q.shape} and k.shape={k.shape}"
        )
    if q.shape[-1] == 0:
        raise ValueError(f"d_k must be >= 1, got shapes q.shape={q.shape}, k.shape={k.shape}")
    if k.shape[-2] == 0:
        raise ValueError(f"k must hold at least one key (len_k >= 1), got shape k.shape={k.shape}")
    _check_batch_shapes(q=q, k=k)


def _check_key_value(q: NDArray, k: NDArray, v: NDArray) -> None:
    """``v`` (..., len_k, d_v) needs one value per key."""
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k and v must hold the same number of keys (axis -2), got shapes k.shape={k.shape} and v.shape={v.shape}"
        )
    _check_batch_shapes(q=q, k=k, v=v)


def _check_batch_shapes(**arrays: NDArray) -> None:
    """The leading (batch) axes must broadcast together."""
    try:
        np.broadcast_shapes(*(a.shape[:-2] for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name}.shape={a.shape}" for name, a in arrays.items())
        raise ValueError(f"leading (batch) axes do not broadcast: got shapes {shapes}") from None


def _scaled_scores(q: NDArray, k: NDArray) -> NDArray[np.floating]:
    """``q k^T / sqrt(d_k)``, shape ``(..., len_q, len_k)``, in the common float dtype.

    ``sqrt(d_k)`` is a Python float, which keeps float32 (or float16) scores in their type.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = (q @ np.swapaxes(k, -1, -2)) / math.sqrt(q.shape[-1])
    if not np.isfinite(scores).all():
        raise ValueError("q @ k^T overflowed (|q| and |k| too large for the float type); rescale q and k")
    return scores


def _as_mask(mask: ArrayLike, scores_shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """Check ``mask`` is boolean, broadcasts to ``scores_shape`` and leaves no row empty."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"mask must be a boolean array (True = may attend), got dtype {mask.dtype}")
    try:
        full = np.broadcast_to(mask, scores_shape)  # (..., len_q, len_k)
    except ValueError:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the attention scores "
            f"shape (..., len_q, len_k) = {scores_shape}"
        ) from None
    empty_rows = ~full.any(axis=-1)  # (..., len_q)
    if empty_rows.any():
        row = tuple(int(i) for i in np.argwhere(empty_rows)[0])
        raise ValueError(
            f"mask blocks every key for query row {row}: softmax over no keys is undefined; "
            f"let each query attend to at least one key (e.g. itself)"
        )
    return full


def _softmax(scores: NDArray[np.floating]) -> NDArray[np.floating]:
    """Row-wise softmax over the last axis, stable: ``exp(s - max s) / sum``."""
    shifted = scores - scores.max(axis=-1, keepdims=True)  # max entry -> 0, no overflow
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)
