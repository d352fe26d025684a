"""posenc's relative positions against independent transcriptions of their references.

* ``hf_bucket`` re-types ``T5Attention._relative_position_bucket`` of Hugging Face
  transformers (``src/transformers/models/t5/modeling_t5.py``, commit
  6b8b757dfcb582379a64f013cdce46c43629f2b0) for one Python int at a time, with every
  float32 step rounded explicitly through ``struct`` (PyTorch computes a float32
  tensor divided or multiplied by a Python number in float32, the number rounded
  to float32 first; ``.to(torch.long)`` truncates toward zero).
* ``t2t_relative_positions`` re-types tensor2tensor's ``_generate_relative_positions_matrix``
  (``tensor2tensor/layers/common_attention.py``, commit bafdc1b67730430d38d6ab802cbd51f9d053ba2e).
* ``kerple_reference`` re-types the forward pass of ``ParallelKerpleLog`` and
  ``ParallelKerplePower`` (chijames/KERPLE, ``megatron/mpu/layers.py``, commit
  25be3d712e96a3353b374f1f8e36b97d86f97ffa).
* ``fire_reference`` re-types the FIRE module's forward pass up to its MLP, as
  printed with Li et al. (2023) and reproduced in mcleish7/arithmetic
  (``cramming/architectures/embeddings.py``).
* ``PAPER_BUCKETS`` is the bucket matrix that Kazemnejad et al. (2023) print in
  their appendix B.2 for B = 5 buckets and maximum distance D = 6, and
  ``paper_bucket`` their bucket formula (equation 12 there).
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from posenc import fire_distance, kerple_log_bias, kerple_power_bias, shaw_relative_indices, t5_relative_bucket

OFFSETS = range(-1000, 1001)
SIZES = [(32, 128), (16, 64), (8, 16), (32, 16), (12, 40)]


def f32(x: float) -> float:
    """Round a Python float to the nearest float32 (and back to a Python float)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def hf_bucket(relative_position: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """transformers' ``_relative_position_bucket`` for one offset, float32 by hand."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += int(relative_position > 0) * num_buckets
        relative_position = abs(relative_position)
    else:
        relative_position = -min(relative_position, 0)
    max_exact = num_buckets // 2
    if relative_position < max_exact:  # is_small
        return relative_buckets + relative_position
    x = f32(f32(float(relative_position)) / f32(float(max_exact)))  # relative_position.float() / max_exact
    x = f32(math.log(x))  # torch.log in float32
    x = f32(x / f32(math.log(max_distance / max_exact)))  # / math.log(max_distance / max_exact)
    x = f32(x * f32(float(num_buckets - max_exact)))  # * (num_buckets - max_exact)
    relative_position_if_large = min(max_exact + int(x), num_buckets - 1)  # .to(torch.long), torch.min
    return relative_buckets + relative_position_if_large


def exact_bucket(relative_position: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """The same formula in float64, without the float32 rounding (what a naive port computes)."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = int(relative_position > 0) * num_buckets
        n = abs(relative_position)
    else:
        n = max(-relative_position, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return offset + n
    steps = math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    return offset + min(max_exact + int(steps), num_buckets - 1)


# --- T5 ------------------------------------------------------------------------------


def usable(bidirectional: bool, num_buckets: int, max_distance: int) -> bool:
    """transformers' formula is defined here (it divides by ln(max_distance / max_exact))."""
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    return per_direction // 2 >= 1 and max_distance > per_direction // 2


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), SIZES)
def test_t5_equals_transformers_for_every_offset(bidirectional: bool, num_buckets: int, max_distance: int) -> None:
    offsets = np.arange(-1000, 1001)
    if not usable(bidirectional, num_buckets, max_distance):  # (32, 16) causal: 16 exact buckets, max_distance 16
        with pytest.raises(ValueError, match="max_distance must be larger"):
            t5_relative_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
        return
    got = t5_relative_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    expected = [hf_bucket(int(r), bidirectional, num_buckets, max_distance) for r in OFFSETS]
    assert got.dtype == np.intp and got.shape == offsets.shape
    np.testing.assert_array_equal(got, expected)
    assert got.min() >= 0 and got.max() <= num_buckets - 1


