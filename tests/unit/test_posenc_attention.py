"""posenc attention: textbook agreement, softmax rows, masks, stability, and why
positions matter ("dog bites man" vs "man bites dog")."""

from __future__ import annotations

import math

import numpy as np

from posenc import attention, attention_weights, causal_mask, self_attention, sinusoidal

rng = np.random.default_rng(2024)


def attention_loop(q, k, v, mask=None):  # type: ignore[no-untyped-def]
    """Textbook scaled dot-product attention with Python loops and math.exp (2-D only)."""
    len_q, d_k = len(q), len(q[0])
    len_k, d_v = len(k), len(v[0])
    out = [[0.0] * d_v for _ in range(len_q)]
    for i in range(len_q):
        scores = []
        for j in range(len_k):
            s = sum(q[i][t] * k[j][t] for t in range(d_k)) / math.sqrt(d_k)
            scores.append(s if mask is None or mask[i][j] else -math.inf)
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        for j in range(len_k):
            for c in range(d_v):
                out[i][c] += exps[j] / total * v[j][c]
    return np.array(out)


def test_matches_textbook_loop() -> None:
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    np.testing.assert_allclose(attention(q, k, v), attention_loop(q, k, v), atol=1e-12)


def test_matches_textbook_loop_with_mask() -> None:
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    mask = rng.random((5, 5)) < 0.5
    mask[:, 0] = True  # every query may attend to something
    np.testing.assert_allclose(attention(q, k, v, mask=mask), attention_loop(q, k, v, mask), atol=1e-12)


def test_batched_matches_loop_per_slice_and_broadcasts() -> None:
    q = rng.normal(size=(2, 1, 4, 8))  # (batch, 1 head, len_q, d_k)
    k = rng.normal(size=(1, 3, 5, 8))  # (1, heads, len_k, d_k)
    v = rng.normal(size=(2, 3, 5, 6))
    out = attention(q, k, v)
    assert out.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(out[b, h], attention_loop(q[b, 0], k[0, h], v[b, h]), atol=1e-12)


def test_weights_are_a_probability_distribution() -> None:
    w = attention_weights(rng.normal(size=(3, 7, 16)), rng.normal(size=(3, 9, 16)))
    assert w.shape == (3, 7, 9)
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)


def test_attention_is_weights_times_values() -> None:
    q, k, v = rng.normal(size=(6, 4)), rng.normal(size=(8, 4)), rng.normal(size=(8, 5))
    mask = causal_mask(8)[:6]
    np.testing.assert_allclose(attention(q, k, v, mask=mask), attention_weights(q, k, mask=mask) @ v, atol=1e-14)


def test_masked_weights_are_exactly_zero() -> None:
    w = attention_weights(rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), mask=causal_mask(6))
    assert (w[np.triu_indices(6, k=1)] == 0.0).all()
    assert w[0, 0] == 1.0


def test_causal_mask_values() -> None:
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert causal_mask(4).dtype == np.bool_
    assert causal_mask(0).shape == (0, 0)
    assert causal_mask(np.int64(2)).shape == (2, 2)


def test_causal_mask_blocks_the_future() -> None:
    """Changing tokens after position t leaves outputs at positions <= t unchanged."""
    seq, d = 10, 8
    x = rng.normal(size=(seq, d))
    w_q, w_k, w_v = rng.normal(size=(3, d, d))
    out = self_attention(x, w_q, w_k, w_v, mask=causal_mask(seq))
    for t in (0, 4, 8):
        x_changed = x.copy()
        x_changed[t + 1 :] = rng.normal(size=(seq - t - 1, d)) * 10
        out_changed = self_attention(x_changed, w_q, w_k, w_v, mask=causal_mask(seq))
        np.testing.assert_allclose(out_changed[: t + 1], out[: t + 1], atol=1e-12)
        assert not np.allclose(out_changed[t + 1 :], out[t + 1 :])
    # without the mask the past *does* see the future
    full = self_attention(x, w_q, w_k, w_v)
    x_changed = x.copy()
    x_changed[-1] += 5.0
    assert not np.allclose(self_attention(x_changed, w_q, w_k, w_v)[0], full[0])


