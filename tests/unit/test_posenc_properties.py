"""Hypothesis property tests: finite input never gives NaN/inf, and every
rejected input raises the documented exception type."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posenc import (
    ROPE_TYPES,
    LearnedEmbedding,
    alibi_bias,
    alibi_slopes,
    attention,
    attention_weights,
    rope,
    rope_frequencies,
    sinusoidal,
)

FAST = settings(max_examples=60, deadline=None)

bounded = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
positions_1d = hnp.arrays(
    np.float64,
    st.integers(0, 20),
    elements=st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False),
)
even_dims = st.integers(1, 16).map(lambda h: 2 * h)


@FAST
@given(positions=positions_1d, d_model=even_dims, base=st.floats(1.5, 1e6))
def test_sinusoidal_finite_and_bounded(positions: np.ndarray, d_model: int, base: float) -> None:
    pe = sinusoidal(positions, d_model, base=base)
    assert pe.shape == (len(positions), d_model)
    assert np.isfinite(pe).all()
    assert np.abs(pe).max(initial=0.0) <= 1.0


@FAST
@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=6).map(lambda s: (*s[:-1], 2 * s[-1])),
        elements=bounded,
    ),
    pairing=st.sampled_from(["interleaved", "half"]),
    data=st.data(),
)
def test_rope_finite_and_norm_preserving(x: np.ndarray, pairing: str, data: st.DataObject) -> None:
    seq = x.shape[-2]
    positions = data.draw(
        hnp.arrays(np.float64, seq, elements=st.floats(-1e9, 1e9, allow_nan=False)),
        label="positions",
    )
    y = rope(x, positions, pairing=pairing)
    assert y.shape == x.shape
    assert np.isfinite(y).all()
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-9, atol=1e-9)


@st.composite
def qkv(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    batch = draw(st.sampled_from([(), (2,), (1, 3)]))
    len_q, len_k = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    q = draw(hnp.arrays(np.float64, (*batch, len_q, d_k), elements=bounded))
    k = draw(hnp.arrays(np.float64, (*batch, len_k, d_k), elements=bounded))
    v = draw(hnp.arrays(np.float64, (*batch, len_k, d_v), elements=bounded))
    mask = draw(hnp.arrays(np.bool_, (len_q, len_k)))
    mask[:, draw(st.integers(0, len_k - 1))] = True  # every row keeps one key
    return q, k, v, mask


@FAST
@given(arrays=qkv(), use_mask=st.booleans())
def test_attention_finite_convex(arrays: tuple[np.ndarray, ...], use_mask: bool) -> None:
    q, k, v, mask = arrays
    mask_arg = mask if use_mask else None
    w = attention_weights(q, k, mask=mask_arg)
    out = attention(q, k, v, mask=mask_arg)
    assert np.isfinite(w).all() and np.isfinite(out).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-9)
    if use_mask:
        assert (w[..., ~mask] == 0).all()
    # a convex combination of values stays within their range (per column)
    slack = 1e-9 * (1.0 + np.abs(v).max())
    assert (out >= v.min(axis=-2, keepdims=True) - slack).all()
    assert (out <= v.max(axis=-2, keepdims=True) + slack).all()


# --- rejected inputs --------------------------------------------------------------------


@FAST
@given(d_model=st.integers(-50, 50).filter(lambda d: d <= 0 or d % 2 == 1))
def test_rejects_bad_d_model(d_model: int) -> None:
    with pytest.raises(ValueError, match="d_model"):
        sinusoidal(3, d_model)


@FAST
@given(count=st.floats(allow_nan=True) | st.text(max_size=3) | st.booleans())
def test_rejects_non_integer_count(count: object) -> None:
    with pytest.raises(TypeError, match="positions"):
        sinusoidal(count, 4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="positions"):
        LearnedEmbedding(8, 4)(count)  # type: ignore[arg-type]


@FAST
@given(count=st.integers(max_value=-1))
def test_rejects_negative_count(count: int) -> None:
    with pytest.raises(ValueError, match="positions"):
        sinusoidal(count, 4)


@FAST
@given(
    x=hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 3).map(lambda h: 2 * h))),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
    data=st.data(),
)
def test_rejects_non_finite_everywhere(x: np.ndarray, bad: float, data: st.DataObject) -> None:
    x = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
    where = data.draw(st.tuples(st.integers(0, x.shape[0] - 1), st.integers(0, x.shape[1] - 1)))
    x[where] = bad
    with pytest.raises(ValueError, match="x must be finite"):
        rope(x)
    with pytest.raises(ValueError, match="q must be finite"):
        attention(x, np.ones_like(x), np.ones_like(x))
    with pytest.raises(ValueError, match="v must be finite"):
        attention(np.ones_like(x), np.ones_like(x), x)
    with pytest.raises(ValueError, match="positions must be finite"):
        sinusoidal(x.ravel(), 4)


@FAST
@given(base=st.floats(max_value=0.0) | st.just(np.inf) | st.just(np.nan))
def test_rejects_bad_base(base: float) -> None:
    with pytest.raises(ValueError, match="base"):
        sinusoidal(3, 4, base=base)
    with pytest.raises(ValueError, match="base"):
        rope(np.ones((3, 4)), base=base)


@FAST
@given(
    mask=hnp.arrays(np.bool_, st.tuples(st.integers(1, 4), st.integers(1, 4))),
    row=st.integers(0, 3),
)
def test_rejects_fully_masked_rows(mask: np.ndarray, row: int) -> None:
    mask = mask.copy()
    mask[row % mask.shape[0]] = False
    len_q, len_k = mask.shape
    with pytest.raises(ValueError, match="mask"):
        attention(np.ones((len_q, 2)), np.ones((len_k, 2)), np.ones((len_k, 1)), mask=mask)


# --- RoPE scaling and ALiBi --------------------------------------------------------------

scalings = st.one_of(
    st.builds(lambda s: {"rope_type": "linear", "factor": s}, st.floats(1.0, 64.0)),
    st.builds(lambda s: {"rope_type": "ntk", "factor": s}, st.floats(1.0, 64.0)),
    st.builds(
        lambda s, length, fast, slow: {
            "rope_type": "yarn",
            "factor": s,
            "original_max_position_embeddings": length,
            "beta_fast": max(fast, slow),
            "beta_slow": min(fast, slow),
        },
        st.floats(1.0, 64.0),
        st.integers(16, 1 << 17),
        st.floats(0.5, 64.0),
        st.floats(0.5, 64.0),
    ),
    st.builds(
        lambda s, length, low, gap: {
            "rope_type": "llama3",
            "factor": s,
            "original_max_position_embeddings": length,
            "low_freq_factor": low,
            "high_freq_factor": low + gap,
        },
        st.floats(1.0, 64.0),
        st.integers(16, 1 << 17),
        st.floats(0.25, 8.0),
        st.floats(0.1, 8.0),
    ),
)


@FAST
@given(head_dim=st.integers(2, 128).map(lambda h: 2 * h), base=st.floats(2.0, 1e7), scaling=scalings)
def test_scaled_frequencies_lie_between_theta_over_s_and_theta(head_dim: int, base: float, scaling: dict) -> None:
    """Every rescaling slows pairs down by at most the factor, never speeds them up (NTK: up to rounding)."""
    inv_freq, scale = rope_frequencies(head_dim, base=base, scaling=scaling)
    theta, _ = rope_frequencies(head_dim, base=base)
    assert inv_freq.shape == (head_dim // 2,)
    assert np.isfinite(inv_freq).all() and np.isfinite(scale)
    assert np.all(inv_freq <= theta * (1 + 1e-12))
    assert np.all(inv_freq >= theta / scaling["factor"] * (1 - 1e-12))
    assert np.all(np.diff(inv_freq) <= 0)  # still slowest last
    assert scale >= 1.0


@FAST
@given(
    x=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(2, 8).map(lambda h: 2 * h)), elements=bounded),
    scaling=scalings,
)
def test_scaled_rope_finite_and_scales_norms(x: np.ndarray, scaling: dict) -> None:
    y = rope(x, np.arange(len(x)) * 997.0, scaling=scaling)
    _, scale = rope_frequencies(x.shape[-1], scaling=scaling)
    assert np.isfinite(y).all()
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), scale * np.linalg.norm(x, axis=-1), rtol=1e-9, atol=1e-6)


@FAST
@given(n_heads=st.integers(1, 300), seq_len=st.integers(0, 12))
def test_alibi_slopes_and_bias(n_heads: int, seq_len: int) -> None:
    slopes = alibi_slopes(n_heads)
    assert slopes.shape == (n_heads,)
    assert np.all((slopes > 0) & (slopes < 1)) and len(np.unique(slopes)) == n_heads
    power = 2 ** int(np.floor(np.log2(n_heads)))
    np.testing.assert_allclose(slopes[:power], 2.0 ** (-8.0 * np.arange(1, power + 1) / power), rtol=1e-14)
    bias = alibi_bias(n_heads, seq_len)
    assert bias.shape == (n_heads, seq_len, seq_len)
    i, j = np.indices((seq_len, seq_len))
    np.testing.assert_allclose(bias, -slopes[:, None, None] * np.abs(i - j), rtol=1e-15)


@FAST
@given(
    rope_type=st.text(max_size=8).filter(lambda t: t not in ROPE_TYPES),
    factor=st.floats(max_value=0.999, allow_nan=False, allow_infinity=False),
)
def test_rejects_bad_scaling(rope_type: str, factor: float) -> None:
    with pytest.raises(ValueError, match="rope_type"):
        rope_frequencies(8, scaling={"rope_type": rope_type, "factor": 2.0})
    with pytest.raises(ValueError, match=r"scaling\['factor'\]"):
        rope_frequencies(8, scaling={"rope_type": "linear", "factor": factor})
