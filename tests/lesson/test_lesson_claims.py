"""Every claim of lesson 32 that code can check, checked with ``posenc``.

The lesson (``lessons/32-positional-encoding.md``) says things like "without
positions, 'dog' gets the same vector in both sentences", "sinusoidal encoding
works at any position, a learned table refuses positions past max_len" or
"the wavelengths grow from 2π towards 10000·2π". Each test below names the
claim it backs. Where the lesson's own cell makes the claim, the test runs that
very cell, so the text and the test cannot drift apart.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc
from course_site.fences import Block, Cell

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "32-positional-encoding.md"
WORDS = ("dog", "bites", "man")


# --- independent references: the papers' formulas, written out without posenc ---------


def _reference_pe(positions, d_model: int) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...), entry by entry."""
    return np.array(
        [
            [(math.sin if j % 2 == 0 else math.cos)(pos / 10000 ** ((j - j % 2) / d_model)) for j in range(d_model)]
            for pos in positions
        ]
    )


def _reference_omega(d_model: int) -> np.ndarray:
    """omega_i = 10000^(-2i/d), one per sin/cos pair."""
    return np.array([10000.0 ** (-2 * i / d_model) for i in range(d_model // 2)])


def _reference_rope(x: np.ndarray, position: float) -> np.ndarray:
    """RoFormer's rotation of one vector: pair (x[2i], x[2i+1]) turned by position * theta_i."""
    out = np.empty_like(x)
    for i, theta in enumerate(_reference_omega(len(x))):
        c, s = math.cos(position * theta), math.sin(position * theta)
        out[2 * i] = c * x[2 * i] - s * x[2 * i + 1]
        out[2 * i + 1] = s * x[2 * i] + c * x[2 * i + 1]
    return out


def _reference_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k)) v, masked entries excluded from the softmax."""
    scores = q @ k.T / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def _flat(text: str) -> str:
    """The lesson's prose with line breaks folded into spaces."""
    return " ".join(text.split())


# --- reading and running the lesson, with the site's own parser -------------------------


@pytest.fixture(scope="module")
def lesson(lesson_reader):
    return lesson_reader(LESSON.name)


@pytest.fixture(scope="module")
def lesson_text(lesson) -> str:
    return lesson.text


@pytest.fixture(scope="module")
def blocks(lesson) -> list[Block]:
    return lesson.blocks


@pytest.fixture(scope="module")
def cells(lesson) -> list[Cell]:
    """Each ``pyodide`` cell, validated as the build validates it."""
    return lesson.cells


@pytest.fixture(scope="module")
def quizzes(lesson) -> list[str]:
    return lesson.quizzes


@pytest.fixture(scope="module")
def lesson_run(lesson, lesson_runner):
    """The namespace after the lesson's cells, each cell's printed output and its figure count."""
    return lesson_runner(lesson.cells)


# --- the lesson's shape -------------------------------------------------------------------


def test_lesson_has_six_cells_and_one_quiz(cells, quizzes):
    assert len(cells) == 6
    assert len(quizzes) == 1


def test_cells_have_visible_code_and_a_hidden_setup(cells):
    assert all(cell.code.strip() for cell in cells)
    assert all("import numpy as np" in cell.setup for cell in cells)


def test_quiz_question_and_options(quizzes):
    quiz = quizzes[0]
    assert quiz.startswith("Why does a Transformer need positional encoding when an RNN does not?")
    options = re.findall(r"^- \[([ x])\] (.+)$", quiz, flags=re.M)
    assert 3 <= len(options) <= 4
    right = [text for mark, text in options if mark == "x"]
    assert len(right) == 1
    assert "permutation-equivariant" in right[0]
    assert "one at a time" in right[0]
    # every option is followed by an indented explanation
    for match in re.finditer(r"^- \[[ x]\] .+\n(?P<next>.*)$", quiz, flags=re.M):
        assert match["next"].startswith("    ") and match["next"].strip()


def test_quiz_explains_the_scaling_by_softmax_saturation(quizzes):
    """Option 4: 1/sqrt(d_k) keeps the softmax out of tiny-gradient regions (Vaswani et al. §3.2.1)."""
    explanations = re.findall(r"^- \[[ x]\] .+\n {4}(.+)$", quizzes[0], flags=re.M)
    scaling = explanations[3]
    assert "gradients" in scaling and "§3.2.1" in scaling
    assert "numerical" not in scaling


def test_lesson_has_warning_and_no_handwritten_download_note(lesson_text):
    assert '!!! warning "Without positional encoding"' in lesson_text
    assert "bidirectional self-attention cannot tell" in _flat(lesson_text)
    assert not re.search(r"\d\s*MB on first Run", lesson_text)


def test_references_are_links_not_chapters(lesson_text):
    """RoPE's lesson is linked; no 'Chapter 9' or 'previous chapters' that lead nowhere."""
    assert "[33 · Rotary position embedding and long context](33-rope-long-context.md)" in _flat(lesson_text)
    assert not re.search(r"chapter", lesson_text, flags=re.I)
    assert "first 4 numbers" not in lesson_text


def test_comparison_table_header_has_no_empty_cell(lesson_text):
    header = next(line for line in lesson_text.splitlines() if line.startswith("|") and "Sinusoidal" in line)
    cells = [cell.strip() for cell in header.strip("|").split("|")]
    assert cells[0] == "Property" and all(cells)


def test_cells_run_in_order_and_make_figures(lesson_run):
    """Every cell runs (the build would fail otherwise); cells 3, 4, 5 and 6 draw one figure each."""
    assert lesson_run[2] == [0, 0, 1, 1, 1, 1]


# --- cell (a): attention is order-blind, positions cure it -------------------------------


def test_cell_a_prints_zero_then_nonzero_differences(lesson_run):
    out = lesson_run[1][0]
    without, with_ = out.split("\nwith positions:")
    diffs_without = [float(x) for x in re.findall(r"difference\| = ([\d.]+)", without)]
    diffs_with = [float(x) for x in re.findall(r"difference\| = ([\d.]+)", with_)]
    assert diffs_without == [0.0, 0.0, 0.0]
    assert len(diffs_with) == 3 and all(d > 0 for d in diffs_with)


def test_without_positions_each_word_gets_the_same_vector(lesson_run):
    """Cell (a)'s own construction: identical per-word outputs for both sentences."""
    encode = lesson_run[0]["encode"]
    a = encode("dog bites man", with_positions=False)
    b = encode("man bites dog", with_positions=False)
    for word in WORDS:
        np.testing.assert_allclose(a[word], b[word], rtol=0, atol=1e-12)


def test_with_positions_the_words_differ(lesson_run):
    """Cell (a)'s own construction: with sinusoidal PE added, every word differs."""
    encode = lesson_run[0]["encode"]
    a = encode("dog bites man", with_positions=True)
    b = encode("man bites dog", with_positions=True)
    for word in WORDS:
        assert np.abs(a[word] - b[word]).max() > 1e-3, word


def _encode(sentence, vocab, weights, with_positions):
    """The construction of cell (a), for any vocabulary and weights."""
    words = sentence.split()
    x = np.stack([vocab[w] for w in words])
    if with_positions:
        x = x + posenc.sinusoidal(len(words), x.shape[1])
    return dict(zip(words, posenc.self_attention(x, *weights), strict=True))


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("d_model", [4, 8, 32])
def test_dog_bites_man_is_not_a_lucky_seed(seed, d_model):
    rng = np.random.default_rng(seed)
    vocab = {word: rng.normal(size=d_model) for word in WORDS}
    weights = [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(3)]
    plain = [_encode(s, vocab, weights, False) for s in ("dog bites man", "man bites dog")]
    placed = [_encode(s, vocab, weights, True) for s in ("dog bites man", "man bites dog")]
    for word in WORDS:
        np.testing.assert_allclose(plain[0][word], plain[1][word], rtol=0, atol=1e-12)
    assert max(np.abs(placed[0][w] - placed[1][w]).max() for w in WORDS) > 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_self_attention_is_permutation_equivariant(seed):
    """Attention(PX) = P · Attention(X) for every permutation P."""
    rng = np.random.default_rng(seed)
    n, d = 7, 16
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
    perm = rng.permutation(n)
    out = posenc.self_attention(x, w_q, w_k, w_v)
    out_perm = posenc.self_attention(x[perm], w_q, w_k, w_v)
    np.testing.assert_allclose(out_perm, out[perm], rtol=0, atol=1e-12)


def test_positional_encoding_breaks_permutation_equivariance():
    rng = np.random.default_rng(0)
    n, d = 7, 16
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
    perm = rng.permutation(n)
    pe = posenc.sinusoidal(n, d)
    out = posenc.self_attention(x + pe, w_q, w_k, w_v)
    out_perm = posenc.self_attention(x[perm] + pe, w_q, w_k, w_v)
    assert not np.allclose(out_perm, out[perm])


def test_attention_is_the_formula():
    """softmax(QKᵀ/√d_k)·V, as the lesson writes it."""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 5, 8))
    scores = q @ k.T / np.sqrt(8)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(posenc.attention(q, k, v), weights @ v, atol=1e-12)
    np.testing.assert_allclose(posenc.attention_weights(q, k), weights, atol=1e-12)


