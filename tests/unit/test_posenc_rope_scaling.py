"""posenc.rope_frequencies and rope(..., scaling=...) against independent ports.

``transformers_port`` below re-types the arithmetic of Hugging Face
transformers' ``modeling_rope_utils.py`` (commit ef46806472a64b0013ed413781e3afed82bfa047)
line by line with plain ``math`` and Python lists, config-style, so a slip in
posenc's vectorised numpy version shows up as a mismatch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import ROPE_TYPES, frequencies, rope, rope_frequencies

rng = np.random.default_rng(33)

LLAMA31 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def transformers_port(dim: int, base: float, rope_scaling: dict) -> tuple[list[float], float]:
    """Plain-Python port of transformers' rope init functions (linear, yarn, llama3)."""
    inv_freq = [1.0 / (base ** (i / dim)) for i in range(0, dim, 2)]
    rope_type = rope_scaling["rope_type"]
    factor = rope_scaling["factor"]
    if rope_type == "linear":
        return [f / factor for f in inv_freq], 1.0
    if rope_type == "yarn":
        max_position_embeddings = rope_scaling["original_max_position_embeddings"]
        attention_factor = rope_scaling.get("attention_factor")
        if attention_factor is None:
            attention_factor = 0.1 * math.log(factor) + 1.0
        beta_fast = rope_scaling.get("beta_fast") or 32
        beta_slow = rope_scaling.get("beta_slow") or 1

        def find_correction_dim(num_rotations):
            return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

        low = max(math.floor(find_correction_dim(beta_fast)), 0)
        high = min(math.ceil(find_correction_dim(beta_slow)), dim - 1)
        if low == high:
            high += 0.001
        pos_freqs = [base ** (i / dim) for i in range(0, dim, 2)]
        out = []
        for j, pos_freq in enumerate(pos_freqs):
            ramp = min(max((j - low) / (high - low), 0.0), 1.0)
            extrapolation_factor = 1 - ramp
            out.append(1.0 / (factor * pos_freq) * (1 - extrapolation_factor) + 1.0 / pos_freq * extrapolation_factor)
        return out, attention_factor
    if rope_type == "llama3":
        old_context_len = rope_scaling["original_max_position_embeddings"]
        low_freq_factor, high_freq_factor = rope_scaling["low_freq_factor"], rope_scaling["high_freq_factor"]
        low_freq_wavelen = old_context_len / low_freq_factor
        high_freq_wavelen = old_context_len / high_freq_factor
        out = []
        for f in inv_freq:
            wavelen = 2 * math.pi / f
            llama = f / factor if wavelen > low_freq_wavelen else f
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            smoothed = (1 - smooth) * llama / factor + smooth * llama
            medium = not (wavelen < high_freq_wavelen) and not (wavelen > low_freq_wavelen)
            out.append(smoothed if medium else llama)
        return out, 1.0
    raise AssertionError(rope_type)


def rope_complex_scaled(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, scale: float) -> np.ndarray:
    """RoFormer's complex form with given frequencies: pairs times scale * e^{i m theta}."""
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * scale * np.exp(1j * positions[:, None] * inv_freq)
    out = np.empty(x.shape)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


# --- the unscaled frequencies -------------------------------------------------------