# Sizes where float32 and float64 put some offset in different buckets (found by a search over
# num_buckets < 70, max_distance < 300, offsets up to 1000): the ratio n / e is a power of
# D / e, so the exact quotient is a whole number and the rounding decides.
FLOAT32_EDGES = [
    (False, 9, 128, [8, 16, 64]),  # ln 2 / ln 32 * 5 = 1: float32 gives 1.0, float64 0.999...
    (False, 10, 160, [10, 20, 80]),
    (True, 18, 128, [8, 16, 64]),
    (True, 20, 160, [10, 20, 80]),
    (False, 17, 27, [12, 18]),  # float32 rounds below the whole number here
    (False, 36, 50, [30]),
    (True, 34, 27, [12, 18]),
    (True, 38, 16, [12]),
]


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance", "distances"), FLOAT32_EDGES)
def test_t5_float32_at_the_bucket_edges(
    bidirectional: bool, num_buckets: int, max_distance: int, distances: list[int]
) -> None:
    offsets = np.arange(-1000, 1001)
    got = t5_relative_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    np.testing.assert_array_equal(got, [hf_bucket(int(r), bidirectional, num_buckets, max_distance) for r in OFFSETS])
    for n in distances:  # the edges are real: float64 arithmetic would disagree there
        assert hf_bucket(-n, bidirectional, num_buckets, max_distance) != exact_bucket(
            -n, bidirectional, num_buckets, max_distance
        )


def test_t5_known_float32_edge() -> None:
    """Causal, 9 buckets (4 exact), D = 128: distance 8 is exactly one log step up, bucket 5."""
    assert int(t5_relative_bucket(-8, bidirectional=False, num_buckets=9, max_distance=128)) == 5
    assert exact_bucket(-8, False, 9, 128) == 4


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_odd_and_small_sizes(bidirectional: bool) -> None:
    """Odd bucket counts and small tables follow transformers too (only ill-defined sizes are refused)."""
    offsets = np.arange(-300, 301)
    for num_buckets in range(1, 24):
        for max_distance in range(1, 40):
            args = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
            if not usable(bidirectional, num_buckets, max_distance):
                with pytest.raises(ValueError):
                    t5_relative_bucket(offsets, **args)
                continue
            expected = [hf_bucket(int(r), bidirectional, num_buckets, max_distance) for r in offsets]
            np.testing.assert_array_equal(t5_relative_bucket(offsets, **args), expected, err_msg=str(args))


def test_t5_shapes_and_scalars() -> None:
    grid = np.arange(5)[None, :] - np.arange(5)[:, None]  # (5, 5), memory - query
    buckets = t5_relative_bucket(grid)
    assert buckets.shape == (5, 5) and buckets.dtype == np.intp
    assert t5_relative_bucket(7).shape == ()
    assert int(t5_relative_bucket(np.int32(-3))) == 3
    assert t5_relative_bucket([]).shape == (0,)
    assert t5_relative_bucket(np.array([5], dtype=np.uint8)).tolist() == [16 + 5]
    np.testing.assert_array_equal(t5_relative_bucket(grid, bidirectional=False), np.tril(grid.T))  # all exact


def test_t5_large_offsets_share_the_last_bucket() -> None:
    huge = np.array([-(10**15), -(2**40), 10**15])
    np.testing.assert_array_equal(t5_relative_bucket(huge), [15, 15, 31])
    np.testing.assert_array_equal(t5_relative_bucket(huge, bidirectional=False), [31, 31, 0])


