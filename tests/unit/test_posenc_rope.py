"""posenc.rope: rotation formula, norm preservation, relative scores, the two pairings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import PAIRINGS, frequencies, rope

rng = np.random.default_rng(1234)


def rope_complex(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Textbook RoFormer form: pair (x[2i], x[2i+1]) as a complex number times e^{i m theta_i}."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * np.exp(1j * positions[:, None] * theta)
    out = np.empty(x.shape)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def rope_rotate_half(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Hugging Face / GPT-NeoX form: x * cos + rotate_half(x) * sin with tiled tables."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    angles = np.concatenate([positions[:, None] * theta] * 2, axis=-1)  # (seq, d)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    rotate_half = np.concatenate([-x2, x1], axis=-1)
    return x * np.cos(angles) + rotate_half * np.sin(angles)


def test_two_dimensional_rotation_by_position() -> None:
    x = np.array([[1.0, 0.0]] * 4)
    y = rope(x)
    m = np.arange(4)
    np.testing.assert_allclose(y, np.stack([np.cos(m), np.sin(m)], axis=-1), atol=1e-15)


def test_hand_computed_point_d4() -> None:
    # d = 4: theta = (1, 1/100); position 2
    x = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]])
    y = rope(x)[2]
    a0, a1 = 2.0, 0.02
    expected = [
        1 * math.cos(a0) - 2 * math.sin(a0),
        1 * math.sin(a0) + 2 * math.cos(a0),
        3 * math.cos(a1) - 4 * math.sin(a1),
        3 * math.sin(a1) + 4 * math.cos(a1),
    ]
    np.testing.assert_allclose(y, expected, atol=1e-14)
    # half pairing pairs (x0, x2) and (x1, x3)
    yh = rope(x, pairing="half")[2]
    expected_half = [
        1 * math.cos(a0) - 3 * math.sin(a0),
        2 * math.cos(a1) - 4 * math.sin(a1),
        1 * math.sin(a0) + 3 * math.cos(a0),
        2 * math.sin(a1) + 4 * math.cos(a1),
    ]
    np.testing.assert_allclose(yh, expected_half, atol=1e-14)


def test_matches_complex_formulation_interleaved() -> None:
    x = rng.normal(size=(2, 3, 9, 16))
    positions = np.array([0, 1, 2, 3, 5, 8, 13, 21.5, 1000.0])
    np.testing.assert_allclose(rope(x, positions), rope_complex(x, positions), atol=1e-12)


def test_matches_rotate_half_formulation() -> None:
    x = rng.normal(size=(4, 11, 8))
    positions = np.arange(11, dtype=np.float64)
    np.testing.assert_allclose(rope(x, pairing="half"), rope_rotate_half(x, positions), atol=1e-12)
    np.testing.assert_allclose(rope(x, pairing="half", base=500.0), rope_rotate_half(x, positions, 500.0), atol=1e-12)


def test_position_zero_is_identity_and_default_positions() -> None:
    x = rng.normal(size=(5, 6))
    np.testing.assert_allclose(rope(x)[0], x[0], atol=0)
    np.testing.assert_array_equal(rope(x), rope(x, np.arange(5)))
    np.testing.assert_array_equal(rope(x), rope(x, 5))


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_preserves_norms(pairing: str) -> None:
    x = rng.normal(size=(3, 2, 50, 32))
    y = rope(x, pairing=pairing)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_scores_depend_only_on_offset(pairing: str) -> None:
    """rope(q)_m . rope(k)_n == rope(q)_{m+s} . rope(k)_{n+s} for every shift s."""
    d = 32
    q, k = rng.normal(size=(2, d))
    positions = np.arange(200, dtype=np.float64)
    rq = rope(np.tile(q, (200, 1)), positions, pairing=pairing)  # q at every position
    rk = rope(np.tile(k, (200, 1)), positions, pairing=pairing)
    scores = rq @ rk.T  # scores[m, n]
    for offset in (-150, -7, 0, 1, 99):
        diagonal = np.diagonal(scores, offset=-offset)  # all (m, n) with m - n = offset
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-10)
    # and the score really does change with the offset (not trivially constant)
    assert np.ptp(scores[100]) > 1.0


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_fractional_shift_invariance(pairing: str) -> None:
    q, k = rng.normal(size=(2, 1, 8))
    shift = 1234.567
    for m, n in [(0.5, 3.0), (10.0, 2.25)]:
        base = rope(q, [m], pairing=pairing) @ rope(k, [n], pairing=pairing).T
        moved = rope(q, [m + shift], pairing=pairing) @ rope(k, [n + shift], pairing=pairing).T
        np.testing.assert_allclose(moved, base, atol=1e-9)


def test_pairings_are_permutations_of_each_other() -> None:
    d = 12
    x = rng.normal(size=(2, 7, d))
    # perm puts even lanes first, then odd lanes: y[i] = x[2i], y[i + d/2] = x[2i + 1]
    perm = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
    np.testing.assert_allclose(
        rope(x[..., perm], pairing="half"), rope(x, pairing="interleaved")[..., perm], atol=1e-14
    )


def test_batched_equals_per_slice() -> None:
    x = rng.normal(size=(2, 3, 6, 8))
    y = rope(x, pairing="half")
    for b in range(2):
        for h in range(3):
            np.testing.assert_array_equal(y[b, h], rope(x[b, h], pairing="half"))


def test_many_blocks_and_non_contiguous_input() -> None:
    """Leading axes larger than one block, and a transposed (non-contiguous) view."""
    x = rng.normal(size=(40, 64, 128))  # 40 batch entries, several blocks
    positions = np.arange(64, dtype=np.float64)
    np.testing.assert_allclose(rope(x), rope_complex(x, positions), atol=1e-12)
    xt = rng.normal(size=(64, 5, 8)).transpose(1, 0, 2)  # (5, 64, 8), strided
    np.testing.assert_allclose(rope(xt), rope_complex(np.ascontiguousarray(xt), positions))


def test_dtypes() -> None:
    x32 = rng.normal(size=(4, 8)).astype(np.float32)
    y32 = rope(x32)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, rope(x32.astype(np.float64)), rtol=1e-5, atol=1e-6)
    assert rope(np.ones((3, 4), dtype=np.int64)).dtype == np.float64
    assert rope([[1, 0], [1, 0]]).dtype == np.float64


def test_empty_shapes() -> None:
    assert rope(np.zeros((0, 4))).shape == (0, 4)
    assert rope(np.zeros((3, 0, 4))).shape == (3, 0, 4)
    assert rope(np.zeros((0, 5, 4))).shape == (0, 5, 4)


def test_huge_positions_stay_finite() -> None:
    x = rng.normal(size=(3, 8))
    y = rope(x, [1e9, 1e15, -1e300])
    assert np.isfinite(y).all()
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1))


def test_theta_are_the_sinusoidal_frequencies() -> None:
    x = np.zeros((2, 8))
    x[:, 6] = 1.0  # only the last pair, theta_3 = 10000^(-6/8)
    y = rope(x)
    theta = frequencies(8)[3]
    assert y[1, 6] == pytest.approx(math.cos(theta))
    assert y[1, 7] == pytest.approx(math.sin(theta))
