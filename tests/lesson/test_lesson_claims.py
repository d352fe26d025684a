"""Every claim of lesson 32 that code can check, checked with ``posenc``.

The lesson (``lessons/32-positional-encoding.md``) says things like "without
positions, 'dog' gets the same vector in both sentences", "sinusoidal encoding
works at any position, a learned table refuses positions past max_len" or
"the wavelengths grow from 2π towards 10000·2π". Each test below names the
claim it backs. Where the lesson's own cell makes the claim, the test runs that
very cell, so the text and the test cannot drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import posenc
from course_site.fences import CELL, QUIZ, Block, Cell, scan, to_cell

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "32-positional-encoding.md"
WORDS = ("dog", "bites", "man")


# --- reading and running the lesson, with the site's own parser -------------------------


@pytest.fixture(scope="module")
def lesson_text() -> str:
    return LESSON.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def blocks(lesson_text: str) -> list[Block]:
    return scan(lesson_text, "lessons/32-positional-encoding.md")


@pytest.fixture(scope="module")
def cells(blocks: list[Block]) -> list[Cell]:
    """Each ``pyodide`` cell, validated as the build validates it."""
    return [to_cell(block) for block in blocks if block.lang == CELL]


@pytest.fixture(scope="module")
def quizzes(blocks: list[Block]) -> list[str]:
    return [block.body for block in blocks if block.lang == QUIZ]


@pytest.fixture(scope="module")
def lesson_run(cells: list[Cell], lesson_runner) -> tuple[dict, list[str], list[int]]:
    """The namespace after all cells, each cell's printed output and how many figures it drew."""
    return lesson_runner(cells)


# --- the lesson's shape -------------------------------------------------------------------


def test_lesson_has_three_cells_and_one_quiz(cells, quizzes):
    assert len(cells) == 3
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


def test_lesson_has_warning_and_no_handwritten_download_note(lesson_text):
    assert '!!! warning "Without positional encoding"' in lesson_text
    assert not re.search(r"\d\s*MB on first Run", lesson_text)


def test_cells_run_in_order_and_make_figures(lesson_run):
    """Every cell runs (the build would fail otherwise) and cells 2 and 3 draw a figure."""
    assert lesson_run[2] == [0, 1, 1]


# --- cell (a): attention is order-blind, positions cure it -------------------------------


def test_cell_a_prints_zero_then_nonzero_differences(lesson_run):
    out = lesson_run[1][0]
    without, with_ = out.split("with positions:")
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
    """(x_s+p_s)ᵀ W_Q W_Kᵀ (x_t+p_t) splits into the four terms of the lesson."""
    rng = np.random.default_rng(0)
    d = 16
    x = rng.normal(size=(5, d))
    p = posenc.sinusoidal(5, d)
    w_q, w_k = rng.normal(size=(2, d, d))
    m = w_q @ w_k.T
    full = (x + p) @ m @ (x + p).T
    terms = x @ m @ x.T + x @ m @ p.T + p @ m @ x.T + p @ m @ p.T
    np.testing.assert_allclose(full, terms, atol=1e-9)


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


def test_encoding_is_fixed_not_learned():
    """A fixed function of position: same input, same matrix; no randomness."""
    np.testing.assert_array_equal(posenc.sinusoidal(32, 64), posenc.sinusoidal(32, 64))
    np.testing.assert_array_equal(posenc.sinusoidal(32, 64)[:8], posenc.sinusoidal(8, 64))


def test_values_lie_in_minus_one_to_one():
    pe = posenc.sinusoidal(5000, 128)
    assert pe.min() >= -1.0 and pe.max() <= 1.0


def test_adding_to_embeddings_keeps_the_shape():
    rng = np.random.default_rng(0)
    tokens = rng.normal(size=(10, 32))
    x_in = tokens + posenc.sinusoidal(10, 32)
    assert x_in.shape == tokens.shape == (10, 32)


def test_frequencies_fall_geometrically_from_one_to_nearly_one_over_10000():
    d_model = 128
    omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    np.testing.assert_allclose(posenc.frequencies(d_model), omega, rtol=1e-14)
    assert omega[0] == 1.0
    ratios = omega[1:] / omega[:-1]
    np.testing.assert_allclose(ratios, ratios[0])  # geometric
    assert 1 / 10000 < omega[-1] < 2 / 10000
    pe = posenc.sinusoidal(np.array([1.0]), d_model)
    np.testing.assert_allclose(pe[0, 0::2], np.sin(omega), atol=1e-12)


# --- wavelengths: fast low dimensions, slow high dimensions ------------------------------


def test_wavelengths_grow_from_two_pi_towards_10000_two_pi():
    for d_model in (64, 128, 512):
        wavelengths = 2 * np.pi * 10000 ** (np.arange(0, d_model, 2) / d_model)
        assert np.all(np.diff(wavelengths) > 0)
        assert wavelengths[0] == pytest.approx(2 * np.pi)
        assert wavelengths[-1] < 10000 * 2 * np.pi
    assert 2 * np.pi * 10000 == pytest.approx(62_832, abs=1)
    # "the last pair of a 128-dimensional encoding has λ ≈ 54,410"
    assert 2 * np.pi * 10000 ** (126 / 128) == pytest.approx(54_410, abs=1)


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
    """Cell (b) prints the shape, 'all rows distinct: True' and λ₀ = 6.28."""
    out = lesson_run[1][1]
    assert "(64, 128)" in out
    assert "all 64 rows distinct: True" in out
    assert "6.28" in out


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


def test_shift_is_a_rotation_of_each_pair():
    """(sin, cos) at pos + k is a fixed rotation (depending on k only) of (sin, cos) at pos."""
    d_model, k = 32, 7.0
    omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    for pos in (0.0, 3.0, 250.0):
        now, later = posenc.sinusoidal(np.array([pos, pos + k]), d_model)
        s, c = now[0::2], now[1::2]
        np.testing.assert_allclose(later[0::2], np.cos(omega * k) * s + np.sin(omega * k) * c, atol=1e-9)
        np.testing.assert_allclose(later[1::2], -np.sin(omega * k) * s + np.cos(omega * k) * c, atol=1e-9)


def test_fingerprint_dot_product_depends_only_on_offset():
    d_model = 64
    omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    for k in (0, 1, 5, 100):
        dots = [float(np.dot(*posenc.sinusoidal(np.array([p, p + k], dtype=float), d_model))) for p in (0, 11, 999)]
        np.testing.assert_allclose(dots, np.sum(np.cos(omega * k)), atol=1e-9)


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
    out = lesson_run[1][2]
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


def test_rope_cell_prints_equal_scores(lesson_run):
    namespace, printed, _ = lesson_run
    assert namespace["rope_score"](3, 1) == pytest.approx(namespace["rope_score"](103, 101), abs=1e-9)
    scores = re.findall(r"RoPE score, q at +\d+, k at +\d+: (-?[\d.]+)", printed[2])
    assert len(scores) == 2 and scores[0] == scores[1]


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
    matplotlib = pytest.importorskip("matplotlib")
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
    finally:
        plt.close("all")