@pytest.mark.parametrize("head_dim", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 1e6])
def test_unscaled_are_theta(head_dim: int, base: float) -> None:
    inv_freq, scale = rope_frequencies(head_dim, base=base)
    assert inv_freq.shape == (head_dim // 2,) and inv_freq.dtype == np.float64
    np.testing.assert_allclose(inv_freq, [base ** (-2 * i / head_dim) for i in range(head_dim // 2)], rtol=1e-14)
    np.testing.assert_allclose(inv_freq, frequencies(head_dim, base=base), rtol=1e-15)
    assert scale == 1.0
    np.testing.assert_array_equal(rope_frequencies(head_dim, base=base, scaling={"rope_type": "default"})[0], inv_freq)


# --- each rope_type against the port ------------------------------------------------


YARN_EQUAL_BETAS = {"rope_type": "yarn", "beta_fast": 1.0, "beta_slow": 1.0}


@pytest.mark.parametrize(
    ("head_dim", "base", "scaling"),
    [
        (128, 10000.0, {"rope_type": "linear", "factor": 4.0}),
        (64, 10000.0, {"rope_type": "linear", "factor": 1.0}),
        (128, 10000.0, {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096}),
        (128, 10000.0, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}),
        (64, 1e6, {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192, "beta_fast": 16.0}),
        (32, 500.0, {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 512, "beta_slow": 2.0}),
        # beta_slow so small that the ramp's top is clamped to head_dim - 1
        (8, 10000.0, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "beta_slow": 1e-5}),
        # a short context: c(beta_fast) < 0, so the ramp's bottom is clamped to dimension 0
        (16, 10000.0, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}),
        # low == high == 0 (ln base = 1, L = 2 pi: c(1) = 0): pairs 1, 2, 3 above the widened ramp are interpolated
        (8, math.e, {**YARN_EQUAL_BETAS, "factor": 4.0, "original_max_position_embeddings": 2 * math.pi}),
        # low == high == head_dim - 1: the zero-width ramp that transformers widens by 0.001
        (8, 10000.0, {**YARN_EQUAL_BETAS, "factor": 4.0, "original_max_position_embeddings": 188_495_559}),
        (
            128,
            10000.0,
            {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096, "attention_factor": 1.5},
        ),
        (128, 500000.0, LLAMA31),
        (64, 10000.0, {**LLAMA31, "factor": 4.0, "original_max_position_embeddings": 2048}),
        (128, 500000.0, {**LLAMA31, "factor": 32.0, "low_freq_factor": 2.0, "high_freq_factor": 8.0}),
    ],
)
def test_matches_transformers_port(head_dim: int, base: float, scaling: dict) -> None:
    expected, expected_scale = transformers_port(head_dim, base, scaling)
    inv_freq, scale = rope_frequencies(head_dim, base=base, scaling=scaling)
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)
    assert scale == pytest.approx(expected_scale, rel=1e-15)


def test_yarn_ramp_is_truncated_to_whole_dimensions() -> None:
    """d=128, base 1e4, L=4096: c(32) = 20.94 -> 20 and c(1) = 45.04 -> 46 (floor/ceil)."""
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    inv_freq, _ = rope_frequencies(128, scaling=scaling)
    theta = rope_frequencies(128)[0]
    c_fast = 128 * math.log(4096 / (32 * 2 * math.pi)) / (2 * math.log(10000))
    c_slow = 128 * math.log(4096 / (1 * 2 * math.pi)) / (2 * math.log(10000))
    assert (math.floor(c_fast), math.ceil(c_slow)) == (20, 46)
    np.testing.assert_array_equal(inv_freq[:21], theta[:21])  # ramp 0 up to and including low
    np.testing.assert_allclose(inv_freq[46:], theta[46:] / 4, rtol=1e-15)  # fully interpolated from high
    ramp = (np.arange(21, 46) - 20) / 26
    np.testing.assert_allclose(inv_freq[21:46], theta[21:46] * (1 - ramp) + theta[21:46] / 4 * ramp, rtol=1e-14)


def test_yarn_attention_scale_default() -> None:
    for factor in (1.0, 2.0, 8.0, 40.0):
        scaling = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": 4096}
        assert rope_frequencies(64, scaling=scaling)[1] == pytest.approx(0.1 * math.log(factor) + 1)


def test_llama31_keeps_fast_pairs_and_divides_slow_ones() -> None:
    inv_freq, scale = rope_frequencies(128, base=500000.0, scaling=LLAMA31)
    theta = rope_frequencies(128, base=500000.0)[0]
    wavelength = 2 * np.pi / theta
    short, long = wavelength < 8192 / 4, wavelength > 8192 / 1
    assert short.sum() > 0 and long.sum() > 0 and (~short & ~long).sum() > 0
    np.testing.assert_array_equal(inv_freq[short], theta[short])
    np.testing.assert_allclose(inv_freq[long], theta[long] / 8, rtol=1e-15)
    middle = ~short & ~long
    assert np.all(inv_freq[middle] < theta[middle]) and np.all(inv_freq[middle] > theta[middle] / 8)
    assert scale == 1.0


