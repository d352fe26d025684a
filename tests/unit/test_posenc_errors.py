"""Every documented bad input raises TypeError/ValueError naming the parameter."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from posenc import (
    alibi_bias,
    alibi_slopes,
    attention,
    attention_weights,
    causal_mask,
    frequencies,
    rope,
    rope_frequencies,
    self_attention,
    sinusoidal,
)

nan, inf = float("nan"), float("inf")


# --- sinusoidal ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d_model", "match"),
    [(7, r"d_model must be even"), (0, r"d_model must be positive"), (-4, "d_model.*positive")],
)
def test_sinusoidal_bad_d_model_value(d_model: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        sinusoidal(4, d_model)


@pytest.mark.parametrize("d_model", [8.0, "8", None, True, np.float64(8)])
def test_sinusoidal_bad_d_model_type(d_model: object) -> None:
    with pytest.raises(TypeError, match="d_model"):
        sinusoidal(4, d_model)  # type: ignore[arg-type]


def test_sinusoidal_negative_count() -> None:
    with pytest.raises(ValueError, match="positions must be a non-negative count"):
        sinusoidal(-1, 8)


@pytest.mark.parametrize("count", [3.0, np.float64(3.0), "3", b"3", True, np.bool_(True), 3j])
def test_sinusoidal_non_integer_count(count: object) -> None:
    with pytest.raises(TypeError, match="positions"):
        sinusoidal(count, 8)  # type: ignore[arg-type]


@pytest.mark.parametrize("positions", [np.zeros((2, 3)), [[0, 1]], np.array(5), np.array(2.5), [[1], [2, 3]]])
def test_sinusoidal_positions_not_1d(positions: object) -> None:
    with pytest.raises(ValueError, match="positions"):
        sinusoidal(positions, 8)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [nan, inf, -inf])
def test_sinusoidal_positions_not_finite(bad: float) -> None:
    with pytest.raises(ValueError, match="positions must be finite"):
        sinusoidal([0.0, bad], 8)


@pytest.mark.parametrize("positions", [["a", "b"], [True, False], [1 + 2j], [None, 1.0]])
def test_sinusoidal_positions_not_real_numbers(positions: object) -> None:
    with pytest.raises(TypeError, match="positions"):
        sinusoidal(positions, 8)  # type: ignore[arg-type]


@pytest.mark.parametrize("base", [0.0, -10.0, nan, inf, -inf])
def test_sinusoidal_bad_base_value(base: float) -> None:
    with pytest.raises(ValueError, match="base must be a positive finite number"):
        sinusoidal(4, 8, base=base)


@pytest.mark.parametrize("base", ["10000", None, True, [10000.0]])
def test_sinusoidal_bad_base_type(base: object) -> None:
    with pytest.raises(TypeError, match="base"):
        sinusoidal(4, 8, base=base)  # type: ignore[arg-type]


def test_sinusoidal_angle_overflow_refused() -> None:
    """base < 1 makes frequencies > 1; huge positions would give sin(inf) = NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the error alone, no RuntimeWarning from the overflow
        with pytest.raises(ValueError) as caught:
            sinusoidal([1e300, -2e300], 8, base=1e-20)
    assert str(caught.value) == (
        "positions too large for base=1e-20: position * frequency overflows float64 "
        "(largest |position| = 2e+300); use base > 1 or smaller positions"
    )


