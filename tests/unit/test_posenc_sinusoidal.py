"""Properties of posenc.sinusoidal: formula values, boundedness, distinct rows,
relative-offset structure (dot products and the rotation matrix M_k), extrapolation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from posenc import sinusoidal


def test_formula_at_hand_computed_points() -> None:
    pe = sinusoidal(4, 8)  # frequencies 1, 1/10, 1/100, 1/1000
    assert pe[1, 0] == pytest.approx(math.sin(1.0), abs=1e-15)
    assert pe[1, 1] == pytest.approx(math.cos(1.0), abs=1e-15)
    # last pair: 10000^(6/8) = 1000, so PE[3, 6] = sin(3/1000), PE[3, 7] = cos(3/1000)
    assert pe[3, 6] == pytest.approx(math.sin(0.003), abs=1e-15)
    assert pe[3, 7] == pytest.approx(math.cos(0.003), abs=1e-15)
    # pair 1: 10000^(2/8) = 10
    assert pe[2, 2] == pytest.approx(math.sin(0.2), abs=1e-15)
    assert pe[2, 3] == pytest.approx(math.cos(0.2), abs=1e-15)


def test_last_column_uses_lowest_frequency() -> None:
    d_model, p = 64, 123
    frequency = 10000.0 ** (-(d_model - 2) / d_model)
    pe = sinusoidal(p + 1, d_model)
    assert pe[p, d_model - 1] == pytest.approx(math.cos(p * frequency), abs=1e-12)
    assert pe[p, d_model - 2] == pytest.approx(math.sin(p * frequency), abs=1e-12)


def test_matches_loop_over_the_paper_formula() -> None:
    positions, d_model, base = [0.0, 1.0, 2.5, 17.0, 1000.0], 10, 500.0
    pe = sinusoidal(positions, d_model, base=base)
    for row, p in enumerate(positions):
        for i in range(d_model // 2):
            angle = p / base ** (2 * i / d_model)
            assert pe[row, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[row, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)


def test_position_zero_is_sin0_cos0() -> None:
    np.testing.assert_array_equal(sinusoidal(1, 6)[0], [0, 1, 0, 1, 0, 1])


def test_shape_dtype_and_count_forms() -> None:
    pe = sinusoidal(7, 12)
    assert pe.shape == (7, 12)
    assert pe.dtype == np.float64
    np.testing.assert_array_equal(pe, sinusoidal(np.arange(7), 12))
    np.testing.assert_array_equal(pe, sinusoidal(np.int64(7), 12))
    np.testing.assert_array_equal(pe, sinusoidal(np.int32(7), np.int64(12)))
    np.testing.assert_array_equal(pe, sinusoidal(list(range(7)), 12))
    assert sinusoidal(0, 4).shape == (0, 4)
    assert sinusoidal([], 4).shape == (0, 4)


def test_bounded_by_one() -> None:
    pe = sinusoidal(2048, 128)
    assert np.abs(pe).max() <= 1.0
    # each (sin, cos) pair lies on the unit circle
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, atol=1e-12)


def test_rows_pairwise_distinct_for_10000_positions() -> None:
    """Minimal pairwise distance over all 10000 x 10000 pairs, chunked.

    Every row has squared norm d_model/2, so |a - b|^2 = d_model - 2 a.b.
    """
    n, d_model = 10_000, 64
    pe = sinusoidal(n, d_model)
    largest_dot = -np.inf  # over pairs a != b
    for start in range(0, n, 1000):
        dots = pe[start : start + 1000] @ pe.T  # (1000, n)
        rows = np.arange(len(dots))
        dots[rows, start + rows] = -np.inf  # ignore each row vs itself
        largest_dot = max(largest_dot, float(dots.max()))
    smallest = d_model - 2.0 * largest_dot  # smallest squared distance
    assert math.sqrt(max(smallest, 0.0)) > 1.0  # nearest pair: neighbours, ~1.47 apart


def test_dot_product_depends_only_on_offset() -> None:
    pe = sinusoidal(600, 32)
    omega = posenc.frequencies(32)
    for k in (0, 1, 7, 100):
        dots = np.einsum("pd,pd->p", pe[: 600 - k], pe[k:])  # PE(p) . PE(p + k), all p
        expected = np.cos(k * omega).sum()  # sum_i cos(k omega_i): no p in it
        np.testing.assert_allclose(dots, expected, atol=1e-9)


def block_rotation(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """M_k with PE(p + k) = PE(p) @ M_k: one 2x2 rotation per (sin, cos) pair."""
    m = np.zeros((d_model, d_model))
    for i, omega in enumerate(posenc.frequencies(d_model, base=base)):
        c, s = math.cos(k * omega), math.sin(k * omega)
        # [sin a, cos a] @ [[c, -s], [s, c]] = [sin(a + k w), cos(a + k w)]
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return m


@pytest.mark.parametrize("k", [1, 5, 37, 2.5])
def test_shift_is_one_fixed_linear_map(k: float) -> None:
    d_model = 16
    positions = np.arange(1000, dtype=np.float64)
    m_k = block_rotation(k, d_model)
    np.testing.assert_allclose(sinusoidal(positions, d_model) @ m_k, sinusoidal(positions + k, d_model), atol=1e-9)


def test_fractional_negative_and_huge_positions() -> None:
    positions = np.array([0.5, -3.25, 1e6 + 0.5, 1e12, 1e15, 1e300, -1e300, 10**30], dtype=object)
    pe = sinusoidal(positions, 16)
    assert np.isfinite(pe).all()
    assert np.abs(pe).max() <= 1.0
    assert pe[0, 0] == pytest.approx(math.sin(0.5))
    # sin is odd, cos is even
    np.testing.assert_allclose(sinusoidal([-3.25], 16)[0, 0::2], -sinusoidal([3.25], 16)[0, 0::2])
    np.testing.assert_allclose(sinusoidal([-3.25], 16)[0, 1::2], sinusoidal([3.25], 16)[0, 1::2])


def test_extrapolation_matches_formula_far_past_training_length() -> None:
    pe = sinusoidal([50_000.0], 8)
    expected = [f(50_000.0 / 10000.0 ** (2 * i / 8)) for i in range(4) for f in (math.sin, math.cos)]
    np.testing.assert_allclose(pe[0], expected, atol=1e-9)


def test_base_changes_frequencies() -> None:
    pe = sinusoidal(2, 4, base=100.0)  # frequencies 1, 1/10
    assert pe[1, 2] == pytest.approx(math.sin(0.1))
    assert sinusoidal(3, 4, base=np.float32(100.0)).shape == (3, 4)
    assert sinusoidal(3, 4, base=100).shape == (3, 4)


def test_frequencies_helper() -> None:
    np.testing.assert_allclose(posenc.frequencies(8), [1.0, 0.1, 0.01, 0.001])
    with pytest.raises(ValueError, match="d_model"):
        posenc.frequencies(3)


def test_large_output_blocks_agree_with_direct_formula() -> None:
    """The blocked fill covers every row exactly once (n not a multiple of the block)."""
    n, d_model = 5003, 96
    positions = np.arange(n, dtype=np.float64)
    angles = positions[:, None] / 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    expected = np.empty((n, d_model))
    expected[:, 0::2], expected[:, 1::2] = np.sin(angles), np.cos(angles)
    np.testing.assert_array_equal(sinusoidal(n, d_model), expected)
