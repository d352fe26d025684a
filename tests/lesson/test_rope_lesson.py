"""Every claim of lesson 33 that code can check, against values derived here independently.

The lesson (``lessons/33-rope-long-context.md``) says things like "the score
depends on m - n only", "the bound starts at 32.5", "22 of the 23 slow pairs
still reach angles they never saw" or "LLaMA has 23 slow pairs". Each test runs
the lesson's own cells (so text, output and test cannot drift apart) and
compares what they print or compute with a value derived here without the
lesson's code: RoFormer's complex form, Hugging Face's ``rotate_half``, plain
``math`` loops, the ALiBi paper's slopes, and model facts with their sources.
"""

from __future__ import annotations

import cmath
import contextlib
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc

NAME = "33-rope-long-context.md"
ROOT = Path(__file__).resolve().parents[2]

# Model facts, with where they were checked.
#   LLaMA: Touvron et al. 2023a; Meta's llama code, precompute_freqs_cis(theta=10000.0); 2k context
#     (Llama 2 paper, Table 1). LLaMA 2: Touvron et al. 2023b, Table 1: 4k context, same RoPE.
#   Code Llama: Roziere et al. 2023, section 2.4: base period from 10,000 to 1,000,000, 16,384-token sequences.
#   LLaMA 3: Llama Team 2024, "The Llama 3 Herd of Models": RoPE base frequency 500,000, 8K pre-training sequences.
#   LLaMA 3.1: Meta's apply_scaling (scale_factor 8, low_freq_factor 1, high_freq_factor 4, old_context_len 8192),
#     rope_scaling of the released config, max_position_embeddings 131072.
FACTS = {
    "LLaMA": (10_000.0, 2048),
    "LLaMA 2": (10_000.0, 4096),
    "Code Llama": (1_000_000.0, 16_384),
    "LLaMA 3": (500_000.0, 8192),
}
LLAMA31_FACTOR, LLAMA31_LOW, LLAMA31_HIGH, LLAMA31_ORIGINAL = 8.0, 1.0, 4.0, 8192
LLAMA3_AT_2048 = {
    "rope_type": "llama3",
    "factor": 4.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 2048,
}


@pytest.fixture(scope="module")
def lesson(lesson_reader):
    return lesson_reader(NAME)


@pytest.fixture(scope="module")
def run(lesson, lesson_runner):
    return lesson_runner(lesson.cells)


def flat(text: str) -> str:
    """The lesson's prose with line breaks folded into spaces."""
    return " ".join(text.split())


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.?\d*(?:e-?\d+)?", text)]