PAPER_BUCKETS = np.array(  # Kazemnejad et al. (2023), appendix B.2, "B = 5 and D = 6", row t (query), column i (key)
    [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [2, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [2, 2, 1, 0, 0, 0, 0, 0, 0, 0],
        [3, 2, 2, 1, 0, 0, 0, 0, 0, 0],
        [3, 3, 2, 2, 1, 0, 0, 0, 0, 0],
        [4, 3, 3, 2, 2, 1, 0, 0, 0, 0],
        [4, 4, 3, 3, 2, 2, 1, 0, 0, 0],
        [4, 4, 4, 3, 3, 2, 2, 1, 0, 0],
        [4, 4, 4, 4, 3, 3, 2, 2, 1, 0],
    ]
)


def paper_bucket(n: int, buckets: int, max_distance: int) -> int:
    """Kazemnejad et al.'s equation (12), with B/2 read as floor(B/2) (it must be a whole bucket)."""
    half = buckets // 2
    if n < half:
        return n
    if n < max_distance:
        return half + math.floor(math.log(n / half) / math.log(max_distance / half) * half)
    return buckets - 1


def test_paper_matrix_is_their_formula() -> None:
    """The printed matrix is equation (12) with B = 5, D = 6, on the causal distances max(t - i, 0)."""
    distance = np.maximum(np.arange(10)[:, None] - np.arange(10)[None, :], 0)
    np.testing.assert_array_equal(np.vectorize(paper_bucket)(distance, 5, 6), PAPER_BUCKETS)


@pytest.mark.parametrize(("buckets", "max_distance"), [(4, 6), (8, 16), (12, 40), (16, 64), (32, 128), (32, 33)])
def test_paper_formula_is_t5_for_an_even_bucket_count(buckets: int, max_distance: int) -> None:
    """For even B, equation (12) is exactly transformers' causal bucket (e = B/2 exact, B - e = B/2 log buckets)."""
    distances = np.arange(0, 1001)
    got = t5_relative_bucket(-distances, bidirectional=False, num_buckets=buckets, max_distance=max_distance)
    np.testing.assert_array_equal(got, [paper_bucket(int(n), buckets, max_distance) for n in distances])


def test_paper_matrix_against_t5() -> None:
    """With B = 5 (odd), transformers gives the logarithmic range B - floor(B/2) = 3 buckets, the
    paper's formula floor(B/2) = 2: the printed matrix is not transformers' for num_buckets=5,
    max_distance=6 (distances 3 and 5 land one bucket higher). transformers reproduces it with
    max_distance 8, 9 or 10 instead of 6, and for B = 4 it agrees except for distances >= D
    (which get their own bucket 4 in the paper's example)."""
    query_key = np.arange(10)[None, :] - np.arange(10)[:, None]  # memory - query, (10, 10)
    t5 = t5_relative_bucket(query_key, bidirectional=False, num_buckets=5, max_distance=6)
    np.testing.assert_array_equal(t5[:, 0], [0, 1, 2, 3, 3, 4, 4, 4, 4, 4])
    assert sorted({int(n) for n in (query_key.T[t5 != PAPER_BUCKETS])}) == [3, 5]
    for max_distance in (8, 9, 10):
        got = t5_relative_bucket(query_key, bidirectional=False, num_buckets=5, max_distance=max_distance)
        np.testing.assert_array_equal(got, PAPER_BUCKETS)
    four = t5_relative_bucket(query_key, bidirectional=False, num_buckets=4, max_distance=6)
    np.testing.assert_array_equal(np.where(-query_key >= 6, 4, four), PAPER_BUCKETS)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"relative_position": [1.0, 2.0]}, TypeError, "relative_position must hold integers"),
        ({"relative_position": [True, False]}, TypeError, "relative_position"),
        ({"relative_position": True}, TypeError, "relative_position"),
        ({"relative_position": "3"}, TypeError, "relative_position"),
        ({"relative_position": [[1], [2, 3]]}, ValueError, "relative_position"),
        ({"relative_position": [2**70]}, ValueError, "int64"),
        ({"bidirectional": 1}, TypeError, "bidirectional must be True or False"),
        ({"bidirectional": None}, TypeError, "bidirectional"),
        ({"num_buckets": 32.0}, TypeError, "num_buckets"),
        ({"num_buckets": 0}, ValueError, "num_buckets must be positive"),
        ({"num_buckets": 3}, ValueError, "num_buckets=3 leaves 1 bucket"),
        ({"num_buckets": 1, "bidirectional": False}, ValueError, "at least 2"),
        ({"max_distance": "128"}, TypeError, "max_distance"),
        ({"max_distance": -1}, ValueError, "max_distance must be positive"),
        ({"max_distance": 8}, ValueError, "max_distance must be larger than the 8 exact buckets"),
        ({"max_distance": 16, "bidirectional": False}, ValueError, r"max_distance=16 for num_buckets=32"),
    ],
)
def test_t5_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    args = {"relative_position": [0, -1, 1], **kwargs}
    position = args.pop("relative_position")
    with pytest.raises(error, match=match):
        t5_relative_bucket(position, **args)


# --- Shaw et al. -----------------------------------------------------------------------