def test_score_expansion_into_content_and_position_terms():
    """softmax of the lesson's four terms / sqrt(d_k) is what posenc computes for x + PE."""
    rng = np.random.default_rng(0)
    n, d = 5, 16
    x = rng.normal(size=(n, d))
    w_q, w_k = rng.normal(size=(2, d, d)) / np.sqrt(d)
    p = _reference_pe(range(n), d)
    m = w_q @ w_k.T
    terms = x @ m @ x.T + x @ m @ p.T + p @ m @ x.T + p @ m @ p.T
    expected = np.exp(terms / np.sqrt(d))
    expected /= expected.sum(axis=1, keepdims=True)
    x_in = x + posenc.sinusoidal(n, d)
    np.testing.assert_allclose(posenc.attention_weights(x_in @ w_q, x_in @ w_k), expected, atol=1e-12)


# --- the causal case ----------------------------------------------------------------------

CAUSAL_DIFFERENCES = {"dog": 1.829, "bites": 0.488, "man": 1.781}


def test_causal_cell_prints_the_lessons_numbers(lesson_run, lesson_text):
    """Cell 2 prints, and the text quotes, dog 1.829, bites 0.488, man 1.781."""
    printed = dict(re.findall(r"(\w+): max \|difference\| = ([\d.]+)", lesson_run[1][1]))
    assert {w: float(v) for w, v in printed.items()} == CAUSAL_DIFFERENCES
    assert "(dog 1.829, bites 0.488, man 1.781)" in _flat(lesson_text)


