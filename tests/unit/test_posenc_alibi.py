"""posenc.alibi_slopes / alibi_bias against the ALiBi paper's slopes and reference code."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import alibi_bias, alibi_slopes


def reference_get_slopes(n: int) -> list[float]:
    """``get_slopes`` of ofirpress/attention_with_linear_biases (also BLOOM's), re-typed."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + reference_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def test_eight_heads_are_the_papers_halvings() -> None:
    np.testing.assert_array_equal(alibi_slopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256])


def test_sixteen_heads_start_at_one_over_sqrt_two() -> None:
    """The paper: for 16 heads, 1/2^0.5, 1/2^1, ..., 1/2^8."""
    np.testing.assert_allclose(alibi_slopes(16), [2 ** -(h / 2) for h in range(1, 17)], rtol=1e-15)


def test_twelve_heads_known_list() -> None:
    """8 heads' slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 from the 16-head sequence."""
    expected = [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    np.testing.assert_allclose(alibi_slopes(12), expected, rtol=1e-15)


@pytest.mark.parametrize("n_heads", [1, 2, 3, 5, 6, 7, 8, 12, 20, 24, 32, 40, 71, 96, 112, 128])
def test_matches_reference_code(n_heads: int) -> None:
    slopes = alibi_slopes(n_heads)
    assert slopes.shape == (n_heads,) and slopes.dtype == np.float64
    np.testing.assert_allclose(slopes, reference_get_slopes(n_heads), rtol=1e-14)
    assert np.all((slopes > 0) & (slopes < 1))
    assert len(np.unique(slopes)) == n_heads


def test_bias_formula_and_shape() -> None:
    bias = alibi_bias(12, 7)
    assert bias.shape == (12, 7, 7)
    slopes = reference_get_slopes(12)
    for h in range(12):
        for i in range(7):
            for j in range(7):
                assert bias[h, i, j] == pytest.approx(-slopes[h] * abs(i - j), rel=1e-14)


def test_bias_properties() -> None:
    bias = alibi_bias(8, 30)
    np.testing.assert_array_equal(bias, np.swapaxes(bias, 1, 2))
    assert np.all(bias <= 0)
    assert np.all(np.diagonal(bias, axis1=1, axis2=2) == 0)
    # constant along diagonals: depends on i - j only
    for offset in (1, 5, 29):
        diag = np.diagonal(bias, offset=offset, axis1=1, axis2=2)
        np.testing.assert_array_equal(diag, diag[:, :1] * np.ones_like(diag))


def test_empty_sequence() -> None:
    assert alibi_bias(4, 0).shape == (4, 0, 0)


@pytest.mark.parametrize(
    ("n_heads", "error", "match"),
    [
        (0, ValueError, "n_heads must be positive"),
        (-3, ValueError, "n_heads"),
        (2.0, TypeError, "n_heads"),
        (True, TypeError, "n_heads"),
        ("8", TypeError, "n_heads"),
    ],
)
def test_bad_n_heads(n_heads: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        alibi_slopes(n_heads)  # type: ignore[arg-type]
    with pytest.raises(error, match=match):
        alibi_bias(n_heads, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize(("seq_len", "error"), [(-1, ValueError), (3.0, TypeError), (None, TypeError)])
def test_bad_seq_len(seq_len: object, error: type) -> None:
    with pytest.raises(error, match="seq_len"):
        alibi_bias(4, seq_len)  # type: ignore[arg-type]