def t2t_relative_positions(length_q: int, length_k: int, max_relative_position: int) -> np.ndarray:
    """tensor2tensor's ``_generate_relative_positions_matrix`` (cache=False), tf -> numpy."""
    if length_q == length_k:
        range_vec_q = range_vec_k = np.arange(length_q)
    else:
        range_vec_k = np.arange(length_k)
        range_vec_q = range_vec_k[-length_q:]
    distance_mat = range_vec_k[None, :] - range_vec_q[:, None]
    distance_mat_clipped = np.clip(distance_mat, -max_relative_position, max_relative_position)
    return distance_mat_clipped + max_relative_position


@pytest.mark.parametrize(("length", "k"), [(0, 3), (1, 0), (5, 0), (5, 2), (7, 6), (7, 20), (64, 16)])
def test_shaw_matches_tensor2tensor(length: int, k: int) -> None:
    got = shaw_relative_indices(length, k)
    assert got.shape == (length, length) and got.dtype == np.intp
    np.testing.assert_array_equal(got, t2t_relative_positions(length, length, k))


def test_shaw_formula_by_hand() -> None:
    got = shaw_relative_indices(9, 3)
    for i in range(9):
        for j in range(9):
            assert got[i, j] == max(-3, min(3, j - i)) + 3
    assert got.min() == 0 and got.max() == 6


@pytest.mark.parametrize(
    ("length", "k", "error", "match"),
    [(-1, 2, ValueError, "length"), (4, -1, ValueError, "k must be"), (4.0, 2, TypeError, "length"),
     (4, 2.5, TypeError, "k"), (True, 2, TypeError, "length"), (4, None, TypeError, "k")],
)  # fmt: skip
def test_shaw_bad_arguments(length: object, k: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        shaw_relative_indices(length, k)  # type: ignore[arg-type]


# --- KERPLE ----------------------------------------------------------------------------


def kerple_reference(kind: str, seq_len: int, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    """``ParallelKerpleLog`` / ``ParallelKerplePower`` forward, the bias added to zero scores, torch -> numpy.

    Log: ``bias_p`` is r1, ``bias_a`` is r2; power ("kerple_power_ap_"): ``bias_a`` is r1, ``bias_p`` is r2.
    """
    rows = np.tile(np.arange(seq_len).reshape(seq_len, 1), (1, seq_len))  # torch.arange(...).view(L, 1).repeat(1, L)
    diff = np.tril(rows + np.arange(0, -seq_len, -1)).astype(np.float64)
    if kind == "log":
        bias_p, bias_a = r1[:, None, None], r2[:, None, None]
        return -bias_p * np.log(1 + bias_a * diff)
    bias_a, bias_p = r1[:, None, None], r2[:, None, None]
    return -(diff**bias_p) * bias_a


@pytest.mark.parametrize("kind", ["log", "power"])
def test_kerple_matches_the_papers_code_below_the_diagonal(kind: str) -> None:
    rng = np.random.default_rng(5)
    r1, r2 = rng.uniform(0.01, 2.0, 6), rng.uniform(0.01, 2.0, 6)  # the code's init: rand * 2, rand * 1; clamp 0.01..2
    function = kerple_log_bias if kind == "log" else kerple_power_bias
    got = function(20, r1, r2)
    assert got.shape == (6, 20, 20) and got.dtype == np.float64
    lower = np.tril(np.ones((20, 20), dtype=bool))
    np.testing.assert_allclose(got[:, lower], kerple_reference(kind, 20, r1, r2)[:, lower], rtol=1e-14, atol=0)
    np.testing.assert_array_equal(got, np.swapaxes(got, 1, 2))  # |i - j| above the diagonal
    assert np.all(got <= 0) and np.all(np.diagonal(got, axis1=1, axis2=2) == 0)


def test_kerple_formulas_by_hand() -> None:
    log_bias = kerple_log_bias(6, 0.7, 1.3)
    power_bias = kerple_power_bias(6, 0.7, 1.3)
    assert log_bias.shape == power_bias.shape == (6, 6)
    for i in range(6):
        for j in range(6):
            assert log_bias[i, j] == pytest.approx(-0.7 * math.log(1 + 1.3 * abs(i - j)), rel=1e-15, abs=0)
            assert power_bias[i, j] == pytest.approx(-0.7 * abs(i - j) ** 1.3, rel=1e-15, abs=0)


def test_kerple_broadcasts_heads() -> None:
    assert kerple_log_bias(4, [1.0, 2.0, 3.0], 0.5).shape == (3, 4, 4)
    assert kerple_power_bias(4, 1.0, np.array([0.5, 1.0])).shape == (2, 4, 4)
    assert kerple_log_bias(0, 1.0, 1.0).shape == (0, 0)
    distance = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :])
    np.testing.assert_allclose(kerple_power_bias(5, [0.5, 0.25], 1.0)[1], -0.25 * distance)