def test_causal_numbers_match_an_independent_attention(lesson_run):
    """The same words and weights, through a hand-written masked attention."""
    namespace = lesson_run[0]
    vocab, w_q, w_k, w_v = (namespace[name] for name in ("vocab", "w_q", "w_k", "w_v"))
    mask = np.tril(np.ones((3, 3), dtype=bool))
    outputs = []
    for sentence in ("dog bites man", "man bites dog"):
        x = np.stack([vocab[w] for w in sentence.split()])
        outputs.append(dict(zip(sentence.split(), _reference_attention(x @ w_q, x @ w_k, x @ w_v, mask), strict=True)))
    for word, expected in CAUSAL_DIFFERENCES.items():
        assert np.abs(outputs[0][word] - outputs[1][word]).max() == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("seed", range(5))
def test_causal_mask_alone_separates_the_sentences(seed):
    rng = np.random.default_rng(seed)
    vocab = {word: rng.normal(size=8) for word in WORDS}
    w_q, w_k, w_v = (rng.normal(size=(8, 8)) / np.sqrt(8) for _ in range(3))
    outs = []
    for sentence in ("dog bites man", "man bites dog"):
        x = np.stack([vocab[w] for w in sentence.split()])
        outs.append(
            dict(
                zip(sentence.split(), posenc.self_attention(x, w_q, w_k, w_v, mask=posenc.causal_mask(3)), strict=True)
            )
        )
    assert all(np.abs(outs[0][w] - outs[1][w]).max() > 1e-6 for w in WORDS)


# --- the sinusoidal definition ------------------------------------------------------------


@pytest.mark.parametrize(("seq_len", "d_model"), [(1, 2), (3, 8), (64, 128), (50, 512)])
def test_shape_is_seq_len_by_d_model(seq_len, d_model):
    pe = posenc.sinusoidal(seq_len, d_model)
    assert pe.shape == (seq_len, d_model)
    assert pe.dtype == np.float64


def test_sin_on_even_and_cos_on_odd_dimensions():
    d_model = 16
    pos = np.arange(50)[:, None]
    i = np.arange(d_model // 2)[None, :]
    angle = pos / 10000 ** (2 * i / d_model)
    pe = posenc.sinusoidal(50, d_model)
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angle), atol=1e-12)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angle), atol=1e-12)


def test_encoding_is_the_fixed_formula_at_every_length():
    """Fixed, not learned: whatever the length asked for, each row is the paper's formula."""
    for n in (1, 8, 32):
        np.testing.assert_allclose(posenc.sinusoidal(n, 64), _reference_pe(range(n), 64), atol=1e-12)


@pytest.mark.parametrize("d_model", [2, 16, 128, 512])
def test_every_row_has_norm_sqrt_half_d_model(d_model):
    """Entries in [-1, 1], yet each row has norm sqrt(d_model / 2): one per sin/cos pair."""
    pe = posenc.sinusoidal(np.array([0.0, 1.0, 37.5, 1e5]), d_model)
    assert np.abs(pe).max() <= 1.0
    np.testing.assert_allclose(np.linalg.norm(pe, axis=1), math.sqrt(d_model / 2), rtol=1e-12)


def test_heatmap_cell_and_text_give_the_row_norm(lesson_run, lesson_text):
    assert f"row norms: [{math.sqrt(64):.0f}.] = sqrt(d_model / 2) = {math.sqrt(64)}" in lesson_run[1][2]
    assert "which is 8 at $d_{\\text{model}} = 128$" in _flat(lesson_text)


# Initial standard deviations, with where they were read: OpenAI's gpt-2 src/model.py, model():
# wpe random_normal_initializer(stddev=0.01), wte stddev=0.02; Hugging Face's GPT2PreTrainedModel
# _init_weights: every nn.Embedding normal(0, initializer_range = 0.02); google-research/bert
# modeling.py: position table truncated_normal(initializer_range = 0.02).
INIT_STD = {"GPT-2 wpe (OpenAI)": 0.01, "GPT-2 wte (OpenAI)": 0.02, "GPT-2 (Hugging Face)": 0.02, "BERT": 0.02}


def test_learned_tables_start_small_with_the_sources_std(lesson_text):
    """GPT-2's position table wpe starts at std 0.01 in OpenAI's code; a row norm is about std * sqrt(d_model)."""
    text = _flat(lesson_text)
    assert "OpenAI's GPT-2 code draws its position table `wpe` with $\\sigma = 0.01$" in text
    assert "its token table `wte` with 0.02; Hugging Face's port of GPT-2 uses 0.02 for both" in text
    assert "BERT draws its position table with $\\sigma = 0.02$" in text
    assert "GPT-2 and BERT draw their initial entries with standard deviation 0.02" not in text
    assert INIT_STD["GPT-2 wpe (OpenAI)"] == 0.01
    import inspect

    assert inspect.signature(posenc.LearnedEmbedding).parameters["std"].default == INIT_STD["GPT-2 (Hugging Face)"]
    table = posenc.LearnedEmbedding(max_len=1024, d_model=768, std=INIT_STD["GPT-2 wpe (OpenAI)"], seed=0).table
    norms = np.linalg.norm(table, axis=1)
    assert norms.mean() == pytest.approx(0.01 * math.sqrt(768), rel=0.01)  # about 0.28, against 8 for sinusoidal