def test_huge_finite_positions_whose_sum_overflows_are_fine_and_quiet() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pe = sinusoidal([1e308, 1e308, -1e308], 4)  # their sum overflows; each is finite
    assert np.isfinite(pe).all()


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        ([float("nan")], "positions must be finite (no NaN or inf), found nan at index (0,)"),
        ([1.0, inf, -inf], "positions must be finite (no NaN or inf), found inf at index (1,)"),
    ],
)
def test_non_finite_positions_are_one_clear_error_without_warnings(positions: list[float], message: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as caught:
            sinusoidal(positions, 4)
    assert str(caught.value) == message


def test_positions_and_base_name_what_they_got() -> None:
    with pytest.raises(TypeError) as caught:
        sinusoidal(2.5, 4)  # type: ignore[arg-type]
    assert str(caught.value) == "positions must be an int count n or a 1-D array of positions, got float 2.5"
    with pytest.raises(TypeError, match=r"^positions must hold real numbers: \S"):
        sinusoidal([10**400], 4)  # too large for a float
    with pytest.raises(TypeError) as caught:
        sinusoidal(4, 4, base="10")  # type: ignore[arg-type]
    assert str(caught.value) == "base must be a positive finite number, got str '10'"
    with pytest.raises(TypeError) as caught:
        alibi_slopes(2.0)  # type: ignore[arg-type]
    assert str(caught.value) == "n_heads must be a positive int, got float 2.0"
    with pytest.raises(ValueError) as caught:
        alibi_slopes(0)
    assert str(caught.value) == "n_heads must be positive, got 0"


def test_counts_name_what_they_got() -> None:
    with pytest.raises(TypeError) as caught:
        causal_mask(2.0)  # type: ignore[arg-type]
    assert str(caught.value) == "n must be an int count, got float 2.0"


def test_a_ragged_array_is_named() -> None:
    with pytest.raises(ValueError, match=r"^q must be a rectangular numeric array: \S"):
        attention_weights([[1.0, 2.0], [3.0]], np.ones((1, 2)))


# --- rope -----------------------------------------------------------------------------


def test_rope_odd_last_dimension() -> None:
    with pytest.raises(ValueError, match=r"x must have an even last dimension d.*d=5.*\(3, 5\)"):
        rope(np.ones((3, 5)))


@pytest.mark.parametrize("x", [np.ones(4), 1.0, [1.0, 2.0]])
def test_rope_needs_two_dimensions(x: object) -> None:
    with pytest.raises(ValueError, match=r"x must have at least 2 dimensions, got shape"):
        rope(x)  # type: ignore[arg-type]


def test_rope_positions_length_mismatch() -> None:
    with pytest.raises(ValueError, match=r"positions has length 3 but x has seq=4"):
        rope(np.ones((4, 2)), [0, 1, 2])
    with pytest.raises(ValueError, match=r"positions has length 5"):
        rope(np.ones((4, 2)), 5)


@pytest.mark.parametrize("pairing", ["neox", "Half", "", None])
def test_rope_unknown_pairing(pairing: object) -> None:
    with pytest.raises(ValueError, match=r"pairing must be one of \('interleaved', 'half'\)"):
        rope(np.ones((2, 2)), pairing=pairing)  # type: ignore[arg-type]


def test_rope_bad_positions_and_base() -> None:
    with pytest.raises(ValueError, match="positions must be finite"):
        rope(np.ones((2, 2)), [0.0, nan])
    with pytest.raises(ValueError, match="positions must be 1-D"):
        rope(np.ones((2, 2)), [[0.0, 1.0]])
    with pytest.raises(TypeError, match="positions"):
        rope(np.ones((2, 2)), 2.0)
    with pytest.raises(ValueError, match="base"):
        rope(np.ones((2, 2)), base=0.0)
    with pytest.raises(ValueError, match="positions too large for base"):
        rope(np.ones((1, 4)), [1e300], base=1e-20)  # theta_1 = 1e10


@pytest.mark.parametrize("bad", [nan, inf])
def test_rope_non_finite_x(bad: float) -> None:
    x = np.ones((2, 3, 4))
    x[1, 2, 3] = bad
    with pytest.raises(ValueError, match=r"x must be finite.*\(1, 2, 3\)"):
        rope(x)


@pytest.mark.parametrize("x", [np.ones((2, 2), dtype=bool), np.ones((2, 2), dtype=complex)])
def test_rope_non_real_x(x: np.ndarray) -> None:
    with pytest.raises(TypeError, match="x must be a real numeric array"):
        rope(x)


# --- attention -------------------------------------------------------------------------

Q, K, V = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))


def test_attention_dk_mismatch() -> None:
    with pytest.raises(ValueError, match=r"shape.*q.shape=\(3, 4\).*k.shape=\(5, 3\)"):
        attention(Q, np.ones((5, 3)), V)


def test_attention_key_value_count_mismatch() -> None:
    with pytest.raises(ValueError, match=r"shapes k.shape=\(5, 4\) and v.shape=\(6, 2\)"):
        attention(Q, K, np.ones((6, 2)))