def test_stable_for_huge_scores() -> None:
    q = np.array([[1e4]])  # d_k = 1, scores = q k^T = 1e8 and 1e8 - 1e4
    k = np.array([[1e4], [1e4 - 1.0]])
    v = np.array([[1.0], [2.0]])
    w = attention_weights(q, k)
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, [[1.0, 0.0]])
    np.testing.assert_allclose(attention(q, k, v), [[1.0]])
    # equal huge scores: uniform weights, no overflow
    k_equal = np.array([[1e4], [1e4]])
    np.testing.assert_allclose(attention_weights(q, k_equal), [[0.5, 0.5]])
    # huge negative scores too
    np.testing.assert_allclose(attention_weights(-q, k_equal), [[0.5, 0.5]])


def test_scores_scaled_by_sqrt_dk() -> None:
    q = np.array([[1.0, 1.0, 1.0, 1.0]])
    k = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])  # scores 4/2 = 2 and 0
    expected = np.exp([2.0, 0.0]) / np.exp([2.0, 0.0]).sum()
    np.testing.assert_allclose(attention_weights(q, k)[0], expected)


def test_mask_broadcasts() -> None:
    q, k = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    key_padding = np.array([True, True, True, False, False])  # (len_k,)
    w = attention_weights(q, k, mask=key_padding)
    assert (w[..., 3:] == 0).all()
    np.testing.assert_allclose(w.sum(-1), 1.0)
    np.testing.assert_allclose(w, attention_weights(q, k, mask=[key_padding.tolist()]))


def test_dtype_follows_inputs() -> None:
    q32 = rng.normal(size=(3, 4)).astype(np.float32)
    assert attention(q32, q32, q32).dtype == np.float32
    assert attention(q32, q32, q32.astype(np.float64)).dtype == np.float64
    assert attention([[1, 0]], [[1, 0]], [[2, 3]]).dtype == np.float64
    assert attention_weights(q32, q32.astype(np.float64)).dtype == np.float64
    assert attention_weights(q32.astype(np.float16), q32.astype(np.float16)).dtype == np.float16


def test_self_attention_definition() -> None:
    x = rng.normal(size=(2, 5, 6))
    w_q, w_k, w_v = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    mask = causal_mask(5)
    np.testing.assert_allclose(
        self_attention(x, w_q, w_k, w_v, mask=mask),
        attention(x @ w_q, x @ w_k, x @ w_v, mask=mask),
    )


# --- "dog bites man" vs "man bites dog" ---------------------------------------------


def _toy_setup() -> tuple[dict[str, np.ndarray], tuple[np.ndarray, ...]]:
    words_rng = np.random.default_rng(0)
    d = 16
    vocab = {word: words_rng.normal(size=d) for word in ("dog", "bites", "man")}
    weights = tuple(words_rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(3))
    return vocab, weights


def _outputs_by_word(sentence: list[str], add_positions: bool) -> dict[str, np.ndarray]:
    vocab, (w_q, w_k, w_v) = _toy_setup()
    x = np.stack([vocab[word] for word in sentence])  # (3, d)
    if add_positions:
        x = x + sinusoidal(len(sentence), x.shape[1])
    out = self_attention(x, w_q, w_k, w_v)
    return {word: out[i] for i, word in enumerate(sentence)}


def test_self_attention_alone_ignores_word_order() -> None:
    a = _outputs_by_word(["dog", "bites", "man"], add_positions=False)
    b = _outputs_by_word(["man", "bites", "dog"], add_positions=False)
    for word in ("dog", "bites", "man"):
        np.testing.assert_allclose(a[word], b[word], atol=1e-12)


def test_positions_make_word_order_matter() -> None:
    a = _outputs_by_word(["dog", "bites", "man"], add_positions=True)
    b = _outputs_by_word(["man", "bites", "dog"], add_positions=True)
    assert not np.allclose(a["dog"], b["dog"], atol=1e-3)
    assert not np.allclose(a["man"], b["man"], atol=1e-3)


def test_self_attention_permutation_equivariant_in_general() -> None:
    x = rng.normal(size=(7, 5))
    w_q, w_k, w_v = rng.normal(size=(3, 5, 5))
    perm = rng.permutation(7)
    np.testing.assert_allclose(
        self_attention(x[perm], w_q, w_k, w_v), self_attention(x, w_q, w_k, w_v)[perm], atol=1e-12
    )