def test_frequencies_fall_geometrically_from_one_to_nearly_one_over_10000():
    d_model = 128
    omega = posenc.frequencies(d_model)
    np.testing.assert_allclose(omega, _reference_omega(d_model), rtol=1e-14)
    assert omega[0] == 1.0
    np.testing.assert_allclose(omega[1:] / omega[:-1], 10000 ** (-2 / d_model), rtol=1e-12)  # geometric
    assert 1 / 10000 < omega[-1] < 2 / 10000
    pe = posenc.sinusoidal(np.array([1.0]), d_model)
    np.testing.assert_allclose(pe[0, 0::2], np.sin(_reference_omega(d_model)), atol=1e-12)


# --- wavelengths: fast low dimensions, slow high dimensions ------------------------------


def test_wavelengths_grow_from_two_pi_towards_10000_two_pi():
    for d_model in (64, 128, 512):
        wavelengths = 2 * np.pi / posenc.frequencies(d_model)
        np.testing.assert_allclose(wavelengths, [2 * math.pi * 10000 ** (2 * i / d_model) for i in range(d_model // 2)])
        assert np.all(np.diff(wavelengths) > 0)
        assert wavelengths[0] == pytest.approx(2 * math.pi)
        assert wavelengths[-1] < 10000 * 2 * math.pi


def test_text_and_cell_quote_the_wavelengths(lesson_run, lesson_text):
    """6.28, 62 832 and 54 410 in the text; the heatmap cell prints the same."""
    text = _flat(lesson_text)
    assert f"10000 \\cdot 2\\pi \\approx {2 * math.pi * 10000:,.0f}".replace(",", "\\,") in text
    last = 2 * math.pi * 10000 ** (126 / 128)
    assert f"\\lambda \\approx {last:,.0f}".replace(",", "\\,") in text
    out = lesson_run[1][2]
    assert f"wavelengths of pairs 0-2: [{2 * math.pi:.2f} {2 * math.pi * 10000 ** (2 / 128):.2f}" in out
    assert f"wavelength of the last pair: {round(last)}.0" in out


def test_column_period_matches_wavelength():
    """Pair i really repeats after λ_i positions."""
    d_model = 64
    for i in (0, 3, 10):
        lam = 2 * np.pi * 10000 ** (2 * i / d_model)
        pe = posenc.sinusoidal(np.array([5.0, 5.0 + lam]), d_model)
        np.testing.assert_allclose(pe[0, 2 * i : 2 * i + 2], pe[1, 2 * i : 2 * i + 2], atol=1e-9)


def test_low_dimensions_oscillate_faster_than_high_ones():
    """Count sign changes down each sine column: non-increasing with the dimension."""
    pe = posenc.sinusoidal(1000, 128)
    sines = pe[1:, 0::2]  # skip position 0, where every sine is exactly 0
    changes = (np.diff(np.sign(sines), axis=0) != 0).sum(axis=0)
    assert np.all(np.diff(changes) <= 0)
    assert changes[0] > 300  # about 1000 / π crossings
    assert changes[-1] == 0  # the slowest column never changes sign in 1000 steps


def test_heatmap_cell_numbers(lesson_run):
    """Cell 3 prints the shape and 'all rows distinct: True'."""
    out = lesson_run[1][2]
    assert "(64, 128)" in out
    assert "all 64 rows distinct: True" in out


# --- fingerprints -------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d_model"), [(64, 128), (2048, 128), (1000, 16)])
def test_every_position_has_a_distinct_fingerprint(n, d_model):
    pe = posenc.sinusoidal(n, d_model)
    assert np.unique(pe.round(8), axis=0).shape[0] == n


def test_fingerprint_distance_depends_only_on_offset_and_neighbours_are_closest():
    """‖PE(p) − PE(p+k)‖ is a function of k alone, smallest for k = 1 (d_model = 128)."""
    d_model = 128
    base = posenc.sinusoidal(np.array([0.0, 37.0, 512.0]), d_model)
    offsets = np.arange(1, 10_001, dtype=float)
    distances = []
    for p, row in zip((0.0, 37.0, 512.0), base, strict=True):
        shifted = posenc.sinusoidal(p + offsets, d_model)
        distances.append(np.linalg.norm(shifted - row, axis=1))
    np.testing.assert_allclose(distances[0], distances[1], atol=1e-8)
    np.testing.assert_allclose(distances[0], distances[2], atol=1e-8)
    assert np.argmin(distances[0]) == 0  # offset 1 is the nearest of all 10,000 offsets
    assert distances[0].min() > 1.9  # so distinct positions are never close to identical


def test_distance_is_not_monotone_in_the_offset(lesson_run, lesson_text):
    """'A trend, not a rule': at d_model = 128, offset 12 lies closer than offset 11."""
    pe = posenc.sinusoidal(np.array([0.0, 11.0, 12.0]), 128)
    d11, d12 = np.linalg.norm(pe[1] - pe[0]), np.linalg.norm(pe[2] - pe[0])
    reference = _reference_pe([0, 11, 12], 128)
    assert d11 == pytest.approx(np.linalg.norm(reference[1] - reference[0]), abs=1e-12)
    assert d12 == pytest.approx(np.linalg.norm(reference[2] - reference[0]), abs=1e-12)
    assert d12 < d11
    assert f"distance {d12:.3f} against {d11:.3f}" in _flat(lesson_text)
    assert f"k = ±11: dot {64 - d11**2 / 2:.3f}" in lesson_run[1][3]
    assert f"distance {d12:.3f}" in lesson_run[1][3]


def test_shift_is_a_rotation_of_each_pair():
    """(sin, cos) at pos + k is a fixed rotation (depending on k only) of (sin, cos) at pos."""
    d_model, k = 32, 7.0
    omega = _reference_omega(d_model)
    for pos in (0.0, 3.0, 250.0):
        now, later = posenc.sinusoidal(np.array([pos, pos + k]), d_model)
        s, c = now[0::2], now[1::2]
        np.testing.assert_allclose(later[0::2], np.cos(omega * k) * s + np.sin(omega * k) * c, atol=1e-9)
        np.testing.assert_allclose(later[1::2], -np.sin(omega * k) * s + np.cos(omega * k) * c, atol=1e-9)


def _reference_shift_matrix(k: float, d_model: int) -> np.ndarray:
    """Block diagonal: [[cos wk, sin wk], [-sin wk, cos wk]] for each pair."""
    r = np.zeros((d_model, d_model))
    for i, w in enumerate(_reference_omega(d_model)):
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [math.cos(w * k), math.sin(w * k)],
            [-math.sin(w * k), math.cos(w * k)],
        ]
    return r


@pytest.mark.parametrize("k", [1, 5, -3, 100])
def test_lesson_rotation_matrix_shifts_every_position(lesson_run, k):
    """The cell's R_k is the block rotation, is orthogonal, and maps PE[p] to PE[p + k]."""
    r_k = lesson_run[0]["shift_matrix"](k)
    np.testing.assert_allclose(r_k, _reference_shift_matrix(k, 128), atol=1e-12)
    np.testing.assert_allclose(r_k @ r_k.T, np.eye(128), atol=1e-12)
    for p in (0, 7, 500, 12_345):
        now, later = posenc.sinusoidal(np.array([p, p + k], dtype=float), 128)
        np.testing.assert_allclose(r_k @ now, later, atol=1e-9)


def test_rotation_cell_prints_true_three_times(lesson_run):
    out = lesson_run[1][3]
    assert re.findall(r"PE\[p \+ 5\] == R_5 @ PE\[p\]: (\w+)", out) == ["True"] * 3


@pytest.mark.parametrize("k", [0, 1, 5, 11, 100])
def test_fingerprint_dot_product_depends_only_on_distance(k):
    """PE_p . PE_(p+k) = sum_i cos(omega_i k), for every p, and the same for -k."""
    d_model = 64
    expected = np.sum(np.cos(_reference_omega(d_model) * k))
    for p in (0.0, 11.0, 999.0):
        pe = posenc.sinusoidal(np.array([p - k, p, p + k], dtype=float), d_model)
        assert pe[1] @ pe[2] == pytest.approx(expected, abs=1e-9)
        assert pe[1] @ pe[0] == pytest.approx(expected, abs=1e-9)  # even in k


def test_rotation_cell_shows_the_dot_product_is_even(lesson_run):
    pairs = re.findall(r"dot (-?[\d.]+) and (-?[\d.]+)", lesson_run[1][3])
    assert len(pairs) == 3 and all(left == right for left, right in pairs)


# --- extrapolation: sinusoidal vs learned -------------------------------------------------


@pytest.mark.parametrize("position", [511.0, 512.0, 10_000.0, 1e6, 2.5, 123_456.75])
def test_sinusoidal_works_past_any_max_len(position):
    pe = posenc.sinusoidal(np.array([position]), 64)
    assert pe.shape == (1, 64)
    assert np.isfinite(pe).all()
    angle = position / 10000 ** (np.arange(0, 64, 2) / 64)
    np.testing.assert_allclose(pe[0, 0::2], np.sin(angle), atol=1e-9)


@pytest.mark.parametrize("position", [512, 513, 10_000, 1_000_000])
def test_learned_table_refuses_positions_past_max_len(position):
    learned = posenc.LearnedEmbedding(max_len=512, d_model=64)
    with pytest.raises(ValueError, match="extrapolate"):
        learned(np.array([position]))


def test_learned_table_is_a_lookup_with_max_len_rows():
    learned = posenc.LearnedEmbedding(max_len=512, d_model=64, seed=0)
    assert learned.table.shape == (512, 64)
    np.testing.assert_array_equal(learned(np.array([0, 511])), learned.table[[0, 511]])
    assert learned(np.arange(4)).shape == (4, 64)


def test_comparison_cell_shows_extrapolation(lesson_run):
    out = lesson_run[1][4]
    assert "finite: True" in out
    assert "ValueError:" in out and "extrapolate" in out
    assert "(512, 64)" in out


# --- RoPE ---------------------------------------------------------------------------------


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_rope_scores_depend_only_on_offset(pairing):
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(2, 1, 64))

    def score(q_pos, k_pos):
        q_rot = posenc.rope(q, positions=np.array([q_pos]), pairing=pairing)
        k_rot = posenc.rope(k, positions=np.array([k_pos]), pairing=pairing)
        return (q_rot @ k_rot.T).item()

    for q_pos, k_pos in [(3, 1), (10, 10), (0, 25)]:
        for shift in (1, 100, 5000):
            assert score(q_pos + shift, k_pos + shift) == pytest.approx(score(q_pos, k_pos), abs=1e-9)
    assert score(3, 1) != pytest.approx(score(3, 2), abs=1e-6)


def _reference_rope_score(q: np.ndarray, k: np.ndarray, q_pos: float, k_pos: float) -> float:
    return float(_reference_rope(q, q_pos) @ _reference_rope(k, k_pos))


def test_rope_cell_score_depends_on_the_signed_offset(lesson_run, lesson_text):
    """(3, 1) and (103, 101) score 4.765; (1, 3) scores 1.754, in the cell, the text and by hand."""
    namespace, printed, _ = lesson_run
    q, k = namespace["q"][0], namespace["k"][0]
    for q_pos, k_pos, shown in [(3, 1, "4.765"), (103, 101, "4.765"), (1, 3, "1.754")]:
        expected = _reference_rope_score(q, k, q_pos, k_pos)
        assert namespace["rope_score"](q_pos, k_pos) == pytest.approx(expected, abs=1e-9)
        assert f"{expected:.3f}" == shown
        assert f"q at {q_pos:>3}, k at {k_pos:>3}: {shown}" in printed[4]
    text = _flat(lesson_text)
    assert "score 4.765, exactly as at 103 and 101" in text
    assert "the score is 1.754" in text


def test_rope_adds_nothing_and_keeps_norms():
    """RoPE rotates: it keeps the shape and every vector's length."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 32))
    rotated = posenc.rope(x)
    assert rotated.shape == x.shape
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=-1), np.linalg.norm(x, axis=-1))
    np.testing.assert_allclose(rotated[0], x[0])  # position 0: no rotation


def test_rope_works_at_any_position():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 16))
    rotated = posenc.rope(x, positions=np.array([10_000.0, 1e6, 2.5]))
    assert np.isfinite(rotated).all()


# --- the figures --------------------------------------------------------------------------


def test_heatmap_and_compare_return_figures():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    import posenc.plot

    try:
        heat = posenc.plot.heatmap(posenc.sinusoidal(64, 128))
        assert isinstance(heat, Figure)
        comparison = posenc.plot.compare(n_positions=64, d_model=64)
        assert isinstance(comparison, Figure)
        titles = " ".join(ax.get_title() for ax in comparison.axes).lower()
        for name in ("sinusoidal", "learned", "rope"):
            assert name in titles
        similar = posenc.plot.similarity(posenc.sinusoidal(64, 128))
        assert isinstance(similar, Figure)
    finally:
        plt.close("all")


# --- the cell with a slider: a position's nearest neighbours --------------------------------


def _nearest(d_model: int, pos: int, count: int = 3) -> list[tuple[int, float]]:
    """The positions 0..63 nearest to pos, from the paper's formula, ties in order of position."""
    reference = _reference_pe(range(64), d_model)
    dist = np.linalg.norm(reference - reference[pos], axis=1)
    order = sorted((p for p in range(64) if p != pos), key=lambda p: (round(dist[p], 9), p))
    return [(p, float(dist[p])) for p in order[:count]]


def test_the_inputs_cell_shows_every_width_and_position_against_the_formula(cells, lesson_text, cell_runner):
    """Every combination of pos (0 to 63), marked and d_model (4, 8, 16, 128): 512, more than the 16 the build
    pre-renders, so all but the defaults run live. The printed nearest positions and distances, the neighbours'
    distance and the closest two of the 64 positions, against the formula entry by entry; and the distance is
    one curve of the offset |p - pos|."""
    from course_site.inputs import PRECOMPUTE_DEFAULT, combinations

    cell = cells[5]
    pos, marked, d_model = cell.inputs
    assert (pos.name, pos.values, pos.values[pos.default]) == ("pos", tuple(range(64)), 10)
    assert (marked.name, marked.kind, marked.default) == ("marked", "checkbox", 1)
    assert (d_model.name, d_model.values, d_model.values[d_model.default]) == ("d_model", (4, 8, 16, 128), 128)
    assert combinations(cell.inputs) == 512 > PRECOMPUTE_DEFAULT  # past the 16: the page runs them live
    for a, width in enumerate(d_model.values):
        reference = _reference_pe(range(64), width)
        by_offset = np.linalg.norm(reference - reference[0], axis=1)
        apart = min(np.linalg.norm(reference[i] - reference[j]) for i in range(64) for j in range(i + 1, 64))
        for p in pos.values:
            namespace: dict = {"__name__": "__main__"}
            first, second = cell_runner(cell, namespace, (p, p % 2, a)).printed.splitlines()
            assert first.startswith(f"d_model = {width}, nearest to {p}: ")
            shown = [(int(q), dist) for q, dist in re.findall(r"(\d+) \(([\d.]+)\)", first.split(": ", 1)[1])]
            # three other positions, each at the distance the formula gives it, and no position nearer
            # (positions at equal distances may come in either order)
            assert len({q for q, _ in shown}) == 3 and p not in {q for q, _ in shown}
            exact = np.linalg.norm(reference - reference[p], axis=1)
            assert all(f"{exact[q]:.2f}" == dist for q, dist in shown)
            assert [dist for _, dist in shown] == [f"{dist:.2f}" for _, dist in _nearest(width, p)]
            assert (
                second == f"neighbours one step apart: {by_offset[1]:.2f}; closest two of the 64 positions: {apart:.2f}"
            )
            assert np.allclose(namespace["dist"], by_offset[np.abs(np.arange(64) - p)])


def test_the_inputs_cell_prose_and_its_answer(lesson_text):
    """The prose above the cell states the width-128 facts and asks; the folded answer gives the rest."""
    text = _flat(lesson_text)
    step = math.sqrt(sum(2 - 2 * math.cos(w) for w in _reference_omega(128)))
    two_steps = math.sqrt(sum(2 - 2 * math.cos(2 * w) for w in _reference_omega(128)))
    assert (f"{step:.2f}", f"{two_steps:.2f}") == ("1.95", "3.64")
    assert [q for q, _ in _nearest(128, 10, 2)] == [9, 11] and [q for q, _ in _nearest(128, 0, 2)] == [1, 2]
    assert "in the middle both are at distance 1.95, and at an end, which has only one neighbour" in text
    assert "the second nearest position is two steps in, at 3.64" in text
    question = text.index("**Predict before you run it with $d_{\\text{model}} = 4$**")
    answer = text.index('??? success "What the widths show"')
    assert question < text.index("d_model = select([4, 8, 16, 128]") < answer
    # the answer is not in the prose above the cell
    intro = text[text.index("## Try it: a position and its nearest neighbours") : question]
    assert "29" not in intro and "0.24" not in intro
    # the answer's numbers, from the formula
    ((q1, d1),) = _nearest(4, 10, 1)
    neighbour = _nearest(4, 10, 64)
    assert (q1, round(d1, 2)) == (29, 0.24)
    assert round(dict(neighbour)[9], 2) == round(dict(neighbour)[11], 2) == 0.96
    assert round(dict(neighbour)[9] / d1) == 4
    assert round(19 - 6 * math.pi, 2) == 0.15 and round(19 * 10_000 ** (-2 / 4), 2) == 0.19
    assert round(2 * math.pi * 10_000 ** (2 / 4)) == 628
    reference = _reference_pe(range(64), 4)
    apart = min(np.linalg.norm(reference[i] - reference[j]) for i in range(64) for j in range(i + 1, 64))
    assert round(apart, 2) == 0.24
    assert sorted(q for q, _ in _nearest(8, 10, 2)) == [4, 16]
    assert [q for q, _ in _nearest(16, 10)] == [9, 11, 4]
    for claim in [
        "the position nearest to 10 is 29, nineteen steps away, at distance 0.24, four times closer than the "
        "neighbours (0.96)",
        "pair 0 turns three times and only 0.15 radians more ($19 - 6\\pi \\approx 0.15$)",
        "whose wavelength is 628 positions, moves by only 0.19 radians",
        "the closest two are 0.24 apart",
        "At $d_{\\text{model}} = 8$ the nearest to 10 are 4 and 16, six steps away",
        "at 16 the third nearest is already six steps away",
    ]:
        assert claim in text[answer:], claim
    assert "always the neighbours" not in text and "Drag the slider" not in text


# --- wording checked against the sources and the arithmetic ---------------------------------


def test_the_encoding_would_swamp_a_freshly_drawn_token_embedding(lesson_text):
    """Norm 8 against sigma * sqrt(d_model) = 0.02 * sqrt(128) = 0.23: about 35 times; sqrt(128) is about 11."""
    token_norm = 0.02 * math.sqrt(128)
    assert f"{token_norm:.2f}" == "0.23"
    assert round(math.sqrt(128 / 2) / token_norm) == 35
    assert round(math.sqrt(128)) == 11
    # a drawn table: its rows' norms are close to sigma * sqrt(d_model)
    table = posenc.LearnedEmbedding(max_len=512, d_model=128, std=0.02, seed=1).table
    assert np.linalg.norm(table, axis=1).mean() == pytest.approx(token_norm, rel=0.02)
    text = _flat(lesson_text)
    assert "about 0.23 for $\\sigma = 0.02$ at $d_{\\text{model}} = 128$" in text
    assert "some 35 times longer than the vector it is added to" in text
    assert "a factor of about 11 at $d_{\\text{model}} = 128$" in text


def test_haviv_et_al_mechanism_is_a_conjecture(lesson_text):
    """Haviv et al. (2022) conjecture that causal attention lets a token count its predecessors."""
    text = _flat(lesson_text)
    assert "the authors conjecture that the mask lets each token infer how many predecessors" in text
    assert "If that is the mechanism, the signal is indirect" in text
    assert "Decoders still use positional encoding because" not in text


def test_the_base_is_not_called_a_frequency(lesson_text):
    text = _flat(lesson_text)
    assert "base frequency" not in text
    assert "raising the base (the 10,000 in $\\omega_i = 1/10000^{2i/d_{\\text{model}}}$) slows every pair" in text
    # a larger base lowers every omega_i but omega_0 = 1
    slow, fast = posenc.frequencies(128, base=500_000.0), posenc.frequencies(128)
    assert slow[0] == fast[0] == 1.0 and np.all(slow[1:] < fast[1:])


def test_the_trend_not_a_rule_is_linked_two_sections_on(lesson_text):
    """The dips are shown in "Shifting a position is a rotation", two sections after "Fast columns, slow columns"."""
    headings = re.findall(r"^#{2,3} (.+)$", lesson_text, flags=re.M)
    fast = headings.index("Fast columns, slow columns")
    assert headings[fast + 2] == "Shifting a position is a rotation"
    assert "[Shifting a position is a rotation](#shifting-a-position-is-a-rotation), two sections on," in _flat(
        lesson_text
    )
    assert "the next section shows" not in lesson_text


def test_no_cell_is_named_by_its_number(lesson_text):
    assert not re.search(r"\bcells? \d", lesson_text)


# --- the exercise on RoPE's sense of direction ------------------------------------------------------


@pytest.fixture(scope="module")
def direction_exercise(blocks):
    from course_site.exercises import parse_exercises

    (exercise,) = [e for e in parse_exercises(blocks) if e.title == "Where RoPE's sense of direction comes from"]
    return exercise


def _run_exercise(exercise, code: str) -> dict:
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(f"{exercise.setup}\n{code}\n{exercise.check}", "<exercise>", "exec"), namespace)
    return namespace


