"""Rotary position embedding, RoPE (Su et al., 2021, "RoFormer").

Instead of *adding* a position vector, RoPE *rotates* each pair of coordinates
of a query or key by an angle proportional to its position ``m``:

    (a, b)  ->  (a cos(m theta_i) - b sin(m theta_i),  a sin(m theta_i) + b cos(m theta_i))

Rotations compose, so ``rope(q)_m . rope(k)_n`` depends on ``m - n`` only:
attention scores see *relative* positions, and vector norms are unchanged.

Two conventions exist for which coordinates form a pair; both are supported:

* ``"interleaved"`` -- pairs ``(x[2i], x[2i+1])``: RoFormer, the original LLaMA code.
* ``"half"`` -- pairs ``(x[i], x[i + d/2])``: GPT-NeoX, Hugging Face ``rotate_half``.

They are the same rotation up to a fixed permutation of the feature axis.

``scaling`` rescales the frequencies for contexts longer than the training
length (see ``rope_frequencies``); as in Hugging Face transformers, the rotated
vectors are then multiplied by the returned attention scale (YaRN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._rope_scaling import default_inv_freq, rope_frequencies
from posenc._validate import as_positions, as_real_array, check_angles_finite, check_positive

__all__ = ["PAIRINGS", "rope"]

PAIRINGS: tuple[str, ...] = ("interleaved", "half")
"""Valid values of ``rope(..., pairing=...)``."""

# Half-lanes per block (2**17 float64 = 1 MiB): the scratch buffer stays in cache.
_BLOCK_LANES = 1 << 17


def rope(
    x: ArrayLike,
    positions: ArrayLike | int | None = None,
    *,
    base: float = 10000.0,
    pairing: Literal["interleaved", "half"] = "interleaved",
    scaling: Mapping[str, Any] | None = None,
) -> NDArray[np.floating]:
    r"""Rotate feature pairs of ``x`` by position-dependent angles (RoPE).

    For pair ``i`` of the token at position ``m``, with
    :math:`\theta_i = \mathrm{base}^{-2i/d}` (or the rescaled frequencies and
    attention scale :math:`a` of ``rope_frequencies(d, base=base, scaling=scaling)``;
    :math:`a = 1` without scaling):

    .. math::

        \begin{pmatrix} y_1 \\ y_2 \end{pmatrix} = a
        \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\
                        \sin m\theta_i &  \cos m\theta_i \end{pmatrix}
        \begin{pmatrix} x_1 \\ x_2 \end{pmatrix}

    Parameters
    ----------
    x : array_like, shape (..., seq, d)
        Queries or keys; ``d`` must be even, leading axes (batch, heads) are
        carried along. Must be finite.
    positions : int or array_like, shape (seq,), optional
        Position of each row along axis -2. Default ``0, 1, ..., seq - 1``.
        Fractional or large positions are allowed; they must be finite.
    base : float, default 10000.0
        Frequency base, positive and finite.
    pairing : {"interleaved", "half"}, default "interleaved"
        ``"interleaved"`` rotates ``(x[2i], x[2i+1])`` (RoFormer, LLaMA);
        ``"half"`` rotates ``(x[i], x[i + d/2])`` (GPT-NeoX, HF ``rotate_half``).
    scaling : mapping, optional
        A Hugging Face ``rope_scaling`` mapping, e.g. ``{"rope_type": "linear",
        "factor": 4.0}``; see :func:`rope_frequencies` for the types and keys.

    Returns
    -------
    y : ndarray, shape (..., seq, d)
        A new array. Floating input keeps its dtype (float32 stays float32; the
        angles are still computed in float64); integer input gives float64.

    Raises
    ------
    TypeError
        If ``x`` is not a real numeric array, or ``positions``/``base`` have the wrong type.
    ValueError
        If ``x`` has fewer than 2 dimensions, an odd last dimension, or a
        NaN/inf; if ``positions`` is not 1-D, not finite or its length differs
        from ``seq``; if ``base`` is not positive and finite; if ``pairing``
        is unknown; or if ``scaling`` is invalid (as in :func:`rope_frequencies`).

    Examples
    --------
    >>> x = np.ones((3, 4))                # 3 positions, d = 4
    >>> y = rope(x)
    >>> bool(np.allclose(y[0], x[0]))      # position 0: no rotation
    True
    >>> bool(np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1)))
    True
    >>> np.round(rope(np.array([[1.0, 0.0]]), positions=[np.pi / 2]), 6)  # 90 degrees
    array([[0., 1.]])
    >>> pi = {"rope_type": "linear", "factor": 2.0}  # position interpolation
    >>> bool(np.allclose(rope(x, [0, 2, 4], scaling=pi), rope(x, [0, 1, 2])))
    True
    """
    x = as_real_array(x, "x", min_ndim=2)  # (..., seq, d)
    seq, d = x.shape[-2:]
    if d % 2:
        raise ValueError(
            f"x must have an even last dimension d (features come in rotation pairs), got d={d} for x.shape={x.shape}"
        )
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    positions = as_positions(seq if positions is None else positions)  # a count n means 0 .. n - 1
    if len(positions) != seq:
        raise ValueError(
            f"positions has length {len(positions)} but x has seq={seq} rows along axis -2 (x.shape={x.shape})"
        )
    base = check_positive(base, "base")
    if scaling is None:
        theta, attention_scale = default_inv_freq(d, base), 1.0  # (d/2,)
    else:
        theta, attention_scale = rope_frequencies(d, base=base, scaling=scaling)
    cos, sin = _rotation_tables(positions, theta, attention_scale, base, x.dtype)  # (seq, d/2) each
    return _rotate_pairs(x, cos, sin, pairing)


def _rotation_tables(
    positions: NDArray[np.float64], theta: NDArray[np.float64], scale: float, base: float, dtype: np.dtype
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """``scale * cos(m theta_i)`` and ``scale * sin(m theta_i)``, each of shape ``(seq, d/2)``."""
    if theta.size:
        check_angles_finite(positions, float(np.max(theta)), base)
    angles = positions[:, None] * theta  # (seq, d/2), float64 for accuracy
    tables = np.stack([np.cos(angles), np.sin(angles)])  # (2, seq, d/2)
    if scale != 1.0:
        tables *= scale
    cos, sin = tables.astype(dtype)
    return cos, sin


def _pair_lanes(a: NDArray[np.floating], pairing: str) -> tuple[NDArray, NDArray]:
    """Views of the first and second member of each pair, each ``(..., d/2)``."""
    if pairing == "interleaved":
        return a[..., 0::2], a[..., 1::2]
    half = a.shape[-1] // 2
    return a[..., :half], a[..., half:]


def _rotate_pairs(
    x: NDArray[np.floating], cos: NDArray[np.floating], sin: NDArray[np.floating], pairing: str
) -> NDArray[np.floating]:
    """``(x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos)`` for every pair.

    Works on blocks of the flattened leading axes, writing into views of the
    output with ``out=`` and reusing one half-width scratch buffer, so no
    full-size temporaries are built.
    """
    seq, d = x.shape[-2:]
    y = np.empty(x.shape, dtype=cos.dtype)  # (..., seq, d)
    batch = math.prod(x.shape[:-2])
    x3, y3 = x.reshape(batch, seq, d), y.reshape(batch, seq, d)  # (batch, seq, d)
    step = max(1, _BLOCK_LANES // max(1, seq * d // 2))  # batch entries per block
    scratch = np.empty((min(step, len(x3)), seq, d // 2), dtype=cos.dtype)
    for start in range(0, len(x3), step):
        x_blk, y_blk = x3[start : start + step], y3[start : start + step]
        tmp = scratch[: len(x_blk)]  # (blk, seq, d/2)
        x1, x2 = _pair_lanes(x_blk, pairing)
        y1, y2 = _pair_lanes(y_blk, pairing)
        np.multiply(x1, cos, out=y1)
        np.subtract(y1, np.multiply(x2, sin, out=tmp), out=y1)  # y1 = x1 cos - x2 sin
        np.multiply(x1, sin, out=y2)
        np.add(y2, np.multiply(x2, cos, out=tmp), out=y2)  # y2 = x1 sin + x2 cos
    return y