def slow_pairs(head_dim: int, base: float, context: int) -> int:
    """Pairs whose wavelength 2*pi*base^(2i/d) exceeds the context, by plain math."""
    return sum(2 * math.pi * base ** (2 * i / head_dim) > context for i in range(head_dim // 2))


# --- shape of the page ------------------------------------------------------------------


def test_title_links_and_outline(lesson):
    assert lesson.text.startswith("# 33 · Rotary position embedding and long context\n")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f'"33 · Rotary position embedding and long context": lessons/{NAME}' in nav
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert f"[33 · Rotary position embedding and long context](lessons/{NAME})" in home


def test_cells_quiz_takeaways(lesson, run):
    assert len(lesson.cells) >= 4
    assert all(cell.code.strip() and "import" in cell.setup for cell in lesson.cells)
    assert run.figures == [0, 0, 0, 1, 1, 0, 0, 1]  # the decay plot, the scaling comparison, the one with inputs
    assert len(lesson.quizzes) == 1
    assert "## Key takeaways" in lesson.text


def test_quiz_has_one_right_answer_about_lost_resolution(lesson):
    options = re.findall(r"^- \[([ x])\] (.+)$", lesson.quizzes[0], flags=re.M)
    right = [text for mark, text in options if mark == "x"]
    assert len(options) == 4 and len(right) == 1
    assert "quarter of a position" in right[0]


def test_papers_are_cited(lesson):
    for citation in ["Su et al., 2021", "Chen et al., 2023", "bloc97, 2023", "Peng et al., 2023", "Press, Smith"]:
        assert citation in lesson.text
    for llama in ["Touvron et al., 2023a", "Touvron et al., 2023b", "Rozière et al., 2023", "Llama Team, 2024"]:
        assert llama in lesson.text


# --- cell 1: rotation = complex multiplication ---------------------------------------------


def test_cell1_posenc_equals_roformer_complex_form(run):
    x, rotated = run.namespace["x"], run.namespace["by_posenc"]
    d = x.shape[1]
    for m in range(len(x)):
        for i in range(d // 2):
            z = complex(x[m, 2 * i], x[m, 2 * i + 1]) * cmath.exp(1j * m * 10000.0 ** (-2 * i / d))
            assert rotated[m, 2 * i] == pytest.approx(z.real, abs=1e-12)
            assert rotated[m, 2 * i + 1] == pytest.approx(z.imag, abs=1e-12)
    assert run.printed[0].splitlines()[1] == "complex form equals posenc.rope (to 1e-12): True"
    assert run.namespace["difference"] < 1e-14  # "agree to rounding error"
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), np.linalg.norm(x, axis=1), rtol=1e-14)


# --- cell 2: scores depend on m - n ---------------------------------------------------------


def test_cell2_scores_match_the_derivation(lesson, lesson_runner):
    run = lesson_runner(lesson.cells[:2])  # later cells reuse the names q and k
    q, k = run.namespace["q"], run.namespace["k"]
    d = q.shape[-1]
    zq = q[0, 0::2] + 1j * q[0, 1::2]
    zk = k[0, 0::2] + 1j * k[0, 1::2]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    lines = run.printed[1].splitlines()
    assert len(lines) == 6
    for line in lines:
        m, n, offset, score = numbers(line)
        assert offset == m - n
        expected = np.real(np.sum(zq * np.conj(zk) * np.exp(1j * (m - n) * theta)))
        assert score == pytest.approx(expected, abs=1e-6)
    same_offset = [numbers(line)[-1] for line in lines[:3]]
    assert same_offset[0] == same_offset[1] == same_offset[2]
    assert len({numbers(line)[-1] for line in lines}) == 4  # other offsets, other scores


# --- cell 3: pairings -------------------------------------------------------------------------


def test_cell3_pairings_are_a_permutation(run):
    assert run.printed[2].splitlines()[1:] == [
        "half(Px) == P interleaved(x): True",
        "same scores: True",
        "without P, the pairings differ: True",
        "columns of W_Q, W_K permuted per head, same scores: True",
    ]
    perm = run.namespace["perm"]
    d = len(perm)
    assert list(perm) == [*range(0, d, 2), *range(1, d, 2)]


def _interleaved_rope(x: np.ndarray) -> np.ndarray:
    """RoFormer's pairs (x_2i, x_2i+1) of row m turned by m * theta_i, by plain complex numbers."""
    d = x.shape[1]
    out = np.empty_like(x)
    for m, row in enumerate(x):
        for i in range(d // 2):
            z = complex(row[2 * i], row[2 * i + 1]) * cmath.exp(1j * m * 10000.0 ** (-2 * i / d))
            out[m, 2 * i], out[m, 2 * i + 1] = z.real, z.imag
    return out


def _rotate_half_rope(x: np.ndarray) -> np.ndarray:
    """Hugging Face's x * cos + rotate_half(x) * sin: pairs (x_i, x_i+d/2)."""
    seq, d = x.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angles = np.concatenate([np.arange(seq)[:, None] * theta] * 2, axis=1)
    rotate_half = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=1)
    return x * np.cos(angles) + rotate_half * np.sin(angles)


def _llama_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """transformers' convert_llama_weights_to_hf.permute, on a PyTorch-layout (out, in) weight:
    w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)."""
    out, inp = w.shape
    return w.reshape(n_heads, out // n_heads // 2, 2, inp).transpose(0, 2, 1, 3).reshape(out, inp)


@pytest.mark.parametrize("seed", range(3))
def test_with_q_equal_x_w_q_the_permutation_is_of_columns_per_head(seed):
    """Q = X W_Q (W_Q: d_model x heads*d): permuting W_Q's columns head by head turns interleaved RoPE
    scores into half-pairing scores; in PyTorch's (out, in) layout that is transformers' row permute."""
    rng = np.random.default_rng(seed)
    n_heads, d, d_model, n = 3, 8, 12, 6
    x = rng.normal(size=(n, d_model))
    w_q, w_k = rng.normal(size=(2, d_model, n_heads * d))
    p = [*range(0, d, 2), *range(1, d, 2)]
    cols = [h * d + j for h in range(n_heads) for j in p]

    def scores(wq, wk, rope):
        q, k = x @ wq, x @ wk
        return [rope(q[:, h * d : (h + 1) * d]) @ rope(k[:, h * d : (h + 1) * d]).T for h in range(n_heads)]

    meta = scores(w_q, w_k, _interleaved_rope)
    np.testing.assert_allclose(scores(w_q[:, cols], w_k[:, cols], _rotate_half_rope), meta, atol=1e-10)
    # PyTorch stores the transpose; transformers' permute of its rows is the same column permutation here
    np.testing.assert_array_equal(_llama_permute(w_q.T, n_heads).T, w_q[:, cols])


def test_pairings_text_says_columns_per_head(lesson):
    text = flat(lesson.text)
    assert (
        "coordinate $c$ of a query is the token's row times **column** $c$ of $W_Q$, so $P$ reorders the columns"
        in text
    )
    assert "inside each head's block of $d$ columns" in text
    assert "`src/transformers/models/llama/convert_llama_weights_to_hf.py`" in text
    assert "permuting the rows of $W_Q$ and $W_K$ once" not in text


def test_half_pairing_is_transformers_rotate_half():
    """Independent check that posenc's "half" is HF's x*cos + rotate_half(x)*sin."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 8))
    theta = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    angles = np.concatenate([np.arange(7)[:, None] * theta] * 2, axis=1)
    rotate_half = np.concatenate([-x[:, 4:], x[:, :4]], axis=1)
    np.testing.assert_allclose(posenc.rope(x, pairing="half"), x * np.cos(angles) + rotate_half * np.sin(angles))


# --- cell 4: long-term decay ----------------------------------------------------------------


def _theta(d: int, base: float = 10_000.0) -> list[float]:
    return [base ** (-2 * i / d) for i in range(d // 2)]


def _roformer_bound(h: list[complex], offset: float, theta: list[float]) -> float:
    """RoFormer eq. 36 with its convention h_{d/2} = 0: max |h_{i+1} - h_i| * sum_j |S_j|."""
    padded = [*h, 0j]
    largest_step = max(abs(padded[i + 1] - padded[i]) for i in range(len(h)))
    partial, total = 0j, 0.0
    for t in theta:
        partial += cmath.exp(1j * offset * t)
        total += abs(partial)
    return largest_step * total


def _pairs(x: np.ndarray) -> list[complex]:
    return [complex(x[2 * i], x[2 * i + 1]) for i in range(len(x) // 2)]


def test_cell4_decay_values(run, lesson):
    """The bound is RoFormer's with h_{d/2} = 0; for all-ones q, k it is 2 sum |S_j|, i.e. d * mean |S_j|."""
    d = 128
    theta = _theta(d)
    lines = run.printed[3].splitlines()
    for line in lines[:4]:
        offset, bound, score = numbers(line)
        assert bound == pytest.approx(_roformer_bound([2 + 0j] * (d // 2), offset, theta) / d, abs=0.006)
        assert score == pytest.approx(sum(2 * math.cos(offset * t) for t in theta) / d, abs=6e-4)
    assert lines[4] == "bound above |score| at every offset: True"
    bound = run.namespace["bound"]
    assert bound[0] == 32.5 == sum(range(1, 65)) / 64
    assert bound[0] / run.namespace["score"][0] == 32.5  # "32.5 times the score there"
    assert round(bound[1000], 1) == 4.5
    text = flat(lesson.text)
    assert "starts at 32.5" in text and "32.5 times the score there" in text and "about 4.5 at offset 1,000" in text
    assert bound[1000] < bound[100] < bound[10] < bound[0]  # "falls ... with wiggles"


def test_abel_step_needs_the_convention_h_last_zero():
    """Summation by parts is exact with h_{d/2} = 0 and S_0 = 0; without it, equal h_i give a 'bound' of 0."""
    d = 16
    theta = _theta(d)
    rng = np.random.default_rng(0)
    for offset in (0, 3, 50):
        h = _pairs(rng.normal(size=d) + 1j * rng.normal(size=d))
        phases = [cmath.exp(1j * offset * t) for t in theta]
        sums = [0j]
        for phase in phases:
            sums.append(sums[-1] + phase)  # S_0 = 0, S_1, ..., S_{d/2}
        padded = [*h, 0j]
        left = sum(hi * ph for hi, ph in zip(h, phases, strict=True))
        right = -sum(sums[i + 1] * (padded[i + 1] - padded[i]) for i in range(d // 2))
        assert left == pytest.approx(right, abs=1e-12)
    # all-ones q, k: every h_i = 2. Without the convention the largest difference is 0 ...
    h = [2 + 0j] * (d // 2)
    assert max(abs(h[i + 1] - h[i]) for i in range(d // 2 - 1)) == 0
    # ... a "bound" of 0 under a score of sum(h_i) = d at offset 0. With it the last step is |0 - 2| = 2:
    score = sum(h).real
    assert score == d
    assert _roformer_bound(h, 0, theta) == 2 * sum(range(1, d // 2 + 1)) > score


@pytest.mark.parametrize("seed", range(5))
def test_bound_is_above_every_score(seed):
    """For random q, k (not only all-ones), |score| <= RoFormer's bound at every offset tried."""
    d = 32
    theta = _theta(d)
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, d))
    h = [zq * zk.conjugate() for zq, zk in zip(_pairs(q), _pairs(k), strict=True)]
    for offset in (0, 1, 7, 100, 1000):
        score = (posenc.rope(q[None], [offset]) @ posenc.rope(k[None], [0]).T).item()
        assert abs(score) <= _roformer_bound(h, offset, theta) + 1e-9


def expected_score(offset: float, d: int, aligned: bool) -> float:
    """E[score] / d for q with iid N(0, 1) entries at `offset` from k: E[h_i] is 2 if k = q, 0 if k is independent."""
    return sum(2 * math.cos(offset * t) for t in _theta(d)) / d if aligned else 0.0


def test_expected_random_score_by_offset(run, lesson):
    """Independent q, k: expectation 0 everywhere; k = q: 1.00, 0.67, 0.48, 0.16, the all-ones curve."""
    aligned = {n: expected_score(n, 128, True) for n in (0, 10, 100, 1000)}
    assert [f"{v:.2f}" for v in aligned.values()] == ["1.00", "0.67", "0.48", "0.16"]
    printed = run.printed[3].splitlines()[5:]
    assert len(printed) == 4
    for line, (offset, value) in zip(printed, aligned.items(), strict=True):
        n, same, independent = numbers(line)
        assert n == offset
        assert same == pytest.approx(value, abs=0.011)  # 2,000 draws: standard error below 0.003
        assert independent == pytest.approx(expected_score(offset, 128, False), abs=0.011)
        all_ones = run.namespace["score"][offset]
        assert all_ones == pytest.approx(value, abs=1e-12)  # "the all-ones example is this aligned case"
    assert "1.00, 0.67, 0.48 and 0.16 at offsets 0, 10, 100 and 1,000" in flat(lesson.text)
    assert "unless their" not in lesson.text  # the old "unless their contents line up" had it backwards
    assert "on average it also decays" not in lesson.text


def test_cell2_random_pair_does_not_decay(lesson, lesson_runner):
    """The text says cell 2's pair scored 0.98 at offset 0 and 7.83 at offset 5: a higher score farther away."""
    run = lesson_runner(lesson.cells[:2])
    q, k = run.namespace["q"][0], run.namespace["k"][0]
    h = [zq * zk.conjugate() for zq, zk in zip(_pairs(q), _pairs(k), strict=True)]
    theta = _theta(len(q))
    by_hand = {n: sum(hi * cmath.exp(1j * n * t) for hi, t in zip(h, theta, strict=True)).real for n in (0, 5)}
    assert (f"{by_hand[0]:.2f}", f"{by_hand[5]:.2f}") == ("0.98", "7.83")
    assert by_hand[5] > by_hand[0]
    assert "scored 0.98 at offset 0 and 7.83 at offset 5" in flat(lesson.text)


# --- past the training length ---------------------------------------------------------------------


def test_llama_slow_pairs_claim(lesson):
    assert slow_pairs(128, 10_000.0, 2048) == 23
    wavelengths = [2 * math.pi * 10_000.0 ** (2 * i / 128) for i in range(64)]
    slow = [w for w in wavelengths if w > 2048]
    assert round(min(slow), -2) == 2300 and round(max(slow)) == 54410
    assert "23 of the 64 pairs" in lesson.text and "about 2,300 to 54,410" in lesson.text


# --- cell 5: the four scalings --------------------------------------------------------------------


@pytest.fixture(scope="module")
def scaling_table(run) -> dict[str, list[float]]:
    rows = {}
    for line in run.printed[4].splitlines()[1:5]:
        name, values = line[:12].strip(), numbers(line[12:])
        rows[name] = values  # pair 0, slowest, slow pairs beyond, score change
    return rows


def test_cell5_table(scaling_table, run, lesson):
    assert list(scaling_table) == ["PI (linear)", "NTK-aware", "YaRN", "llama3"]
    for values in scaling_table.values():
        assert values[1] == 0.25  # every method gives the slowest pair 1/s
    assert [v[0] for v in scaling_table.values()] == [0.25, 1.0, 1.0, 1.0]
    assert [v[2] for v in scaling_table.values()] == [0, 22, 0, 0]
    changes = [v[3] for v in scaling_table.values()]
    assert changes == [2.505, 1.173, 0.12, 0.004]
    assert "slow pairs: 23 of 64" in run.printed[4]
    assert "YaRN attention scale: 1.1386" in run.printed[4]
    text = flat(lesson.text)
    claims = ["22 of the 23 slow pairs", "In this draw its score change is the largest, 2.5", "(1.17 against 2.51)"]
    for claim in claims:
        assert claim in text
    assert "$1.1386^2 \\approx 1.30$" in text
    assert "halves PI" not in text


# The four rescalings written out from their sources, without posenc: theta'_i for
# d = 128, base 10,000, L = 2048, s = 4 (transformers' modeling_rope_utils.py at ef46806,
# the YaRN reference code's find_correction_range / linear ramp, Meta's apply_scaling).
D, BASE, CONTEXT, FACTOR = 128, 10_000.0, 2048, 4.0


def _yarn_correction_dim(turns: float) -> float:
    return D * math.log(CONTEXT / (turns * 2 * math.pi)) / (2 * math.log(BASE))


def _yarn_code_ramp() -> tuple[list[float], int, int]:
    """1 - ramp as in the code: linear in the pair index from floor(c(32)) to ceil(c(1))."""
    low, high = math.floor(_yarn_correction_dim(32)), math.ceil(_yarn_correction_dim(1))
    keep = [1 - min(max((i - low) / (high - low), 0.0), 1.0) for i in range(D // 2)]
    return keep, low, high


def _blend_in_turns(alpha: float, beta: float) -> list[float]:
    """The paper's gamma(r), r = L / lambda_i turns over L: 0 below alpha, 1 above beta, linear between."""
    turns = [CONTEXT * t / (2 * math.pi) for t in _theta(D, BASE)]
    return [min(max((r - alpha) / (beta - alpha), 0.0), 1.0) for r in turns]


def _reference_ratios() -> dict[str, list[float]]:
    """theta'_i / theta_i of each method, by plain math."""
    keep, _, _ = _yarn_code_ramp()
    ntk_base = BASE * FACTOR ** (D / (D - 2))
    return {
        "PI (linear)": [1 / FACTOR] * (D // 2),
        "NTK-aware": [(ntk_base / BASE) ** (-2 * i / D) for i in range(D // 2)],
        "YaRN": [k + (1 - k) / FACTOR for k in keep],
        "llama3": [g + (1 - g) / FACTOR for g in _blend_in_turns(1.0, 4.0)],
    }


def _score_change(q: np.ndarray, k: np.ndarray, ratios: list[float]) -> float:
    """max over offsets 0..48 of |score' - score|, scores Re sum h_i e^{i n theta_i} / sqrt(d)."""
    h = [zq * zk.conjugate() for zq, zk in zip(_pairs(q), _pairs(k), strict=True)]
    theta = _theta(D, BASE)
    largest = 0.0
    for n in range(49):
        before = sum(hi * cmath.exp(1j * n * t) for hi, t in zip(h, theta, strict=True))
        after = sum(hi * cmath.exp(1j * n * t * r) for hi, t, r in zip(h, theta, ratios, strict=True))
        largest = max(largest, abs((after - before).real) / math.sqrt(D))
    return largest


@pytest.fixture(scope="module")
def fifty_draws() -> dict[str, np.ndarray]:
    """The score change of each method for the seeds 0..49, computed without posenc."""
    ratios = _reference_ratios()
    changes = {name: [] for name in ratios}
    for seed in range(50):
        q, k = np.random.default_rng(seed).normal(size=(2, D))
        for name, r in ratios.items():
            changes[name].append(_score_change(q, k, r))
    return {name: np.array(values) for name, values in changes.items()}


def test_reference_ratios_are_posencs():
    """The hand-written rescalings agree with posenc's, so the 50-draw test checks the lesson's methods."""
    theta = np.array(_theta(D, BASE))
    for name, scaling in [
        ("PI (linear)", {"rope_type": "linear", "factor": FACTOR}),
        ("NTK-aware", {"rope_type": "ntk", "factor": FACTOR}),
        ("YaRN", {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": CONTEXT}),
        ("llama3", LLAMA3_AT_2048),
    ]:
        inv_freq, _ = posenc.rope_frequencies(D, base=BASE, scaling=scaling)
        np.testing.assert_allclose(inv_freq / theta, _reference_ratios()[name], rtol=1e-12)


def test_cell5_fifty_draws_match_an_independent_computation(fifty_draws, run):
    lines = run.printed[4].splitlines()
    start = lines.index("score change over 50 draws: median (smallest - largest)")
    for line, (name, values) in zip(lines[start + 1 : start + 5], fifty_draws.items(), strict=True):
        assert line.strip().startswith(name)
        median, smallest, largest = numbers(line[len(name) + 2 :])
        assert (median, smallest, largest) == pytest.approx((np.median(values), values.min(), values.max()), abs=6e-4)
    ratio = fifty_draws["NTK-aware"] / fifty_draws["PI (linear)"]
    expected = f"NTK-aware / PI: median {np.median(ratio):.2f}, from {ratio.min():.2f} to {ratio.max():.2f}"
    assert lines[start + 5] == expected == "NTK-aware / PI: median 0.78, from 0.38 to 1.86"
    ordered = np.maximum(fifty_draws["YaRN"], fifty_draws["llama3"]) < np.minimum(
        fifty_draws["PI (linear)"], fifty_draws["NTK-aware"]
    )
    assert bool(ordered.all())
    assert lines[start + 6] == "YaRN and llama3 below PI and NTK-aware in every draw: True"
    # seed 3 is the one-draw table above
    assert round(fifty_draws["PI (linear)"][3], 3) == 2.505 and round(fifty_draws["NTK-aware"][3], 3) == 1.173


def test_text_states_what_holds_across_draws(fifty_draws, lesson):
    text = flat(lesson.text)
    ratio = fifty_draws["NTK-aware"] / fifty_draws["PI (linear)"]
    assert f"ranges from {ratio.min():.2f} to {ratio.max():.2f} times PI's (median {np.median(ratio):.2f})" in text
    medians = {name: np.median(values) for name, values in fifty_draws.items()}
    quoted = (
        f"(medians {medians['YaRN']:.2f} and {medians['llama3']:.3f}, "
        f"against {medians['PI (linear)']:.2f} and {medians['NTK-aware']:.2f})"
    )
    assert quoted == "(medians 0.12 and 0.035, against 1.69 and 1.38)"
    assert quoted in text


def test_yarn_paper_ramp_and_code_ramp_differ_by_029():
    """Paper: gamma linear in r = L/lambda (alpha 1, beta 32). Code: linear in the pair index."""
    paper = [g + (1 - g) / FACTOR for g in _blend_in_turns(1.0, 32.0)]
    code = _reference_ratios()["YaRN"]
    difference = max(abs(a - b) for a, b in zip(paper, code, strict=True))
    assert round(difference, 2) == 0.29
    _, low, high = _yarn_code_ramp()
    assert (low, high) == (16, 41)


def test_llama3_is_the_papers_ramp_with_beta_4(lesson):
    """llama3's blend is linear in L/lambda: the paper's gamma with alpha 1, beta 4, no attention scale."""
    inv_freq, scale = posenc.rope_frequencies(D, base=BASE, scaling=LLAMA3_AT_2048)
    ratios = inv_freq / np.array(_theta(D, BASE))
    np.testing.assert_allclose(ratios, [g + (1 - g) / FACTOR for g in _blend_in_turns(1.0, 4.0)], rtol=1e-12)
    assert scale == 1.0
    wavelengths = [2 * math.pi / t for t in _theta(D, BASE)]
    blended = [i for i, w in enumerate(wavelengths) if CONTEXT / 4 < w < CONTEXT]
    assert (blended[0], blended[-1], len(blended)) == (31, 40, 10)
    text = flat(lesson.text)
    assert "llama3 blends pairs 31 to 40" in text and "from pair 16, still kept, to pair 41" in text
    assert "with $\\beta = 4$ instead of 32 and no attention scale" in text


def test_scalings_against_independent_formulas():
    """The lesson's setting, d=128, base 1e4, L=2048, s=4, recomputed with plain math."""
    d, base, context, factor = 128, 10_000.0, 2048, 4.0
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    slow = [2 * math.pi / t > context for t in theta]
    # NTK: the first slow pair is slowed by s^(-2i/(d-2)), about 0.4
    first_slow = slow.index(True)
    ntk, _ = posenc.rope_frequencies(d, scaling={"rope_type": "ntk", "factor": factor})
    assert ntk[first_slow] / theta[first_slow] == pytest.approx(factor ** (-2 * first_slow / (d - 2)))
    assert round(factor ** (-2 * first_slow / (d - 2)), 1) == 0.4
    # YaRN: ramp from floor(c(32)) to ceil(c(1)); c(1) is where the slow pairs begin
    c = [d * math.log(context / (r * 2 * math.pi)) / (2 * math.log(base)) for r in (32, 1)]
    low, high = math.floor(c[0]), math.ceil(c[1])
    assert high == first_slow
    yarn, scale = posenc.rope_frequencies(
        d, scaling={"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": context}
    )
    assert scale == pytest.approx(0.1 * math.log(4) + 1) and round(scale, 4) == 1.1386
    assert round(scale**2, 2) == 1.30
    unscaled, _ = posenc.rope_frequencies(d)
    np.testing.assert_allclose(unscaled, theta, rtol=1e-15)
    np.testing.assert_array_equal(yarn[: low + 1], unscaled[: low + 1])  # fast pairs bit-for-bit unchanged
    np.testing.assert_allclose(yarn[high:], np.array(theta[high:]) / factor, rtol=1e-15)
    # llama3 with L=2048: exactly the slow pairs are divided by s, wavelengths below L/4 kept
    llama3, _ = posenc.rope_frequencies(
        d,
        scaling={
            "rope_type": "llama3",
            "factor": factor,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": context,
        },
    )
    for i, t in enumerate(theta):
        if slow[i]:
            assert llama3[i] == pytest.approx(t / factor, rel=1e-15)
        elif 2 * math.pi / t < context / 4:
            assert llama3[i] == unscaled[i]


def test_pi_stretches_the_score_curve(run):
    """PI's score at offset 4n is the unscaled score at n: "stretched four times"."""
    q, k = run.namespace["q"], run.namespace["k"]
    pi = {"rope_type": "linear", "factor": 4.0}
    offsets = np.arange(0, 48, 4.0)
    stretched = posenc.rope(np.repeat(q, len(offsets), 0), offsets, scaling=pi) @ posenc.rope(k, [0], scaling=pi).T
    plain = posenc.rope(np.repeat(q, len(offsets), 0), offsets / 4) @ posenc.rope(k, [0]).T
    np.testing.assert_allclose(stretched, plain, atol=1e-10)


# --- cell 6: ALiBi -----------------------------------------------------------------------------------


def test_cell6_alibi(run, lesson):
    lines = run.printed[5].splitlines()
    assert numbers(lines[0])[2:] == [2, 4, 8, 16, 32, 64, 128, 256]  # the paper's 1/2 .. 1/256
    twelve = numbers(lines[1])[1:]
    paper = [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    np.testing.assert_allclose(twelve, paper, atol=5e-4)
    bias = run.namespace["bias"]
    for i in range(6):
        for j in range(6):
            assert bias[0, i, j] == -0.5 * abs(i - j)
    weights = run.namespace["weights"]
    for head, slope in [(0, 1 / 2), (7, 1 / 256)]:
        row = np.exp([-slope * (5 - j) for j in range(6)])
        np.testing.assert_allclose(weights[head, -1], row / row.sum(), rtol=1e-12)
    assert weights[0, -1, -2:].sum() > 0.5  # "most of the last token's attention on itself and its neighbour"
    assert np.ptp(weights[-1, -1]) < 0.01  # "almost evenly"
    assert "$2^{-0.5}, 2^{-1.5}, 2^{-2.5}, 2^{-3.5}$" in lesson.text


# --- cell 7 and the table: where each is used -------------------------------------------------------


def test_cell7_models_match_the_sources(run):
    models = run.namespace["models"]
    assert models == FACTS
    llama31 = dict(run.namespace["llama31"])  # a copy: pop below must not change the namespace
    assert llama31.pop("rope_type") == "llama3"
    assert llama31 == dict(
        factor=LLAMA31_FACTOR,
        low_freq_factor=LLAMA31_LOW,
        high_freq_factor=LLAMA31_HIGH,
        original_max_position_embeddings=LLAMA31_ORIGINAL,
    )


def test_cell7_slow_pair_counts(run):
    lines = run.printed[6].splitlines()
    for line, (name, (base, context)) in zip(lines, FACTS.items(), strict=False):
        assert line.startswith(name)
        count, longest = numbers(line.split(":", 1)[1])
        assert count == slow_pairs(128, base, context)
        assert longest == round(2 * math.pi * base ** (126 / 128))


def test_cell7_llama31_split():
    """Kept / divided by 8 / blended pairs of LLaMA 3.1, from Meta's apply_scaling rule."""
    kept = divided = blended = 0
    for i in range(64):
        wavelength = 2 * math.pi * 500_000.0 ** (2 * i / 128)
        if wavelength < 8192 / 4:
            kept += 1
        elif wavelength > 8192 / 1:
            divided += 1
        else:
            blended += 1
    assert (kept, divided, blended) == (29, 29, 6)


def test_table_rows_match_facts_and_cell(lesson, run):
    rows = {}
    for line in lesson.text.splitlines():
        match = re.match(r"\| (LLaMA[^(|]*?|Code Llama) \(", line)
        if match:
            rows[match[1].strip()] = [cell.strip() for cell in line.strip("|").split("|")]
    assert list(rows) == ["LLaMA", "LLaMA 2", "Code Llama", "LLaMA 3", "LLaMA 3.1"]
    for name, (base, context) in FACTS.items():
        _, _, width, base_text, context_text, slow_text = rows[name]
        assert (width, float(base_text.replace(",", "")), int(context_text.replace(",", ""))) == ("128", base, context)
        assert slow_text == f"{slow_pairs(128, base, context)} of 64"
    assert "factor 8, low 1, high 4, original 8,192" in rows["LLaMA 3.1"][1]
    assert rows["LLaMA 3.1"][4] == "8,192 → 131,072"
    assert "LLaMA 3.1: kept 29 pairs, divided 29 by 8, blended 6" in run.printed[6]


# --- the NTK-aware exercise ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ntk_exercise(lesson):
    from course_site.exercises import parse_exercises

    (exercise,) = [e for e in parse_exercises(lesson.blocks) if e.title == "Find the NTK-aware base"]
    return exercise


def _run_check(exercise, code: str) -> None:
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(f"{exercise.setup}\n{code}\n{exercise.check}", "<exercise>", "exec"), namespace)


def test_ntk_exercise_check_passes_the_solution_only(ntk_exercise):
    _run_check(ntk_exercise, ntk_exercise.solution)
    wrong = {
        ntk_exercise.starter: "with base · s the slowest pair gets θ′/θ",
        "def ntk_base(base, factor, head_dim):\n    return base\n": "not more than the base",
        "def ntk_base(base, factor, head_dim):\n    return base / factor\n": "not more than the base",
        "def ntk_base(base, factor, head_dim):\n    return None\n": "must return one finite number",
        "def ntk_base(base, factor, head_dim):\n    return base * factor ** 2\n": "the slowest pair gets θ′/θ",
    }
    for code, message in wrong.items():
        with pytest.raises(AssertionError, match=re.escape(message)):
            _run_check(ntk_exercise, code)


def test_ntk_exercise_check_has_no_vacuous_assertion(ntk_exercise):
    """θ_0 = base^0 = 1 for every base, so a check on pair 0 alone cannot fail."""
    for base in (2.0, 10_000.0, 1e9):
        theta, _ = posenc.rope_frequencies(16, base=base)
        assert theta[0] == 1.0
    assert "_theta_new[0]" not in ntk_exercise.check
    assert "θ′/θ exactly 1 / factor" in ntk_exercise.solution


# --- statements checked against their sources --------------------------------------------------------

# transformers' ROPE_INIT_FUNCTIONS in src/transformers/modeling_rope_utils.py (ef46806).
TRANSFORMERS_ROPE_TYPES = {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}


def test_slowest_pair_turns_base_to_the_d_minus_2_over_d_times_more_slowly(lesson, lesson_runner):
    assert round(10_000.0 ** (126 / 128)) == 8660
    theta = lesson_runner(lesson.cells[:1]).namespace["theta"]  # cell 1, d = 8 (later cells reuse the name)
    assert theta[0] / theta[-1] == pytest.approx(10_000.0 ** (6 / 8)) and round(theta[0] / theta[-1]) == 1000
    assert round(2 * math.pi * 10_000.0 ** (126 / 128)) == 54410
    text = flat(lesson.text)
    assert "= \\mathrm{base}^{(d-2)/d}$ times more slowly: 8,660 times for a head of width $d = 128$" in text
    assert "and 1,000 times for the $d = 8$ of the cell below" in text
    assert "almost $\\mathrm{base}$ times" not in text


def test_wavelength_is_defined_where_it_first_appears(lesson):
    text = flat(lesson.text)
    first = text.lower().index("wavelength")
    definition = "**wavelength** $\\lambda_i = 2\\pi/\\theta_i$ is the number of positions"
    assert text[first - 2 :].startswith(definition)
    assert text.index("**wavelength**") < text.index("## Past the training length")


def test_causal_offsets_and_turns_of_fast_pairs(lesson):
    """A causal decoder sees offsets 0..L-1; pair 0 makes ~326 turns over 2,048, pairs with L/2 < λ < L one."""
    context = 2048
    wavelengths = [2 * math.pi * 10_000.0 ** (2 * i / 128) for i in range(64)]
    assert round(context / wavelengths[0]) == 326
    once = [w for w in wavelengths if context / 2 < w < context]
    assert once and all(math.floor(context / w) == 1 for w in once)
    assert all(context / w >= 1 for w in wavelengths if w < context)  # every fast pair: at least one turn
    text = flat(lesson.text)
    assert "it has seen the offsets $0, 1, \\dots, L-1$" in text
    assert "$[0,\\, (L-1)\\theta_i]$" in text and "-(L-1)" not in text
    assert "pair 0 about 326 times in 2,048 positions, the pairs with $L/2 < \\lambda_i < L$ only once" in text
    assert "many times" not in text


def test_extension_methods_aim_to_keep_angles_in_range(lesson, scaling_table):
    assert scaling_table["NTK-aware"][2] == 22  # NTK leaves 22 slow pairs out of range: "aim", not "stays"
    text = flat(lesson.text)
    assert "aim to keep every angle in the trained range" in text
    assert "so that every angle stays" not in text


def test_lesson_32_table_has_rope_as_a_column(lesson_reader, lesson):
    header = next(
        line for line in lesson_reader("32-positional-encoding.md").text.splitlines() if line.startswith("| Property")
    )
    assert "RoPE (rotary)" in [cell.strip() for cell in header.strip("|").split("|")]
    assert "Lesson 32 met RoPE in one column of a table" in lesson.text.split("\n\n")[1]


def test_rope_scaling_names_against_transformers(lesson):
    assert set(posenc.ROPE_TYPES) - TRANSFORMERS_ROPE_TYPES == {"ntk"}
    assert TRANSFORMERS_ROPE_TYPES - set(posenc.ROPE_TYPES) == {"dynamic", "longrope"}
    text = flat(lesson.text)
    listed = re.search(r"as of transformers 4\.43 \(July 2024, the release that added `llama3`\): (.+?)\. ", text)
    assert set(re.findall(r"`(\w+)`", listed[1])) == TRANSFORMERS_ROPE_TYPES
    assert "`ROPE_INIT_FUNCTIONS` in `src/transformers/modeling_rope_utils.py`" in text
    assert 'posenc\'s `"ntk"` is not one of them' in text and "posenc has no `longrope`" in text
    assert "follows the same convention" not in text
    assert "each method is a `rope_scaling` entry" not in text
    # three of the four methods are transformers types, the fourth (NTK-aware) is not
    four = {"linear", "ntk", "yarn", "llama3"}
    assert len(four & TRANSFORMERS_ROPE_TYPES) == 3 and four - TRANSFORMERS_ROPE_TYPES == {"ntk"}
    assert "Three of the four methods below are types of Hugging Face transformers' `rope_scaling` entry" in text


def test_dynamic_ntk_changes_nothing_up_to_max_position_embeddings():
    """transformers' dynamic base: base * ((s * len / max_pos) - (s - 1))^(d/(d-2)), len clamped up to max_pos."""

    def dynamic_base(base, factor, dim, max_pos, seq_len):
        seq_len = max(seq_len, max_pos)
        return base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))

    assert dynamic_base(10_000.0, 4.0, 128, 2048, 100) == dynamic_base(10_000.0, 4.0, 128, 2048, 2048) == 10_000.0
    growing = [dynamic_base(10_000.0, 4.0, 128, 2048, n) for n in (2048, 4096, 8192)]
    assert growing == sorted(growing) and growing[-1] > 10_000.0 * 4 ** (128 / 126)  # beyond posenc's fixed ntk


def test_yarn_ramp_and_temperature_are_described_as_in_the_paper(lesson):
    text = flat(lesson.text)
    assert "In the paper the ramp is linear in $r_i$ (§3.2, eq. 17–20, with $\\alpha = 1$ and $\\beta = 32$)" in text
    assert "make it linear in the pair index $i$ instead" in text
    assert "differ by up to 0.29 in $\\theta'/\\theta$" in text
    assert "$\\sqrt{1/t} = 0.1\\ln s + 1$" in text and "(§3.4, eq. 22; appendix A.2)" in text
    assert "not derived" in text and "would otherwise flatten" not in text


def test_llama_3_and_31_are_cited_for_what_each_source_documents(lesson):
    text = flat(lesson.text)
    assert "| LLaMA 3 (Meta, 2024, model card) |" in lesson.text
    continued = "six stages from 8K to 128K, about 800B tokens (Llama Team, 2024, *The Llama 3 Herd of Models*, §3.4.2"
    assert continued in text
    assert "to reach 128k tokens" not in text
    assert "what you do *after* training" not in text


def test_code_llama_base_change_has_the_ntk_form(lesson):
    """1e6 / 1e4 = 100 = s^(d/(d-2)) for s = 100^(126/128), about 93."""
    s = 100 ** (126 / 128)
    assert round(s) == 93
    ntk, _ = posenc.rope_frequencies(128, base=10_000.0, scaling={"rope_type": "ntk", "factor": s})
    np.testing.assert_allclose(ntk, posenc.rope_frequencies(128, base=1e6)[0], rtol=1e-12)
    assert "with $s^{d/(d-2)} = 100$, i.e. $s \\approx 93$" in flat(lesson.text)


def test_yarn_users_are_named_with_their_settings(lesson):
    # DeepSeek-V2/V3 configs: rope_scaling type yarn, factor 40, original_max_position_embeddings 4096,
    # beta_fast 32, beta_slow 1, mscale / mscale_all_dim; DeepSeek-Coder (v1): linear, factor 4.
    # Qwen2.5 model cards: yarn, factor 4, original_max_position_embeddings 32768.
    text = flat(lesson.text)
    assert "DeepSeek-V2 and V3 (factor 40 from 4,096, with extra `mscale` keys" in text
    assert "the first DeepSeek-Coder models use `linear` with factor 4" in text
    assert "Qwen2.5's long-context setting (factor 4 from 32,768 tokens)" in text
    assert "of DeepSeek's models" not in text


# --- the cell with inputs: which pairs each method keeps, blends and interpolates -----------


def _yarn_split(d: int, base: float, context: int) -> tuple[int, int]:
    """YaRN's kept and interpolated pairs from its correction dimension c(r) = d ln(L / 2 pi r) / (2 ln base)."""

    def c(r: float) -> float:
        return d * math.log(context / (2 * math.pi * r)) / (2 * math.log(base))

    low, high = max(math.floor(c(32)), 0), min(math.ceil(c(1)), d - 1)
    return low + 1, d // 2 - high


def _split(method: str, d: int, base: float, context: int) -> tuple[int, int, int]:
    """Kept, blended and interpolated pairs of each method, from its rule written out (not posenc)."""
    wavelengths = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]
    if method == "linear":
        return 0, 0, d // 2
    if method == "ntk":  # pair 0 has ratio base'^0 = 1, the last exactly 1/s, all others in between
        return 1, d // 2 - 2, 1
    if method == "yarn":
        kept, interpolated = _yarn_split(d, base, context)
        return kept, d // 2 - kept - interpolated, interpolated
    kept = sum(w < context / 4 for w in wavelengths)  # llama3, high_freq_factor 4, low 1
    interpolated = sum(w > context for w in wavelengths)
    return kept, d // 2 - kept - interpolated, interpolated


def _beyond(method: str, d: int, base: float, context: int, s: float) -> int:
    """Slow pairs whose angle at offset sL exceeds the trained L * theta_i: their ratio above 1/s."""
    ratios = {
        "linear": _reference_ratios_at(d, base, context, s)["PI (linear)"],
        "ntk": _reference_ratios_at(d, base, context, s)["NTK-aware"],
        "yarn": _reference_ratios_at(d, base, context, s)["YaRN"],
        "llama3": _reference_ratios_at(d, base, context, s)["llama3"],
    }[method]
    slow = [2 * math.pi * base ** (2 * i / d) > context for i in range(d // 2)]
    return sum(is_slow and s * r > 1 + 1e-12 for is_slow, r in zip(slow, ratios, strict=True))


def _reference_ratios_at(d: int, base: float, context: int, s: float) -> dict[str, list[float]]:
    """theta'_i / theta_i of each method for any head and L, by plain math (as _reference_ratios)."""

    def c(r: float) -> float:
        return d * math.log(context / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(c(32)), 0), min(math.ceil(c(1)), d - 1)
    keep = [1 - min(max((i - low) / (high - low), 0.0), 1.0) for i in range(d // 2)]
    turns = [context / (2 * math.pi * base ** (2 * i / d)) for i in range(d // 2)]
    blend = [min(max((r - 1.0) / (4.0 - 1.0), 0.0), 1.0) for r in turns]
    return {
        "PI (linear)": [1 / s] * (d // 2),
        "NTK-aware": [(s ** (d / (d - 2))) ** (-2 * i / d) for i in range(d // 2)],
        "YaRN": [k + (1 - k) / s for k in keep],
        "llama3": [g + (1 - g) / s for g in blend],
    }


def test_every_combination_of_the_inputs_cell_against_each_methods_rule(lesson, cell_runner):
    """All 16 combinations of method (linear, ntk, yarn, llama3) and L (2,048 to 32,768), pre-rendered by the
    build: kept, blended and interpolated pairs, the slow pairs and where they begin, and those left past
    their trained angles at sL, each recomputed from the method's rule."""
    cell = lesson.cells[7]
    method, context = cell.inputs
    assert method.values == ("linear", "ntk", "yarn", "llama3") and context.values == (2048, 4096, 8192, 32768)
    assert method.count * context.count == 16
    d, base, s = 128, 10000.0, 4.0
    for m, name in enumerate(method.values):
        for c, L in enumerate(context.values):
            printed = cell_runner(cell, {"__name__": "__main__"}, (m, c)).printed
            kept, blended, interpolated = _split(name, d, base, L)
            n_slow = slow_pairs(d, base, L)
            first = next(i for i in range(d // 2) if 2 * math.pi * base ** (2 * i / d) > L)
            assert printed == (
                f"{name}, L = {L}: {kept} kept, {blended} blended, {interpolated} interpolated\n"
                f"slow pairs: {n_slow}, from pair {first}; past their trained angles at sL: "
                f"{_beyond(name, d, base, L, s)}\n"
            )


def _ratio_at_2048(name: str, s: float) -> np.ndarray:
    """theta'/theta of each pair of a d = 128 head for method ``name``, factor ``s``, trained on L = 2048."""
    scaling = {"rope_type": name, "factor": s}
    if name in ("yarn", "llama3"):
        scaling["original_max_position_embeddings"] = 2048
    if name == "llama3":
        scaling.update(low_freq_factor=1.0, high_freq_factor=4.0)
    return posenc.rope_frequencies(128, scaling=scaling)[0] / np.array(_theta(128))


def test_the_factor_does_not_change_which_pairs_are_kept(lesson):
    """ "which pairs are kept, blended and interpolated does not depend on it": at L = 2048, s = 2 to 16."""
    for name in ("linear", "ntk", "yarn", "llama3"):
        splits = set()
        for s in (2.0, 4.0, 8.0, 16.0):
            ratio = _ratio_at_2048(name, s)
            kept, interpolated = int(np.isclose(ratio, 1).sum()), int(np.isclose(ratio, 1 / s).sum())
            splits.add((kept, 64 - kept - interpolated, interpolated))
        assert splits == {_split(name, 128, 10_000.0, 2048)}
    assert "which pairs are kept, blended and interpolated does not depend on it" in flat(lesson.text)


def test_the_factor_changes_the_curve_but_no_count(lesson):
    """NTK-aware's every ratio after pair 0 moves with s; YaRN's and llama3's blended ones do, not their kept ones."""
    two, eight = _ratio_at_2048("ntk", 2.0), _ratio_at_2048("ntk", 8.0)
    assert two[0] == eight[0] == 1.0 and np.all(np.abs(two[1:] - eight[1:]) > 1e-6)  # the whole curve
    assert two[1:] == pytest.approx([2.0 ** (-2 * i / 126) for i in range(1, 64)])  # base * s^(d / (d - 2))
    for name in ("yarn", "llama3"):
        two, eight = _ratio_at_2048(name, 2.0), _ratio_at_2048(name, 8.0)
        kept = np.isclose(two, 1.0)
        np.testing.assert_array_equal(kept, np.isclose(eight, 1.0))
        blended = ~kept & ~np.isclose(two, 0.5)
        assert blended.any() and np.all(np.abs(two[blended] - eight[blended]) > 1e-3), name
    text = flat(lesson.text)
    assert "would only move the floor" not in text
    assert "every blended ratio of YaRN and llama3 moves with it" in text
    assert "NTK-aware's whole curve changes" in text


def test_relative_scores_leave_no_absolute_position_in_the_score_not_in_the_model(lesson):
    """A causal mask still gives a model its position (lesson 32): only the score is free of it."""
    text = flat(lesson.text)
    assert "No absolute position is left for the model to overfit to" not in text
    assert "No absolute position enters the score itself (a causal mask still lets a model infer one" in text


def test_the_inputs_cell_prose_asks_first_and_answers_below(lesson):
    text = flat(lesson.text)
    section = text[text.index("## Try it: which pairs each method slows") : text.index("## Check your understanding")]
    question = section.index("**Predict before you change $L$:**")
    cell = section.index('L = select([2048, 4096, 8192, 32768], value=2048, label="training length L")')
    answer = section.index('??? success "What changing $L$ shows"')
    assert question < cell < answer
    assert (slow_pairs(128, 10_000.0, 2048), slow_pairs(128, 10_000.0, 32_768)) == (23, 4)
    assert "At $L = 2048$, the LLaMA head of this lesson, 23 pairs are slow" in section[:question]
    assert "4 at $L = 32{,}768$" in section[:question]
    for word in ("17", "36", "22 of 23", "3 of the 4"):
        assert word not in section[:question]
    d, base = 128, 10_000.0
    yarn = [_split("yarn", d, base, L) for L in (2048, 32_768)]
    llama = [_split("llama3", d, base, L) for L in (2048, 32_768)]
    assert (yarn[0][0], yarn[1][0], yarn[0][2], yarn[1][2]) == (17, 36, 23, 4)
    assert (llama[0][0], llama[1][0], llama[0][2], llama[1][2]) == (31, 50, 23, 4)
    for L in (2048, 4096, 8192, 32_768):  # "both always interpolate exactly the slow pairs"
        assert _split("yarn", d, base, L)[2] == _split("llama3", d, base, L)[2] == slow_pairs(d, base, L)
        assert _beyond("yarn", d, base, L, 4.0) == _beyond("llama3", d, base, L, 4.0) == 0
        assert _split("ntk", d, base, L) == (1, 62, 1) and _split("linear", d, base, L) == (0, 0, 64)
    assert (_beyond("ntk", d, base, 2048, 4.0), _beyond("ntk", d, base, 32_768, 4.0)) == (22, 3)
    first_slow = next(i for i in range(64) if 2 * math.pi * base ** (2 * i / 128) > 32_768)
    assert first_slow - 1 == 59  # the fast pairs after pair 0 that NTK slows at L = 32,768
    answer_text = section[answer:]
    for claim in [
        "YaRN's kept pairs go from 17 to 36 and its interpolated ones from 23 to 4",
        "llama3's from 31 to 50 and from 23 to 4",
        "22 of 23 stay out of it at $L = 2048$, and 3 of the 4 at $L = 32{,}768$",
        "it also slows the 59 fast pairs after pair 0",
    ]:
        assert claim in answer_text, claim
    assert "Pick a rescaling" not in text and "These 16 combinations" not in text


# --- corrections: wording checked against the sources ----------------------------------------------


def test_slow_pairs_wrap_round_before_s_l_and_the_combination_is_new(lesson):
    """LLaMA at s = 4: of the 23 slow pairs, 9 have lambda < 8,192 and come round to angle 0; 14 never do.
    And no offset d >= L repeats the angles of an offset below L across the pairs."""
    context, s = 2048, 4
    wavelengths = [2 * math.pi * 10_000.0 ** (2 * i / 128) for i in range(64)]
    slow = [w for w in wavelengths if w > context]
    wrapped = [w for w in slow if w <= s * context - 1]  # offsets run up to sL - 1
    assert (len(slow), len(wrapped), len(slow) - len(wrapped)) == (23, 9, 14)
    # a wrapped pair revisits seen angles: at offset ceil(lambda) its angle is back inside [0, (L-1) theta]
    for w in wrapped:
        theta = 2 * math.pi / w
        angle = (math.ceil(w) * theta) % (2 * math.pi)
        assert angle <= (context - 1) * theta
    # the combination: the angles of all pairs at an offset past L match those of no offset below L
    theta = np.array([2 * math.pi / w for w in wavelengths])
    seen = np.exp(1j * np.arange(context)[:, None] * theta)
    for offset in (2048, 3000, 8191):
        now = np.exp(1j * offset * theta)
        assert np.abs(seen - now).max(axis=1).min() > 1e-3
    text = flat(lesson.text)
    assert "Run on $4L = 8{,}192$ tokens, 9 of them come round to angle 0 before the end and 14 never do" in text
    assert "what is new past $L$ is the **combination**" in text


def test_alibi_is_causal_in_the_paper_and_the_slope_rule_is_the_codes(lesson, run):
    """Press et al. (2022) §3: bias m * [-(i-1), ..., -1, 0] for the keys j <= i; the rule for a head count
    that is not a power of two is get_slopes' workaround in ofirpress/attention_with_linear_biases."""
    text = flat(lesson.text)
    assert "$m_h \\cdot [-(i-1), \\dots, -2, -1, 0]$" in text
    assert "- m_h\\,(i - j) , \\qquad j \\le i" in text
    assert "which a comment there calls a workaround" in text
    assert "`get_slopes` in `fairseq/models/transformer.py` of ofirpress/attention_with_linear_biases" in text
    assert "the paper's code takes" not in text and "paper's rule" not in text
    # the causal lower triangle of posenc's symmetric bias is the paper's -m (i - j)
    bias = posenc.alibi_bias(8, 6)
    for h, m in enumerate(posenc.alibi_slopes(8)):
        for i in range(6):
            for j in range(i + 1):
                assert bias[h, i, j] == pytest.approx(-m * (i - j))
    # the paper's bias vector for query i (1-based) against keys 1..i
    i = 6
    paper = [-(i - 1 - j) * 0.5 for j in range(i)]
    np.testing.assert_allclose(bias[0, i - 1, :i], paper)


def test_qwen25_yarn_is_set_at_deployment_untrained(lesson):
    """Qwen2.5 model cards, "Processing Long Texts": add rope_scaling {factor 4.0, original 32768, type yarn}
    to config.json for inputs over 32,768 tokens; vLLM's static YaRN may hurt short texts, so add it only when
    long contexts are needed."""
    text = flat(lesson.text)
    assert 'Qwen2.5\'s YaRN is an entry that its model card ("Processing Long Texts") asks you to add' in text
    assert "with no training at the new length" in text
    assert "usually followed by training" not in text
    assert "The models that use them also train on longer sequences" not in text


def test_the_last_cell_line_is_read_by_the_prose(lesson, run):
    assert "LLaMA 3.1: kept 29 pairs, divided 29 by 8, blended 6" in run.printed[6]
    assert "it keeps 29, divides 29 by 8 and blends only 6" in flat(lesson.text)
    # why so few blended: wavelengths between L/4 and L at base 500,000
    between = [i for i in range(64) if 8192 / 4 <= 2 * math.pi * 500_000.0 ** (2 * i / 128) <= 8192]
    assert len(between) == 6


def test_ntk_aware_is_a_larger_rope_theta(lesson):
    """posenc's fixed ntk is the default frequencies at base * s^(d/(d-2)): in transformers a larger rope_theta."""
    for d, s in [(128, 4.0), (64, 8.0)]:
        ntk, _ = posenc.rope_frequencies(d, scaling={"rope_type": "ntk", "factor": s})
        np.testing.assert_allclose(ntk, posenc.rope_frequencies(d, base=10_000.0 * s ** (d / (d - 2)))[0], rtol=1e-12)
    assert "which a transformers configuration writes as a larger `rope_theta` instead" in flat(lesson.text)


def test_no_cell_is_named_by_its_number(lesson):
    assert not re.search(r"\bcells? \d", lesson.text)


# --- the table of rescalings in released models ----------------------------------------------------

# Each rescaling as a released model uses it, with where it was read:
#   PI: Chen et al. 2023 (arXiv 2306.15595), LLaMA 7B-65B extended from 2,048 up to 32,768 "within 1000 steps".
#   Code Llama: Roziere et al. 2023, section 2.4: base 10,000 -> 1,000,000, fine-tuned on 16,384-token sequences,
#     from Llama 2 (4,096).
#   YaRN: jquesnelle/yarn train.sh and finetune.py defaults: --scaling-factor 16, --max-train-steps 400 for the
#     64k models; then --scaling-factor 32 --max-train-steps 200 from the 64k checkpoint for 128k.
#   DeepSeek-V2: DeepSeek-AI 2024, section 3.1.4: YaRN s = 40 from 4K to 128K (target 160K), then
#     "we additionally train the model for 1000 steps, with a sequence length of 32K".
#   LLaMA 3.1: released config rope_scaling {rope_type llama3, factor 8, original 8192}, max_position_embeddings
#     131072; Llama Team 2024 section 3.4.2: continued pre-training in six stages, about 800B tokens.
#   Qwen2.5: model cards, "Processing Long Texts": add {"factor": 4.0, "original_max_position_embeddings": 32768,
#     "type": "yarn"} to config.json for inputs beyond 32,768 tokens; full context 131,072.
RELEASED = {
    "PI (`linear`)": ("LLaMA 7B to 65B", "up to 16", "2,048 → up to 32,768", "yes"),
    "larger base": ("Code Llama", "base ×100", "4,096 → 16,384", "yes"),
    "YaRN/Llama 2": ("the YaRN authors' Llama 2 7B and 13B", "16, then 32", "4,096 → 65,536, then 131,072", "yes"),
    "YaRN/DeepSeek-V2": ("DeepSeek-V2", "40", "4,096 → 128K", "yes"),
    "`llama3`": ("LLaMA 3.1", "8", "8,192 → 131,072", "yes"),
    "YaRN/Qwen2.5": ("Qwen2.5", "4", "32,768 → 131,072", "no"),
}


def _released_rows(text: str) -> list[list[str]]:
    start = text.index("| Rescaling | Model | Factor $s$ | Context | Trained after the change? | Source |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_released_rescalings_table_matches_the_sources(lesson):
    rows = _released_rows(lesson.text)
    assert len(rows) == len(RELEASED)
    for row, (key, (model, factor, context, trained)) in zip(rows, RELEASED.items(), strict=True):
        method, model_cell, factor_cell, context_cell, trained_cell, source = row
        assert method == key.split("/")[0] and model_cell == model
        assert factor_cell.startswith(factor) and context_cell == context
        assert trained_cell.split(":")[0] == trained
        assert source
    by_model = {row[1]: row for row in rows}
    assert "no training" not in by_model["Qwen2.5"][4] and "`config.json` at deployment" in by_model["Qwen2.5"][4]
    assert "800B tokens in six stages" in by_model["LLaMA 3.1"][4]
    assert "400 steps at $s = 16$, then 200 more at $s = 32$" in by_model["the YaRN authors' Llama 2 7B and 13B"][4]
    assert "1,000 more steps on 32K-token sequences" in by_model["DeepSeek-V2"][4]
    assert "($s \\approx 93$ as NTK-aware)" in by_model["Code Llama"][2]


def test_released_factors_against_the_contexts(lesson):
    """PI 2,048 x 16 = 32,768; YaRN 4,096 x 16 and x 32; Qwen2.5 32,768 x 4 = 131,072; DeepSeek-V2 40 x 4,096 =
    163,840 (its 160K target); LLaMA 3.1's 8 for 16 times the context; Code Llama's base x100 is s^(d/(d-2))."""
    assert 2048 * 16 == 32_768
    assert (4096 * 16, 4096 * 32) == (65_536, 131_072)
    assert 32_768 * 4 == 131_072
    assert 40 * 4096 == 163_840 and round(163_840 / 1024) == 160
    assert 131_072 / 8192 == 16 != LLAMA31_FACTOR
    assert round(100 ** (126 / 128)) == 93
    text = flat(lesson.text)
    assert "LLaMA 3.1 uses 8 for a context 16 times longer" in text
    assert "at $40 \\times 4{,}096 = 163{,}840$" in text
    trained = [row[4].split(":")[0] for row in _released_rows(lesson.text)]
    assert trained.count("no") == 1  # Qwen2.5 alone: "common as it is, is not part of any of the methods"


# --- the exercise: YaRN's ramp from the paper -------------------------------------------------------


@pytest.fixture(scope="module")
def yarn_exercise(lesson):
    from course_site.exercises import parse_exercises

    (exercise,) = [e for e in parse_exercises(lesson.blocks) if e.title == "YaRN's ramp, from the paper"]
    return exercise


def _paper_ramp(head_dim: int, base: float, context: float, s: float, alpha: float, beta: float) -> list[float]:
    """Peng et al. 2023, eq. 17-20: gamma(r) linear in r = L / lambda from alpha to beta; ratio gamma + (1-gamma)/s."""
    out = []
    for i in range(head_dim // 2):
        turns = context / (2 * math.pi * base ** (2 * i / head_dim))
        gamma = min(max((turns - alpha) / (beta - alpha), 0.0), 1.0)
        out.append(gamma + (1 - gamma) / s)
    return out


def test_the_yarn_exercise_passes_its_solution_and_fails_the_rest(yarn_exercise):
    namespace = _run_check_namespace(yarn_exercise, yarn_exercise.solution)
    paper = _paper_ramp(D, BASE, CONTEXT, FACTOR, 1.0, 32.0)
    code = _reference_ratios()["YaRN"]
    assert float(namespace["gap"]) == pytest.approx(max(abs(a - b) for a, b in zip(paper, code, strict=True)))
    np.testing.assert_allclose(namespace["paper_ratio"](D, BASE, CONTEXT, FACTOR), paper, atol=1e-12)
    solution_head = yarn_exercise.solution.split("theta, _ = posenc.rope_frequencies(128)")[0]
    wrong = {
        yarn_exercise.starter: "pair 41 makes 0.89 turns over L and should get 0.2500, got 1.0000",
        # the code's ramp instead of the paper's
        "def paper_ratio(head_dim, base, L, s, alpha=1.0, beta=32.0):\n"
        "    theta, _ = posenc.rope_frequencies(head_dim, base=base)\n"
        "    y = {'rope_type': 'yarn', 'factor': s, 'original_max_position_embeddings': L,\n"
        "         'beta_fast': beta, 'beta_slow': alpha}\n"
        "    return posenc.rope_frequencies(head_dim, base=base, scaling=y)[0] / theta\n": "the code's ratios",
        # ramp the wrong way round: gamma in wavelengths
        "def paper_ratio(head_dim, base, L, s, alpha=1.0, beta=32.0):\n"
        "    theta, _ = posenc.rope_frequencies(head_dim, base=base)\n"
        "    r = 2 * np.pi / theta / L\n"
        "    g = np.clip((r - alpha) / (beta - alpha), 0.0, 1.0)\n"
        "    return g + (1 - g) / s\n": "turns over L and should get",
        solution_head + "gap = None\n": "Set `gap`",
        solution_head + "gap = 0.5\n": "`gap` is 0.5000",
    }
    for code_text, message in wrong.items():
        with pytest.raises(AssertionError, match=re.escape(message)):
            _run_check_namespace(yarn_exercise, code_text)


def _run_check_namespace(exercise, code: str) -> dict:
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(f"{exercise.setup}\n{code}\n{exercise.check}", "<exercise>", "exec"), namespace)
    return namespace


def test_the_text_after_the_yarn_exercise(lesson):
    """Largest gap 0.29 at pair 25 (about 9 turns): paper 0.44, code 0.73; 8 pairs per band 32-10, 10-3, 3-1;
    the paper's gamma is (10 - 1) / 31 = 0.29 at 10 turns."""
    paper = _paper_ramp(D, BASE, CONTEXT, FACTOR, 1.0, 32.0)
    code = _reference_ratios()["YaRN"]
    gaps = [abs(a - b) for a, b in zip(paper, code, strict=True)]
    worst = gaps.index(max(gaps))
    turns = [CONTEXT / (2 * math.pi * BASE ** (2 * i / D)) for i in range(D // 2)]
    assert (worst, round(max(gaps), 2), round(turns[worst]), round(paper[worst], 2), round(code[worst], 2)) == (
        25,
        0.29,
        9,
        0.44,
        0.73,
    )
    bands = [sum(lo <= r <= hi for r in turns) for lo, hi in [(10, 32), (3, 10), (1, 3)]]
    assert bands == [8, 8, 8]
    assert round((10 - 1) / (32 - 1), 2) == 0.29
    text = flat(lesson.text)
    assert "The largest gap, 0.29, sits at pair 25, which makes about 9 turns over $L$" in text
    assert "brought it down to 0.44, while the code's still keeps it at 0.73" in text
    assert "it gives 8 pairs to each of the bands from 32 to 10 turns, from 10 to 3 and from 3 to 1" in text
    assert "falls from 1 to 0.29 within the first band" in text
