"""posenc.LearnedEmbedding: GPT-2/BERT initialisation, lookup, refusal to extrapolate."""

from __future__ import annotations

import re

import numpy as np
import pytest

from posenc import LearnedEmbedding, sinusoidal


def test_table_shape_and_dtype() -> None:
    emb = LearnedEmbedding(32, 12)
    assert emb.table.shape == (32, 12)
    assert emb.table.dtype == np.float64
    assert (emb.max_len, emb.d_model) == (32, 12)
    assert "max_len=32" in repr(emb)


def test_reproducible_by_seed() -> None:
    a = LearnedEmbedding(64, 16, seed=7)
    b = LearnedEmbedding(64, 16, seed=7)
    c = LearnedEmbedding(64, 16, seed=8)
    np.testing.assert_array_equal(a.table, b.table)
    assert not np.allclose(a.table, c.table)
    expected = np.random.default_rng(7).normal(0.0, 0.02, size=(64, 16))
    np.testing.assert_array_equal(a.table, expected)
    np.testing.assert_array_equal(LearnedEmbedding(4, 4, seed=np.int64(7)).table.shape, (4, 4))


def test_init_statistics_match_gpt2() -> None:
    table = LearnedEmbedding(512, 256, seed=0).table  # 131072 draws
    assert abs(table.std() - 0.02) < 0.0005
    assert abs(table.mean()) < 0.0005
    assert abs(LearnedEmbedding(512, 256, std=0.5).table.std() - 0.5) < 0.01


def test_lookup_forms() -> None:
    emb = LearnedEmbedding(10, 4, seed=1)
    np.testing.assert_array_equal(emb(3), emb.table[:3])
    np.testing.assert_array_equal(emb(np.int64(3)), emb.table[:3])
    np.testing.assert_array_equal(emb([9, 0, 9]), emb.table[[9, 0, 9]])
    np.testing.assert_array_equal(emb(np.array([2, 5], dtype=np.int16)), emb.table[[2, 5]])
    np.testing.assert_array_equal(emb(np.array([2.0, 5.0])), emb.table[[2, 5]])
    assert emb(0).shape == (0, 4)
    assert emb(10).shape == (10, 4)  # every row


def test_lookup_returns_copy() -> None:
    emb = LearnedEmbedding(4, 2)
    rows = emb([1])
    rows[:] = 99.0
    assert not np.any(emb.table == 99.0)


def test_odd_d_model_is_fine_for_a_table() -> None:
    assert LearnedEmbedding(3, 5).table.shape == (3, 5)


@pytest.mark.parametrize("positions", [[16], [3, 20], 17, [-1], np.array([0, 1e9])])
def test_refuses_to_extrapolate(positions: object) -> None:
    emb = LearnedEmbedding(16, 4)
    with pytest.raises(ValueError, match=r"cannot extrapolate past max_len") as info:
        emb(positions)
    assert "max_len=16" in str(info.value)


def test_extrapolation_message_names_offending_position() -> None:
    emb = LearnedEmbedding(16, 4)
    with pytest.raises(ValueError, match=r"position 20 .*max_len=16"):
        emb([3, 20])
    with pytest.raises(ValueError, match=r"position -1 .*max_len=16"):
        emb([-1])
    with pytest.raises(ValueError, match=r"position 16 .*max_len=16"):
        emb(17)  # positions 0..16


def test_sinusoidal_extrapolates_where_learned_cannot() -> None:
    """The lesson's point: same request, one answer, one error."""
    positions = np.arange(100)
    assert np.isfinite(sinusoidal(positions, 8)).all()
    with pytest.raises(ValueError, match="extrapolate"):
        LearnedEmbedding(64, 8)(positions)


def test_fractional_positions_rejected() -> None:
    with pytest.raises(ValueError, match=r"^positions must be whole numbers for a learned table .*, got 1\.5$"):
        LearnedEmbedding(8, 2)([2.0, 1.5])  # the message names the fractional one


def test_a_position_past_the_table_is_named_with_the_rows_there_are() -> None:
    with pytest.raises(ValueError) as caught:
        LearnedEmbedding(8, 2)([3, 8])
    assert str(caught.value) == (
        "position 8 is outside the learned table (rows 0..7): a learned table cannot extrapolate past max_len=8"
    )


def test_the_default_seed_is_zero() -> None:
    np.testing.assert_array_equal(LearnedEmbedding(4, 2).table, LearnedEmbedding(4, 2, seed=0).table)


@pytest.mark.parametrize("max_len", [0, -3])
def test_bad_max_len_value(max_len: int) -> None:
    with pytest.raises(ValueError, match=r"^max_len must be (at least 1|a non-negative count)"):
        LearnedEmbedding(max_len, 4)


@pytest.mark.parametrize("max_len", [3.0, "8", None, True])
def test_bad_max_len_type(max_len: object) -> None:
    with pytest.raises(TypeError, match=r"^max_len must be an int count"):
        LearnedEmbedding(max_len, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize("std", [0.0, -0.02, float("nan"), float("inf")])
def test_bad_std_value(std: float) -> None:
    with pytest.raises(ValueError, match=r"^std must be a positive finite number"):
        LearnedEmbedding(4, 4, std=std)


def test_bad_std_type() -> None:
    with pytest.raises(TypeError, match=r"^std must be a positive finite number, got str '0\.02'$"):
        LearnedEmbedding(4, 4, std="0.02")  # type: ignore[arg-type]


@pytest.mark.parametrize(("d_model", "error"), [(0, ValueError), (-2, ValueError), (4.0, TypeError)])
def test_bad_d_model(d_model: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"^d_model must be a positive int|^d_model must be positive"):
        LearnedEmbedding(4, d_model)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seed", "error", "message"),
    [
        (-1, ValueError, "seed must be non-negative, got -1"),
        (1.5, TypeError, "seed must be an int or None, got float 1.5"),
        ("0", TypeError, "seed must be an int or None, got str '0'"),
    ],
)
def test_bad_seed(seed: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        LearnedEmbedding(4, 4, seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("positions", "error", "match"),
    [
        (2.0, TypeError, "positions"),
        ("3", TypeError, "positions"),
        (True, TypeError, "positions"),
        (-1, ValueError, "positions"),
        ([[1, 2]], ValueError, "positions.*1-D"),
        ([1.0, np.nan], ValueError, "positions.*finite"),
    ],
)
def test_bad_lookup_positions(positions: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        LearnedEmbedding(8, 2)(positions)  # type: ignore[arg-type]