def test_attention_batch_mismatch() -> None:
    with pytest.raises(ValueError, match=r"shape.*q.shape=\(2, 3, 4\).*k.shape=\(3, 5, 4\)"):
        attention(np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((3, 5, 2)))
    with pytest.raises(ValueError, match=r"shape.*v.shape=\(4, 5, 2\)"):
        attention(np.ones((2, 3, 4)), np.ones((2, 5, 4)), np.ones((4, 5, 2)))


@pytest.mark.parametrize(("name", "args"), [("q", (np.ones(4), K, V)), ("k", (Q, np.ones(4), V))])
def test_attention_needs_two_dimensions(name: str, args: tuple[np.ndarray, ...]) -> None:
    with pytest.raises(ValueError, match=f"{name} must have at least 2 dimensions"):
        attention(*args)


def test_attention_empty_keys_and_dk() -> None:
    with pytest.raises(ValueError, match="len_k"):
        attention(Q, np.ones((0, 4)), np.ones((0, 2)))
    with pytest.raises(ValueError, match="d_k"):
        attention(np.ones((3, 0)), np.ones((5, 0)), V)


@pytest.mark.parametrize("mask", [np.ones((3, 5)), np.ones((3, 5), dtype=int), [[1, 0, 1, 1, 1]]])
def test_attention_mask_not_boolean(mask: object) -> None:
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        attention(Q, K, V, mask=mask)


@pytest.mark.parametrize("shape", [(3, 4), (5, 5), (2, 3, 5)])
def test_attention_mask_does_not_broadcast(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match=r"mask of shape .* does not broadcast"):
        attention(Q, K, V, mask=np.ones(shape, dtype=bool))


def test_attention_fully_masked_row() -> None:
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError, match=r"mask blocks every key for query row \(1,\)"):
        attention(Q, K, V, mask=mask)
    with pytest.raises(ValueError, match="mask blocks every key"):
        attention_weights(Q, K, mask=np.zeros(5, dtype=bool))


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("bad", [nan, inf, -inf])
def test_attention_non_finite_input(name: str, bad: float) -> None:
    arrays = {"q": Q.copy(), "k": K.copy(), "v": V.copy()}
    arrays[name][0, 0] = bad
    with pytest.raises(ValueError, match=f"{name} must be finite"):
        attention(arrays["q"], arrays["k"], arrays["v"])


def test_attention_score_overflow_refused() -> None:
    big = np.full((1, 2), 1e200)
    with pytest.raises(ValueError, match="overflow"):
        attention(big, big, np.ones((1, 1)))


