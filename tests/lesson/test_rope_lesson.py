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


@pytest.fixture(scope="module")
def lesson(lesson_reader):
    return lesson_reader(NAME)


@pytest.fixture(scope="module")
def run(lesson, lesson_runner):
    return lesson_runner(lesson.cells)


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
    assert run.figures == [0, 0, 0, 1, 1, 0, 0]  # the decay plot and the scaling comparison
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
    ]
    perm = run.namespace["perm"]
    d = len(perm)
    assert list(perm) == [*range(0, d, 2), *range(1, d, 2)]


def test_half_pairing_is_transformers_rotate_half():
    """Independent check that posenc's "half" is HF's x*cos + rotate_half(x)*sin."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 8))
    theta = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    angles = np.concatenate([np.arange(7)[:, None] * theta] * 2, axis=1)
    rotate_half = np.concatenate([-x[:, 4:], x[:, :4]], axis=1)
    np.testing.assert_allclose(posenc.rope(x, pairing="half"), x * np.cos(angles) + rotate_half * np.sin(angles))


# --- cell 4: long-term decay ----------------------------------------------------------------


def test_cell4_decay_values(run, lesson):
    d = 128
    theta = [10000.0 ** (-2 * i / d) for i in range(d // 2)]
    for line in run.printed[3].splitlines():
        offset, bound, score = numbers(line)
        partial, total = 0j, 0.0
        for t in theta:
            partial += cmath.exp(1j * offset * t)
            total += abs(partial)
        assert bound == pytest.approx(total / (d // 2), abs=0.006)
        assert score == pytest.approx(sum(2 * math.cos(offset * t) for t in theta) / d, abs=6e-4)
    bound = run.namespace["bound"]
    assert bound[0] == 32.5 == sum(range(1, 65)) / 64
    assert round(bound[1000], 1) == 4.5
    assert "starts at 32.5" in lesson.text and "about 4.5 at offset 1,000" in lesson.text
    assert bound[1000] < bound[100] < bound[10] < bound[0]  # "falls ... with wiggles"


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
        assert values[1] == 0.25  # every method slows the slowest pair by 1/s
    assert [v[0] for v in scaling_table.values()] == [0.25, 1.0, 1.0, 1.0]
    assert [v[2] for v in scaling_table.values()] == [0, 22, 0, 0]
    changes = [v[3] for v in scaling_table.values()]
    assert changes == [2.505, 1.173, 0.12, 0.004]
    assert changes[1] < changes[0] / 2 * 1.1  # "halves PI's score change"
    assert "slow pairs: 23 of 64" in run.printed[4]
    assert "YaRN attention scale: 1.1386" in run.printed[4]
    for claim in ["22 of the 23 slow pairs", "largest, 2.5", "(0.12 and 0.004)", "$1.1386^2 \\approx 1.30$"]:
        assert claim in lesson.text


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