def _reference_asymmetry(q: np.ndarray, k: np.ndarray, d: float) -> float:
    """score(d, 0) - score(0, d) with RoFormer's rotation written out: the scores of q at d, k at 0 and back."""
    return float(_reference_rope(q, d) @ k - q @ _reference_rope(k, d))


def test_the_asymmetry_is_twice_the_sine_term(direction_exercise):
    """score(d, 0) - score(0, d) = 2 sum_i b_i sin(d omega_i), b_i = q_2i k_2i+1 - q_2i+1 k_2i: for any q, k, d."""
    rng = np.random.default_rng(5)
    for width in (2, 4, 16, 64):
        q, k = rng.normal(size=(2, width))
        omega = _reference_omega(width)
        b = q[0::2] * k[1::2] - q[1::2] * k[0::2]
        for d in (1, 3, 11, 250):
            assert _reference_asymmetry(q, k, d) == pytest.approx(2 * np.sum(b * np.sin(d * omega)), abs=1e-9)
        # k = q: every cross product is 0, no asymmetry
        assert _reference_asymmetry(q, q, 7) == pytest.approx(0, abs=1e-12)


def test_the_direction_exercise_passes_its_solution_and_fails_the_rest(direction_exercise):
    namespace = _run_exercise(direction_exercise, direction_exercise.solution)
    q, k, k_even = namespace["q"], namespace["k"], namespace["k_even"]
    # the nearest key without asymmetry: each pair of k projected onto q's pair, by hand
    for i in range(len(q) // 2):
        qp, kp = q[2 * i : 2 * i + 2], k[2 * i : 2 * i + 2]
        np.testing.assert_allclose(k_even[2 * i : 2 * i + 2], (kp @ qp) / (qp @ qp) * qp, atol=1e-12)
        assert abs((kp - k_even[2 * i : 2 * i + 2]) @ qp) < 1e-12  # what is dropped is perpendicular to q's pair
    assert all(abs(_reference_asymmetry(q, k_even, d)) < 1e-9 for d in range(1, 30))
    wrong = {
        direction_exercise.starter: "asymmetry(q, k, 1) for width 64 gave 0.0000",
        # the cosine term is even: it cancels, so using it gives the wrong difference
        "def asymmetry(q, k, d):\n    w = posenc.frequencies(len(q))\n"
        "    a = q[0::2] * k[0::2] + q[1::2] * k[1::2]\n    return 2 * np.sum(a * np.cos(d * w))\n": "changes sign",
        # right formula, k_even left to do
        direction_exercise.solution.split("q_pairs")[0] + "k_even = None\n": "Set `k_even`",
        # a key with no asymmetry, but not the nearest one: q itself
        direction_exercise.solution.split("q_pairs")[0] + "k_even = q.copy()\n": "keep, in each pair",
        # k unchanged: still asymmetric
        direction_exercise.solution.split("q_pairs")[0] + "k_even = k.copy()\n": "still differ",
    }
    for code, message in wrong.items():
        with pytest.raises(AssertionError, match=re.escape(message)):
            _run_exercise(direction_exercise, code)


def test_the_seed_bound_best_offset_exercise_is_gone(lesson_text):
    assert "best_offset" not in lesson_text
    assert 'exercise="RoPE cares about the sign of the offset"' not in lesson_text