@pytest.mark.parametrize(
    "k_row",
    [[1e20, 1e20], [1e20, -1e20]],  # float32 products overflow to inf; inf + -inf is NaN
    ids=["overflow", "inf-minus-inf"],
)
def test_attention_score_overflow_is_one_clear_error_without_warnings(k_row: list[float]) -> None:
    big = np.full((1, 2), 1e20, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning from numpy would reach the learner's output too
        with pytest.raises(ValueError) as caught:
            attention_weights(big, np.array([k_row], dtype=np.float32))
    assert str(caught.value) == "q @ k^T overflowed (|q| and |k| too large for the float type); rescale q and k"


def test_attention_refuses_empty_keys_width_in_a_batch() -> None:
    """d_k = 0 with leading axes: the check reads the last axis, not len_q."""
    with pytest.raises(ValueError, match=r"^d_k must be >= 1, got shapes q\.shape=\(2, 3, 0\), k\.shape=\(2, 4, 0\)$"):
        attention_weights(np.ones((2, 3, 0)), np.ones((2, 4, 0)))


def test_attention_names_every_shape_when_batch_axes_do_not_broadcast() -> None:
    with pytest.raises(ValueError) as caught:
        attention_weights(np.ones((2, 3, 4)), np.ones((3, 5, 4)))
    assert str(caught.value) == (
        "leading (batch) axes do not broadcast: got shapes q.shape=(2, 3, 4), k.shape=(3, 5, 4)"
    )
    with pytest.raises(ValueError) as caught:  # q and k broadcast, v does not
        attention(np.ones((2, 1, 4)), np.ones((1, 5, 4)), np.ones((3, 5, 2)))
    assert str(caught.value) == (
        "leading (batch) axes do not broadcast: got shapes q.shape=(2, 1, 4), k.shape=(1, 5, 4), v.shape=(3, 5, 2)"
    )


def test_attention_non_numeric() -> None:
    with pytest.raises(TypeError, match="q must be a real numeric array"):
        attention([["a", "b"]], K[:, :2], V)


def test_self_attention_projection_shapes() -> None:
    x = np.ones((5, 6))
    w, w_bad = np.ones((6, 4)), np.ones((5, 4))
    with pytest.raises(ValueError, match=r"w_q must have shape \(d_model, d_out\).*\(5, 4\)"):
        self_attention(x, w_bad, w, w)
    with pytest.raises(ValueError, match=r"w_v.*shape"):
        self_attention(x, w, w, w_bad)
    with pytest.raises(ValueError, match=r"w_q.*shape"):
        self_attention(x, np.ones((2, 6, 4)), w, w)
    with pytest.raises(ValueError, match=r"w_q and w_k .*shapes"):
        self_attention(x, w, np.ones((6, 3)), w)
    with pytest.raises(ValueError, match="x must have at least 2 dimensions"):
        self_attention(np.ones(6), w, w, w)


@pytest.mark.parametrize("name", ["w_q", "w_k", "w_v"])
def test_self_attention_names_the_weight_that_is_wrong(name: str) -> None:
    x, good = np.ones((2, 5, 6)), np.ones((6, 4))
    weights = {"w_q": good, "w_k": good, "w_v": good}
    with pytest.raises(ValueError) as caught:
        self_attention(x, **{**weights, name: np.ones((5, 4))})
    assert str(caught.value) == (
        f"{name} must have shape (d_model, d_out) with d_model = x.shape[-1] = 6, "
        f"got {name}.shape=(5, 4) for x.shape=(2, 5, 6)"
    )
    with pytest.raises(ValueError, match=f"^{name} must have at least 2 dimensions"):
        self_attention(x, **{**weights, name: np.ones(6)})


@pytest.mark.parametrize("name", ["q", "k"])
def test_attention_weights_names_a_query_or_key_that_is_not_a_matrix(name: str) -> None:
    arrays = {"q": np.ones((2, 3)), "k": np.ones((2, 3))}
    with pytest.raises(ValueError, match=rf"^{name} must have at least 2 dimensions"):
        attention_weights(**{**arrays, name: np.ones(3)})
    with pytest.raises(TypeError, match=rf"^{name} must be a real numeric array"):
        attention_weights(**{**arrays, name: [["a", "b", "c"]]})


def test_frequencies_and_alibi_bias_name_their_parameters() -> None:
    with pytest.raises(ValueError, match=r"^base must be a positive finite number"):
        frequencies(8, base=0.0)
    with pytest.raises(TypeError, match=r"^base "):
        frequencies(8, base="10000")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^seq_len "):
        alibi_bias(2, -1)
    with pytest.raises(TypeError, match=r"^seq_len "):
        alibi_bias(2, 2.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(("n", "error"), [(-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_causal_mask_bad_n(n: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="n must be"):
        causal_mask(n)  # type: ignore[arg-type]


# --- rope_frequencies and rope(..., scaling=...) ------------------------------------------

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
LLAMA3 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


@pytest.mark.parametrize(
    ("scaling", "match"),
    [
        ({"rope_type": "dynamic", "factor": 2.0}, r"scaling\['rope_type'\] must be one of .*'dynamic'"),
        ({"rope_type": "Linear", "factor": 2.0}, r"scaling\['rope_type'\] must be one of"),
        ({"type": "longrope", "factor": 2.0}, r"scaling\['type'\] must be one of"),
        ({"factor": 2.0}, r"scaling is missing the key 'rope_type'"),
        ({"rope_type": "linear"}, r"scaling is missing the key 'factor'"),
        ({"rope_type": "yarn", "factor": 2.0}, r"missing the key 'original_max_position_embeddings'"),
        ({k: v for k, v in LLAMA3.items() if k != "low_freq_factor"}, r"missing the key 'low_freq_factor'"),
        ({k: v for k, v in LLAMA3.items() if k != "high_freq_factor"}, r"missing the key 'high_freq_factor'"),
        ({"rope_type": "linear", "factor": 0.5}, r"scaling\['factor'\] must be >= 1.*0\.5"),
        ({**YARN, "factor": 0.99}, r"scaling\['factor'\] must be >= 1"),
        ({**LLAMA3, "factor": 0.0}, r"scaling\['factor'\] must be a positive finite number"),
        ({"rope_type": "linear", "factor": float("nan")}, r"scaling\['factor'\] must be a positive finite"),
        ({"rope_type": "linear", "factor": 2.0, "beta_fast": 32}, r"unknown key 'beta_fast'.*'linear'"),
        # both type keys: 'rope_type' is read, the legacy 'type' is one key too many
        ({"rope_type": "linear", "type": "linear", "factor": 2.0}, r"unknown key 'type' for rope_type 'linear'"),
        ({**YARN, "low_freq_factor": 1.0}, r"unknown key 'low_freq_factor'.*'yarn'"),
        ({**YARN, "beta_fast": 1.0, "beta_slow": 2.0}, r"scaling\['beta_fast'\] must be >= scaling\['beta_slow'\]"),
        ({**YARN, "original_max_position_embeddings": -4}, r"scaling\['original_max_position_embeddings'\]"),
        ({**LLAMA3, "high_freq_factor": 1.0}, r"scaling\['high_freq_factor'\] must be > scaling\['low_freq_factor'\]"),
    ],
)
def test_rope_frequencies_bad_scaling_value(scaling: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rope_frequencies(64, scaling=scaling)
    with pytest.raises(ValueError, match=match):
        rope(np.ones((2, 64)), scaling=scaling)


@pytest.mark.parametrize(
    ("scaling", "match"),
    [
        (
            [("rope_type", "linear")],
            r"^scaling must be None or a mapping like \{'rope_type': 'linear', 'factor': 2\.0\}, got list$",
        ),
        ("linear", "^scaling must be None or a mapping .*, got str$"),
        ({"rope_type": "linear", "factor": "2"}, r"scaling\['factor'\] must be a positive finite number"),
        ({"rope_type": "linear", "factor": True}, r"scaling\['factor'\]"),
        ({**YARN, "beta_fast": None}, r"scaling\['beta_fast'\]"),
    ],
)
def test_rope_frequencies_bad_scaling_type(scaling: object, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        rope_frequencies(64, scaling=scaling)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("head_dim", "error", "match"),
    [
        (7, ValueError, "head_dim must be even"),
        (0, ValueError, "head_dim must be positive"),
        (-2, ValueError, "head_dim"),
        (8.0, TypeError, "head_dim"),
        (None, TypeError, "head_dim"),
    ],
)
def test_rope_frequencies_bad_head_dim(head_dim: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        rope_frequencies(head_dim)  # type: ignore[arg-type]
    with pytest.raises(error, match=match):
        rope_frequencies(head_dim, scaling=YARN)  # type: ignore[arg-type]


def test_rope_frequencies_type_specific_limits() -> None:
    with pytest.raises(ValueError, match="head_dim must be at least 4 for rope_type 'ntk'"):
        rope_frequencies(2, scaling={"rope_type": "ntk", "factor": 2.0})
    with pytest.raises(ValueError, match="base must be > 1 for rope_type 'yarn'"):
        rope_frequencies(8, base=0.5, scaling=YARN)
    with pytest.raises(ValueError, match="base must be > 1 for rope_type 'yarn'"):
        rope_frequencies(8, base=1.0, scaling=YARN)
    frequencies_above_the_limit, _ = rope_frequencies(8, base=1.5, scaling=YARN)
    assert np.isfinite(frequencies_above_the_limit).all()
    with pytest.raises(ValueError, match="base must be a positive finite number"):
        rope_frequencies(8, base=-1.0)


def test_rope_names_base_in_its_errors() -> None:
    with pytest.raises(ValueError, match=r"^base must be a positive finite number, got 0\.0$"):
        rope(np.ones((2, 4)), base=0.0)
    with pytest.raises(ValueError, match=r"^positions too large for base=0\.01: "):
        rope(np.ones((1, 4)), positions=[1e308], base=0.01)  # theta_1 = 10


def test_a_base_so_small_that_the_frequency_overflows_is_refused_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            ValueError, match=r"^base=5e-324 is too small: its fastest frequency overflows float64; use base > 1$"
        ):
            sinusoidal(10, 64, base=5e-324)