@pytest.mark.parametrize("function", [kerple_log_bias, kerple_power_bias])
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [((-1, 1.0, 1.0), ValueError, "seq_len"), ((3.0, 1.0, 1.0), TypeError, "seq_len"),
     ((3, 0.0, 1.0), ValueError, "r1 must be positive"), ((3, 1.0, -0.5), ValueError, "r2 must be positive"),
     ((3, float("nan"), 1.0), ValueError, "r1 must be finite"), ((3, 1.0, float("inf")), ValueError, "r2"),
     ((3, True, 1.0), TypeError, "r1"), ((3, 1.0, "2"), TypeError, "r2"),
     ((3, [[1.0]], 1.0), ValueError, "r1 must be a number or a 1-D array"),
     ((3, [1.0, 2.0], [0.5, 1.0, 1.5]), ValueError, "same number of heads")],
)  # fmt: skip
def test_kerple_bad_arguments(function, args: tuple, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        function(*args)


def test_kerple_power_exponent_at_most_two() -> None:
    kerple_power_bias(3, 1.0, 2.0)  # the closed end is allowed
    with pytest.raises(ValueError, match=r"r2 must be in \(0, 2\]"):
        kerple_power_bias(3, 1.0, [1.0, 2.5])


# --- FIRE ------------------------------------------------------------------------------


def fire_reference(seq_length: int, c: float, init_l: float, eps: float) -> np.ndarray:
    """The FIRE module's forward pass up to the MLP input (torch -> numpy, L_multiplier = 1)."""
    positions = np.arange(seq_length, dtype=np.float64)
    relative_distances = positions[:, None] - positions[None, :]
    threshold = abs(1.0 * init_l)
    position_normalizer = np.maximum(positions, threshold)[:, None]
    relative_distances = np.log(np.abs(c * relative_distances) + 1)
    position_normalizer = np.log(np.abs(c * position_normalizer) + 1)
    return relative_distances / (position_normalizer + eps)


@pytest.mark.parametrize(
    ("length", "c", "threshold"), [(10, 0.1, 512.0), (40, 1.0, 8.0), (33, 0.37, 1.0), (1, 2.0, 3.0)]
)
def test_fire_matches_the_papers_module(length: int, c: float, threshold: float) -> None:
    got = fire_distance(length, c=c, threshold=threshold)
    assert got.shape == (length, length) and got.dtype == np.float64
    np.testing.assert_allclose(got, fire_reference(length, c, threshold, eps=0.0), rtol=1e-15, atol=0)
    np.testing.assert_allclose(got, fire_reference(length, c, threshold, eps=1e-6), rtol=1e-5)  # its 1e-6 guard


def test_fire_progressive_interpolation() -> None:
    """Causal distances lie in [0, 1]; from query L on, the first key is at normalised distance 1."""
    got = fire_distance(50, c=0.5, threshold=10.0)
    lower = np.tril(np.ones((50, 50), dtype=bool))
    assert np.all((got[lower] >= 0) & (got[lower] <= 1))
    np.testing.assert_allclose(got[10:, 0], 1.0, rtol=1e-15)
    assert np.all(got[:10, 0] < 1.0)  # short queries are normalised by psi(L), not stretched to 1
    assert np.all(np.diff(got[49, ::-1]) > 0)  # increasing with the distance along a row
    np.testing.assert_array_equal(np.diagonal(got), 0.0)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [((-2,), {}, ValueError, "length"), ((2.0,), {}, TypeError, "length"),
     ((4,), {"c": 0.0}, ValueError, "c must be a positive"), ((4,), {"c": "1"}, TypeError, "c must"),
     ((4,), {"threshold": -1.0}, ValueError, "threshold"),
     ((4,), {"threshold": float("inf")}, ValueError, "threshold")],
)  # fmt: skip
def test_fire_bad_arguments(args: tuple, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        fire_distance(*args, **kwargs)