def test_ntk_is_a_base_change() -> None:
    for head_dim, factor in [(128, 4.0), (64, 8.0), (4, 2.0)]:
        inv_freq, scale = rope_frequencies(head_dim, scaling={"rope_type": "ntk", "factor": factor})
        new_base = 10000.0 * factor ** (head_dim / (head_dim - 2))
        np.testing.assert_allclose(inv_freq, rope_frequencies(head_dim, base=new_base)[0], rtol=1e-14)
        assert inv_freq[0] == 1.0  # the fastest pair is untouched
        # ... and the slowest is interpolated by exactly the factor
        assert inv_freq[-1] == pytest.approx(rope_frequencies(head_dim)[0][-1] / factor, rel=1e-12)
        assert scale == 1.0


def test_legacy_type_key() -> None:
    np.testing.assert_array_equal(
        rope_frequencies(16, scaling={"type": "linear", "factor": 2.0})[0],
        rope_frequencies(16, scaling={"rope_type": "linear", "factor": 2.0})[0],
    )


def test_rope_types_listed() -> None:
    assert ROPE_TYPES == ("default", "linear", "ntk", "yarn", "llama3")


# --- rope(..., scaling=...) -----------------------------------------------------------


@pytest.mark.parametrize(
    "scaling",
    [
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "ntk", "factor": 4.0},
        {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 256},
        {**LLAMA31, "original_max_position_embeddings": 256},
    ],
)
def test_rope_with_scaling_is_complex_form_times_scale(scaling: dict) -> None:
    x = rng.normal(size=(2, 40, 32))
    positions = np.arange(1000.0, 1040.0)
    inv_freq, scale = rope_frequencies(32, scaling=scaling)
    expected = rope_complex_scaled(x, positions, inv_freq, scale)
    np.testing.assert_allclose(rope(x, positions, scaling=scaling), expected, atol=1e-12)
    half = np.concatenate([np.arange(0, 32, 2), np.arange(1, 32, 2)])
    np.testing.assert_allclose(
        rope(x[..., half], positions, pairing="half", scaling=scaling), expected[..., half], atol=1e-12
    )


def test_linear_scaling_equals_divided_positions() -> None:
    x = rng.normal(size=(50, 16))
    positions = np.arange(50.0) * 3
    np.testing.assert_allclose(
        rope(x, positions, scaling={"rope_type": "linear", "factor": 3.0}), rope(x, np.arange(50.0)), atol=1e-12
    )


def test_yarn_multiplies_norms_by_attention_scale() -> None:
    x = rng.normal(size=(10, 64))
    scaling = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 1024}
    y = rope(x, scaling=scaling)
    factor = 0.1 * math.log(16.0) + 1
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), factor * np.linalg.norm(x, axis=-1), rtol=1e-12)
    assert rope(x.astype(np.float32), scaling=scaling).dtype == np.float32


def test_scaling_none_unchanged() -> None:
    """scaling=None and rope_type 'default' give the very same numbers as before."""
    x = rng.normal(size=(3, 20, 8))
    d = 8
    theta = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    expected = rope_complex_scaled(x, np.arange(20.0), theta, 1.0)
    np.testing.assert_allclose(rope(x), expected, atol=1e-14)
    np.testing.assert_array_equal(rope(x, scaling={"rope_type": "default"}), rope(x))
    np.testing.assert_array_equal(rope(x, scaling=None), rope(x))


def test_scores_stay_relative_under_scaling() -> None:
    q, k = rng.normal(size=(2, 1, 32))
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128}
    near = rope(q, [10.0], scaling=scaling) @ rope(k, [3.0], scaling=scaling).T
    far = rope(q, [5010.0], scaling=scaling) @ rope(k, [5003.0], scaling=scaling).T
    np.testing.assert_allclose(far, near, rtol=1e-9)


@pytest.mark.parametrize("attention_factor", [2.0, 0.5])
def test_rope_multiplies_norms_by_any_given_attention_factor(attention_factor: float) -> None:
    x = rng.normal(size=(6, 16))
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
    y = rope(x, scaling={**scaling, "attention_factor": attention_factor})
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), attention_factor * np.linalg.norm(x, axis=-1), rtol=1e-12)


def test_rope_scales_the_frequencies_of_its_own_base() -> None:
    x = rng.normal(size=(30, 8))
    scaling = {"rope_type": "linear", "factor": 2.0}
    inv_freq, scale = rope_frequencies(8, base=50.0, scaling=scaling)
    expected = rope_complex_scaled(x, np.arange(30.0), inv_freq, scale)
    np.testing.assert_allclose(rope(x, base=50.0, scaling=scaling), expected, atol=1e-12)
