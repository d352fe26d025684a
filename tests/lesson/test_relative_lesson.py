"""Every claim of lesson 34 that code can check, against values derived here independently.

The lesson (``lessons/34-relative-position.md``) states numbers ("17 of the 32
columns", "bucket 31 takes every distance from 113 on", "0.99 at 2L") and
findings ("ALiBi cannot copy", "NoPE wins the majority"). Each test runs the
lesson's own cells (so text, output and test cannot drift apart) and compares
them with plain loops, a float32 transcription of transformers' T5 bucket
function, the softmax written out, or the table the lesson's experiment cell
builds over three seeds, with margins that every seed must meet.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc
from course_kernel.exercise_check import run_check
from course_site.exercises import parse_exercises
from posenc import experiment

NAME = "34-relative-position.md"
TITLE = "34 · Relative position and length generalization"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lesson(lesson_reader):
    return lesson_reader(NAME)


@pytest.fixture(scope="module")
def run(lesson, lesson_runner):
    return lesson_runner(lesson.cells)


@pytest.fixture(scope="module")
def prose(lesson) -> str:
    """The lesson's text outside fences, line breaks folded into spaces."""
    outside = re.sub(r"^```.*?^```", "", lesson.text, flags=re.M | re.S)
    return " ".join(outside.split())


@pytest.fixture(scope="module")
def table(run) -> dict[tuple[str, str], np.ndarray]:
    """(task, scheme) -> accuracies of shape (3 seeds, 4 multiples), as the lesson's table cell left them."""
    return run.namespace["table"]


def mean(table, task: str, scheme: str, multiple: int) -> float:
    return float(table[task, scheme][:, experiment.MULTIPLES.index(multiple)].mean())


def seeds(table, task: str, scheme: str, multiple: int) -> np.ndarray:
    return table[task, scheme][:, experiment.MULTIPLES.index(multiple)]


def cell_printing(run, text: str) -> str:
    (found,) = [printed for printed in run.printed if text in printed]
    return found


def exercise(lesson, title: str):
    (found,) = [e for e in parse_exercises(lesson.blocks) if e.title == title]
    return found


def run_code(exercise, code: str) -> tuple[dict, str]:
    """``code`` run after the exercise's setup, as the page runs it: its namespace and what it printed."""
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(f"{exercise.setup}\n{code}", "<exercise>", "exec"), namespace)
    return namespace, printed.getvalue()


def verdict(exercise, code: str):
    """The check's verdict on ``code``."""
    return run_check(exercise.check, run_code(exercise, code)[0])


def assert_refused(exercise, wrong: dict[str, str]) -> None:
    """Each wrong ``code`` fails the check with a message that holds its text."""
    for code, message in wrong.items():
        result = verdict(exercise, code)
        assert not result.passed and message in result.message, (code, result.message)


def folded(lesson, title: str) -> str:
    """The body of the folded answer ``??? success "title"``, line breaks folded into spaces."""
    found = re.search(rf'^\?\?\? success "{re.escape(title)}"\n((?:    .*\n|\n)+)', lesson.text, flags=re.M)
    assert found, f"no folded answer {title!r}"
    return " ".join(found[1].split())


# --- the page --------------------------------------------------------------------------------


def test_title_nav_and_home(lesson):
    assert lesson.text.startswith(f"# {TITLE}\n")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    lessons = re.findall(r'^      - "(\d\d) · [^"]+": lessons/', nav, flags=re.M)
    assert lessons == ["32", "33", "34"]  # third in the nav
    assert f'"{TITLE}": lessons/{NAME}' in nav
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert f"[{TITLE}](lessons/{NAME})" in home


def test_sections_cells_exercises_quiz(lesson, run):
    for heading in (
        "## Why lengths break",
        "## Shaw et al.",
        "## Transformer-XL",
        "## T5",
        "## ALiBi",
        "## KERPLE and FIRE",
        "## NoPE",
        "## Train it yourself",
        "## Check your understanding",
        "## Key takeaways",
    ):
        assert f"\n{heading}" in lesson.text, heading
    assert len(parse_exercises(lesson.blocks)) >= 4
    assert len(lesson.quizzes) == 1
    assert run.figures.count(1) == 3  # the penalties, the experiment's accuracy plot, accuracy by query position
    inputs = [cell for cell in lesson.cells if cell.inputs]
    assert len(inputs) == 1 and inputs[0].options.precompute == 0  # live: the defaults pre-rendered only


def test_papers_are_cited(prose):
    for citation in (
        "Shaw, Uszkoreit and Vaswani (2018",
        "Dai et al. 2019",
        "Raffel et al. 2020",
        "Press, Smith and Lewis 2022",
        "Chi et al. 2022",
        "Li et al. 2023",
        "Haviv et al. (2022",
        "Kazemnejad et al. (2023",
        "_generate_relative_positions_matrix",
        "modeling_t5.py",
    ):
        assert citation in prose, citation


# --- why lengths break -----------------------------------------------------------------------


def test_a_learned_table_refuses_a_position_past_max_len(run):
    printed = cell_printing(run, "position 20:")
    assert "rows: 16" in printed
    assert "cannot extrapolate past max_len=16" in printed


def test_sinusoid_columns_that_leave_their_training_range(run, prose):
    """17 of 32 columns step out by more than 0.1, from the pair of wavelength 35 on; the fast pairs stay in."""
    L, d = 16, 32
    beyond = []
    for column in range(d):
        omega = 10000.0 ** (-(column // 2) * 2 / d)
        wave = math.sin if column % 2 == 0 else math.cos
        seen = [wave(omega * t) for t in range(L)]
        later = [wave(omega * t) for t in range(L, 8 * L)]
        beyond.append(max(max(min(seen) - v, v - max(seen), 0.0) for v in later))
    beyond = np.array(beyond)
    assert (beyond > 0.1).sum() == 17
    first = int(np.argmax(beyond > 0.1)) // 2
    assert round(2 * math.pi * 10000.0 ** (2 * first / d)) == 35
    wavelengths = [2 * math.pi * 10000.0 ** (2 * (c // 2) / d) for c in range(d)]
    assert all(b < 0.05 for b, w in zip(beyond, wavelengths, strict=True) if w < L)  # went round in training
    assert "the pairs from $\\lambda = 35$ on step out" not in prose  # the slowest pairs do not
    printed = cell_printing(run, "columns more than 0.1 outside")
    assert printed.splitlines()[-1] == "columns more than 0.1 outside their training range: 17 of 32"
    np.testing.assert_allclose(run.namespace["beyond"], beyond, atol=1e-12)


def test_the_step_out_starts_below_three_quarters_of_a_turn(lesson, prose):
    """lambda = 19.9 > L stays in range (0.75 of a turn by position 15); lambda = 35 (0.43) is the first to step out."""
    L, d = 16, 32
    wavelength = [2 * math.pi * 10000.0 ** (2 * pair / d) for pair in range(d // 2)]

    def out_by(pair: int, wave) -> float:
        seen = [wave(2 * math.pi * t / wavelength[pair]) for t in range(L)]
        later = [wave(2 * math.pi * t / wavelength[pair]) for t in range(L, 8 * L)]
        return max(max(min(seen) - v, v - max(seen), 0.0) for v in later)

    assert round(wavelength[2], 1) == 19.9 and wavelength[2] > L
    assert round((L - 1) / wavelength[2], 2) == 0.75 and (L - 1) * 2 * math.pi / wavelength[2] >= 1.5 * math.pi
    assert out_by(2, math.sin) == out_by(2, math.cos) == 0.0
    assert round(wavelength[3]) == 35 and round((L - 1) / wavelength[3], 2) == 0.42
    assert out_by(3, math.sin) > 0.1 and out_by(3, math.cos) > 0.1
    seen_sin = [math.sin(2 * math.pi * t / wavelength[3]) for t in range(L)]
    seen_cos = [math.cos(2 * math.pi * t / wavelength[3]) for t in range(L)]
    assert min(seen_sin) == 0.0 and round(min(seen_cos), 1) == -0.9
    assert all(max(out_by(p, math.sin), out_by(p, math.cos)) < 0.1 for p in (13, 14, 15))  # the slowest stay in
    answer = folded(lesson, "Which pairs step out")
    for text in (
        "The pair of $\\lambda = 19.9$ never finished a turn",
        "($15 / 19.9 = 0.75$)",
        "the pair of $\\lambda = 35$ (0.42 of a turn): its sine never went below 0 in training",
        "and its cosine never below $-0.9$",
        "17 of the 32 columns step out by more than 0.1",
        "The slowest pairs turn so little even by position 127 that they stay within 0.1",
    ):
        assert text in answer, text
    assert "**Predict before you run:** which pairs leave their range?" in prose


# --- Shaw et al. -----------------------------------------------------------------------------


def test_shaw_indices_are_the_clipped_offsets(run, lesson):
    index = run.namespace["index"]
    k = 2
    assert index.tolist() == [[min(max(j - i, -k), k) + k for j in range(6)] for i in range(6)]
    printed = cell_printing(run, "a^K shape")
    assert "same vector along each diagonal: True" in printed
    counts = [sum(min(max(j - i, -k), k) + k == row for i in range(6) for j in range(6)) for row in range(5)]
    assert counts == [10, 5, 6, 5, 10]
    assert printed.splitlines()[-1] == "pairs reading w_-2 .. w_2: [10  5  6  5 10]"
    assert folded(lesson, "How often each vector is read").startswith("10, 5, 6, 5 and 10.")


def test_shaw_is_cited_for_what_the_paper_tested(prose):
    """A hypothesis, translation experiments only, BLEU flat for k >= 2, no test past the training lengths."""
    assert "Shaw et al. *hypothesised* that precise relative position information is not useful" in prose
    assert "Their experiments are translation only (WMT 2014 English–German and English–French)" in prose
    assert "BLEU hardly moved for any $k \\ge 2$" in prose
    assert "none of them tests a length longer than those of training" in prose
    assert "Their argument for clipping is exactly that" not in prose


def test_a_decoder_trains_half_of_shaws_table(lesson):
    ex = exercise(lesson, "Which vectors a decoder trains")
    assert verdict(ex, ex.solution).passed
    assert run_code(ex, ex.solution)[1].strip() == "[10  5  6  0  0]"  # w_-2 reads every offset <= -2; w_1, w_2 none
    wrong = {
        ex.starter: "trained_rows(6, 2)",
        "def trained_rows(length, k):\n    return np.bincount(posenc.shaw_relative_indices(length, k).ravel())\n": (
            "a decoder never computes a key after its query"
        ),
        "def trained_rows(length, k):\n    index = posenc.shaw_relative_indices(length, k)\n"
        "    return np.bincount(index[posenc.causal_mask(length)])\n": "count the rows that no pair reads too",
    }
    assert_refused(ex, wrong)
    assert "So a decoder trains only half the table" in " ".join(lesson.text.split())


# --- Transformer-XL --------------------------------------------------------------------------


def test_transformer_xl_absolute_terms_move_and_relative_ones_do_not(run, lesson):
    """Both forms by plain loops over the cell's weights: A_abs's (b)-(d) change with a shift of 40, A_rel's none."""
    ns = run.namespace
    W_q, W_kE, W_kR, E, u, v = (ns[name] for name in ("W_q", "W_kE", "W_kR", "E", "u", "v"))
    d = E.shape[1]
    U = np.array(
        [
            [
                math.sin(t / 10000 ** (2 * (c // 2) / d)) if c % 2 == 0 else math.cos(t / 10000 ** (2 * (c // 2) / d))
                for c in range(d)
            ]
            for t in range(64)
        ]
    )

    def absolute(i, j):
        x_i, x_j = E[0] + U[i], E[1] + U[j]
        return (W_q @ x_i) @ (W_kE @ x_j)  # the four terms summed: (E_i + U_i) W_q^T W_k (E_j + U_j)

    def relative(i, j):
        return (
            (W_q @ E[0]) @ (W_kE @ E[1]) + (W_q @ E[0]) @ (W_kR @ U[i - j]) + u @ (W_kE @ E[1]) + v @ (W_kR @ U[i - j])
        )

    assert abs(absolute(5, 2) - absolute(45, 42)) > 0.1
    assert relative(5, 2) == pytest.approx(relative(45, 42), abs=1e-12)
    assert ns["absolute_terms"](5, 2, E[0], E[1]).sum() == pytest.approx(absolute(5, 2))
    assert ns["relative_terms"](45, 42, E[0], E[1]).sum() == pytest.approx(relative(5, 2))
    printed = cell_printing(run, "terms that changed")
    assert printed.splitlines()[-1] == "terms that changed: absolute (b, c, d), relative none"
    answer = folded(lesson, "Which terms move")
    assert answer.startswith("In the absolute form, (b), (c) and (d)") and "In the relative form none moves" in answer


# --- T5 --------------------------------------------------------------------------------------


def transformers_causal_bucket(relative_position: int, num_buckets: int = 32, max_distance: int = 128) -> int:
    """transformers' T5Attention._relative_position_bucket with bidirectional=False, for one offset, in float32."""
    n = max(-relative_position, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return n
    ratio = np.float32(np.log(np.float32(n) / np.float32(max_exact)))
    scaled = ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(num_buckets - max_exact)
    return min(max_exact + int(np.float32(scaled)), num_buckets - 1)


def test_t5_bucket_ranges_the_lesson_states(run, prose):
    buckets = [transformers_causal_bucket(-n) for n in range(1001)]
    assert buckets[:16] == list(range(16))
    assert buckets.index(30) <= 112 < buckets.index(31) == 113
    assert set(buckets[16:113]) == set(range(16, 31))
    assert all(b == 31 for b in buckets[113:])
    assert "16 to 112 share buckets 16 to 30" in prose
    assert "the last bucket, 31, takes every distance from 113 on" in prose
    lines = cell_printing(run, "bucket 31:").splitlines()
    assert lines[-3] == "bucket 31: distances 113 to ...  (888 distances)"
    assert posenc.t5_relative_bucket(-40, bidirectional=False) == transformers_causal_bucket(-40) == 23


def test_t5_bucket_widths_grow_roughly_and_a_later_key_is_bucket_0(run, prose, lesson):
    widths = [sum(transformers_causal_bucket(-n) == b for n in range(1001)) for b in range(16, 31)]
    assert widths[:5] == [3, 2, 3, 3, 4] and widths != sorted(widths)  # not strictly growing
    assert all(b - a >= 0 for a, b in itertools.pairwise(widths[1:]))  # after the first dip, never less
    assert run.printed[next(k for k, p in enumerate(run.printed) if "bucket 31:" in p)].splitlines()[-2] == (
        "widths of buckets 16 to 30: [" + " ".join(f"{w:>2}" for w in widths) + "]"
    )
    assert "roughly rather than strictly (3, 2, 3, 3, 4, …" in prose
    assert transformers_causal_bucket(+5) == transformers_causal_bucket(+500) == 0  # a key after the query: bucket 0
    assert (
        "a key after the query gets distance 0, the bucket of the query itself, and the causal mask hides it" in prose
    )
    assert "a key after the query never counts" not in prose
    printed = cell_printing(run, "buckets a 16-token run reaches")
    assert (
        printed.splitlines()[-1] == "buckets a 16-token run reaches: [" + " ".join(f"{b:>2}" for b in range(16)) + "]"
    )
    answer = folded(lesson, "What a 16-token run trains")
    assert answer.startswith("Only buckets 0 to 15")
    assert "Distance 40 falls in bucket 23 and distance 120 in bucket 31" in answer
    assert (transformers_causal_bucket(-40), transformers_causal_bucket(-120)) == (23, 31)


def test_quiz_names_bucket_23_for_distance_40(lesson):
    options = re.findall(r"^- \[([ x])\] (.+)$", lesson.quizzes[0], flags=re.M)
    assert len(options) == 4 and [mark for mark, _ in options].count("x") == 1
    assert "(bucket 23 with these sizes)" in lesson.quizzes[0]
    assert transformers_causal_bucket(-40) == 23


def test_training_at_16_reaches_only_the_exact_buckets():
    trained = {transformers_causal_bucket(j - i) for i in range(16) for j in range(i + 1)}
    assert trained == set(range(16))
    sized = {transformers_causal_bucket(j - i, 16, 16) for i in range(16) for j in range(i + 1)}
    assert sized == set(range(16))  # t5-sized: one bucket per training distance, the last one shared beyond
    assert {transformers_causal_bucket(-n, 16, 16) for n in range(15, 1000)} == {15}


# --- ALiBi -----------------------------------------------------------------------------------


def test_alibi_shift_is_the_same_softmax(run):
    printed = cell_printing(run, "row 3, keys j <= 3")
    assert printed.splitlines()[-1] == "row 3, keys j <= 3, differ by m i = 3 m: [0.75 0.75 0.75 0.75]"
    rng = np.random.default_rng(0)
    heads, n = 4, 9
    slopes = [2 ** (-8 * h / heads) for h in range(1, heads + 1)]
    scores = rng.normal(size=(heads, n, n))
    for h, m in enumerate(slopes):
        for i in range(n):
            paper = [math.exp(scores[h, i, j] - m * (i - j)) for j in range(i + 1)]
            code = [math.exp(scores[h, i, j] + m * j) for j in range(i + 1)]
            assert [p / sum(paper) for p in paper] == pytest.approx([c / sum(code) for c in code], rel=1e-12)


def test_the_shift_is_exact_only_under_the_causal_mask(lesson, prose):
    """Without the mask, softmax(m j) and softmax(-m |i - j|) agree on the last row only, by plain loops."""
    for m in (0.5, 1 / 16):
        n = 6
        for i in range(n):
            symmetric = [math.exp(-m * abs(i - j)) for j in range(n)]
            shifted = [math.exp(m * j) for j in range(n)]
            same = [a / sum(symmetric) for a in symmetric] == pytest.approx([b / sum(shifted) for b in shifted])
            assert same == (i == n - 1)
    assert "only that makes the shift exact" in prose
    ex = exercise(lesson, "The shift without a mask")
    assert verdict(ex, ex.solution).passed
    assert run_code(ex, ex.solution)[1].split() == [
        "[[False",
        "False",
        "False",
        "False",
        "True]",
        "[False",
        "False",
        "False",
        "False",
        "True]]",
    ]
    wrong = {
        ex.starter: "every row agrees in your answer",
        "def rows_that_agree(slopes, n):\n    return np.zeros((len(slopes), n))\n": "must be a boolean array",
        "def rows_that_agree(slopes, n):\n    return np.zeros((len(slopes), n), dtype=bool)\n": (
            "rows_that_agree(..., 5)"
        ),
    }
    assert_refused(ex, wrong)
    assert folded(lesson, "Which rows agree").startswith(
        "Only the last query's: it is the one row with no key after it."
    )
    assert "ALiBi's shifted bias" not in lesson.text  # the exercise that copied the cell above it


# --- KERPLE and FIRE -------------------------------------------------------------------------


def test_kerple_and_fire_values(run):
    ns = run.namespace
    assert ns["log_kernel"][[1, 8, 64]] == pytest.approx([-2 * math.log(1 + 0.5 * d) for d in (1, 8, 64)])
    assert ns["power_kernel"][[1, 4, 64]] == pytest.approx([-1.0, -2.0, -8.0])
    psi = [math.log(0.1 * d + 1) / math.log(0.1 * 64 + 1) for d in range(65)]
    assert ns["fire"] == pytest.approx(psi)
    assert "FIRE's input spans 0.0 to 1.0" in cell_printing(run, "FIRE's input spans")


def test_the_penalties_plot_the_slope_the_legend_names(run, lesson):
    """The plotted ALiBi line is -d/4 (head 0 of 4: m = 2^-2), to -16 at 64; KERPLE's are above it from 17 and 19."""
    ns = run.namespace
    assert ns["alibi"] == pytest.approx([-d / 4 for d in range(65)])
    assert 2 ** (-8 * 1 / 4) == 0.25  # the first head's slope; the second's, 1/16, is not the one named
    log = [-2 * math.log(1 + 0.5 * d) for d in range(65)]
    power = [-math.sqrt(d) for d in range(65)]
    first_log = next(d for d in range(1, 65) if log[d] > -d / 4)
    first_power = next(d for d in range(1, 65) if power[d] > -d / 4)
    assert (first_power, first_log) == (17, 19) and power[16] == -16 / 4
    assert all(log[d] < -d / 4 and power[d] < -d / 4 for d in range(1, 16))  # steeper over the first distances
    assert ns["first_above"] == {"log": 19, "power": 17}
    printed = cell_printing(run, "above ALiBi's line")
    assert "at distance 64: ALiBi -16.0  KERPLE log -6.993  power -8.0" in printed
    source = next(cell.code for cell in lesson.cells if "log_kernel" in cell.code)
    assert 'label="ALiBi, m = 1/4"' in source and "[0, last, ::-1]" in source
    (alt,) = [cell.options.alt for cell in lesson.cells if "log_kernel" in cell.code]
    assert "slope 1/4, down to −16 at distance 64" in alt
    answer = folded(lesson, "Which penalty is the mildest far away")
    for text in (
        "$-6.99$ at distance 64",
        "$-8$ for the power curve and $-16$ for ALiBi",
        "($-0.81$ and $-1$ at distance 1, against $-0.25$)",
        "lies above it from 17 on, the logarithmic one from 19 on",
    ):
        assert text in answer, text
    assert round(log[1], 2) == -0.81 and round(log[64], 2) == -6.99


def test_fire_interpolates_on_a_finer_grid(lesson, prose):
    """psi(1) / psi(10,000) = 0.0138 against psi(1) / psi(max(512, 599)) = 0.0232 for 600 training tokens."""
    at_10000 = math.log(0.1 + 1) / math.log(0.1 * 10_000 + 1)
    trained_600 = min(
        math.log(0.1 * (i - j) + 1) / math.log(0.1 * max(512, i) + 1) for i in range(600) for j in range(i)
    )
    assert trained_600 == pytest.approx(math.log(1.1) / math.log(0.1 * 599 + 1))  # j = i - 1 of the last query
    assert (round(at_10000, 4), round(trained_600, 4)) == (0.0138, 0.0232) and round(at_10000 / trained_600, 1) == 0.6
    assert "so the MLP is never asked about an input outside its training range" not in prose
    assert "The interval is the same; the grid is not." in prose
    text = " ".join(lesson.text.split())
    assert (
        "the query at 10,000 gives its nearest key the input 0.0138, about 0.6 of the smallest non-zero input" in text
    )
    assert "training on 600 tokens produced (0.0232)" in text
    ex = exercise(lesson, "FIRE's finest input")
    assert verdict(ex, ex.solution).passed
    assert run_code(ex, ex.solution)[1].strip() == "trained on 600 tokens: 0.0232; query 10,000: 0.0138"
    wrong = {
        ex.starter: "smallest_input(600, c=0.1, threshold=512.0)",
        "def smallest_input(length, c=0.1, threshold=512.0):\n    return 0.0\n": "it must be a non-zero input",
        "def smallest_input(length, c=0.1, threshold=512.0):\n"
        "    return np.log(c + 1) / np.log(c * (length - 1) + 1)\n": "smallest_input(2, c=0.1, threshold=512.0)",
    }
    assert_refused(ex, wrong)
    assert 'exercise="FIRE\'s normalised distance"' not in lesson.text  # the exercise that needed only its denominator


# Facts of the papers, as their text states them (the sources the lesson cites):
#   Kazemnejad et al. 2023: §4 "performs on par with or even better than the best-performing explicit PE, T5's
#     Relative Bias"; §3 lengths drawn from U(1, 2L), "unless otherwise stated, L = 20" (SCAN and PCFG use their own
#     splits); Table 2: 12 layers; Theorem 1: the first layer's attention and feed-forward compute absolute positions
#     from <bos>; Theorem 2: for l >= 2, scores f_cnt + f_rel(t - i); Appendix D: Copy repeats the whole input.
#   Haviv et al. 2022, abstract: "We conjecture that causal attention enables the model to infer the number of
#     predecessors"; "always slightly worse" in perplexity (Limitations).
#   Chi et al. 2022 (KERPLE), Table 3, train length 512, perplexity log vs T5: OpenWebText2 23.9 vs 23.7 at 512,
#     21.4 vs 31.4 at 16384; "close to or slightly worse than T5 when the extrapolation length is shorter than 2048".
KERPLE_LOG_VS_T5 = {512: (23.9, 23.7), 16384: (21.4, 31.4)}


def test_nope_is_cited_as_the_papers_state_it(prose):
    assert "Haviv et al. *conjecture* that it is the causal mask" in prose
    assert "(though always slightly worse in perplexity)" in prose
    assert "In their Theorem 1, the first layer's attention computes it and the same layer's feed-forward" in prose
    assert "in their Theorem 2, a later layer then scores its keys by $t - i$" in prose
    assert "12-layer decoders trained on inputs up to $L = 20$ tokens and tested up to $2L = 40$" in prose
    assert 'found NoPE "on par with or even better than" T5\'s relative bias' in prose
    assert "ahead of ALiBi, rotary and the absolute encoding" in prose
    assert "better than the absolute, T5, ALiBi and rotary" not in prose  # not better than T5 on most tasks
    assert (
        "The page's model has one layer and no feed-forward sublayer, which is one reason NoPE cannot copy here"
        in prose
    )
    assert "it repeats the whole input after an instruction" in prose


def test_without_a_start_token_the_mean_gives_no_position(lesson):
    """The mean of t + 1 random values: its spread falls like 1 / sqrt(t + 1), but one value fits many positions."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=(4000, 64))
    means = np.cumsum(values, axis=1) / np.arange(1, 65)  # o_t of uniform causal attention, (sequences, t)
    spread = means.std(axis=0)
    assert spread[[0, 15, 63]] == pytest.approx([1, 1 / 4, 1 / 8], rel=0.08)
    assert abs(np.median(means[:, 3])) < 0.05 and abs(np.median(means[:, 40])) < 0.05  # the same centre at each t
    answer = folded(lesson, "Without a start token")
    assert answer.startswith("Not for a single token.") and "$1/\\sqrt{t + 1}$" in answer


def test_kerple_is_cited_against_t5_as_the_paper_states_it(prose):
    assert "the logarithmic one beat ALiBi, rotary and sinusoidal positions at every extrapolation length" in prose
    assert "against T5's bias it was level or slightly behind below 2048 tokens" in prose
    for length, (log, t5) in KERPLE_LOG_VS_T5.items():
        assert f"{log} against {t5} perplexity at {length}" in prose or f"({log} against {t5} at {length:,})" in prose
    assert "extrapolated best in the paper's experiments" not in prose


# --- the experiment and its table ------------------------------------------------------------


def test_the_live_cell_trains_one_model_with_the_tables_settings(run, table):
    ns = run.namespace
    assert (ns["task"], ns["scheme"], ns["L"], ns["steps"], ns["batch"]) == ("copy", "rope", 16, 150, 16)
    first_seed = table["copy", "rope"][0]
    assert [ns["accuracy"][m] for m in experiment.MULTIPLES] == pytest.approx(first_seed.tolist())


def test_the_table_holds_every_task_scheme_and_seed(table, run):
    assert set(table) == {(t, s) for t in experiment.TASKS for s in experiment.SCHEMES}
    assert all(runs.shape == (3, 4) for runs in table.values())
    printed = cell_printing(run, "latest-marked ")
    body = printed.rsplit("\r", 1)[-1].splitlines()
    assert len(body) == 3 * (1 + len(experiment.SCHEMES))
    row = next(line for line in body if line.split()[:1] == ["rope"])  # the first task, copy
    assert numbers(row) == [round(mean(table, "copy", "rope", m), 2) for m in experiment.MULTIPLES]


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+\.\d+", text)]


def test_seeds_mostly_within_a_few_hundredths_of_the_mean(table):
    spreads = [np.nanmax(np.abs(runs - runs.mean(axis=0))) for runs in table.values() if not np.isnan(runs).all()]
    assert np.mean(np.array(spreads) <= 0.05) > 0.5  # "at most a few hundredths in most rows"


PROSE_NUMBERS = [
    # (text in the lesson, task, scheme, multiple)
    ("drops to 0.67 at $2L$", "copy", "sinusoidal", 2),
    ("and 0.36 at $8L$, and to 0.76", "copy", "sinusoidal", 8),
    ("and to 0.76 and", "latest-marked", "sinusoidal", 2),
    ("0.76 and 0.44 on *latest-marked*", "latest-marked", "sinusoidal", 8),
    ("right 0.99 of the time at $2L$", "copy", "rope", 2),
    ("then 0.63 at $4L$", "copy", "rope", 4),
    ("and 0.38 at $8L$", "copy", "rope", 8),
    ("it keeps 0.95 at $L$", "latest-marked", "alibi", 1),
    ("and 0.93 at $8L$, the flattest", "latest-marked", "alibi", 8),
    ("still falls to 0.73 at $8L$", "copy", "t5-sized", 8),
    ("(0.73 against 0.49)", "copy", "t5-sized", 8),
    ("(0.73 against 0.49)", "copy", "t5", 8),
    ("On *copy* it scores 0.33 even at $L$", "copy", "alibi", 1),
    ("on *copy*, 0.86", "copy", "t5", 2),
    ("against 0.99 at $2L$", "copy", "t5-sized", 2),
    ("and 0.49 against", "copy", "t5", 8),
    ("against 0.73 at $8L$", "copy", "t5-sized", 8),
    ("right 1.00 of the time at every length", "majority", "nope", 8),
    ("(sinusoidal: 0.78 at $8L$)", "majority", "sinusoidal", 8),
    ("On *copy* it reaches only 0.33 even at $L$", "copy", "nope", 1),
]


@pytest.mark.parametrize(("text", "task", "scheme", "multiple"), PROSE_NUMBERS)
def test_the_prose_quotes_the_table(prose, table, text, task, scheme, multiple):
    assert text in prose, text
    quoted = [float(x) for x in re.findall(r"\d\.\d\d", text)]
    expected = round(mean(table, task, scheme, multiple), 2)
    assert expected in quoted, f"{text!r}: the table's mean is {expected}"


def flatness(table, task: str, scheme: str) -> float:
    """How far the row's mean accuracy moves over the test lengths."""
    means = table[task, scheme].mean(axis=0)
    return float(np.nanmax(means) - np.nanmin(means))


def test_alibi_on_latest_marked_is_the_flattest_row_of_the_positional_tasks(table, prose):
    rows = [(t, s) for t in ("copy", "latest-marked") for s in experiment.SCHEMES if s != "learned"]
    assert min(rows, key=lambda row: flatness(table, *row)) == ("latest-marked", "alibi")
    assert flatness(table, "majority", "nope") < flatness(table, "latest-marked", "alibi")
    assert flatness(table, "majority", "rope") < flatness(table, "latest-marked", "alibi")
    assert "the flattest row of the two tasks that need position (*majority* with NoPE or RoPE" in prose
    assert "the flattest row of the table" not in prose


def test_alibis_penalty_grows_with_distance():
    for head_bias in posenc.alibi_bias(4, 40):
        bias = head_bias[39, ::-1]  # the last query's bias at distances 0 .. 39
        assert np.all(np.diff(bias) < 0)  # the bias falls, so the penalty -bias grows


def test_alibi_penalty_direction_in_the_prose(prose):
    assert "its penalty only grows with distance (its bias only falls)" in prose
    assert "penalty only decreases" not in prose
    assert "ALiBi: a penalty that grows with distance" in prose
    assert "**ALiBi generalises where recency is the answer, and in one layer cannot copy.**" in prose


def test_the_two_schemes_far_below_1_at_L_are_above_chance(table, lesson, prose):
    """The live cell's question has two answers, NoPE and ALiBi, both near 0.33 against a chance of 1/8."""
    low = [s for s in experiment.SCHEMES if mean(table, "copy", s, 1) < 0.9]
    assert sorted(low) == ["alibi", "nope"]
    assert all(round(mean(table, "copy", s, 1), 2) == 0.33 and np.all(seeds(table, "copy", s, 1) > 0.25) for s in low)
    assert all(mean(table, "copy", s, 1) >= 0.99 for s in experiment.SCHEMES if s not in low)
    assert "which scheme can you expect to copy nothing" not in prose
    assert "which two schemes can you expect to stay far below 1 even at $L$" in prose
    answer = folded(lesson, "What the runs show on *copy*")
    assert "NoPE and ALiBi reach only 0.33" in answer and "above chance (0.125) at every query position" in answer
    assert "RoPE and T5 with sized buckets hold (0.99 each, the mean of three seeds)" in answer
    assert round(mean(table, "copy", "rope", 2), 2) == round(mean(table, "copy", "t5-sized", 2), 2) == 0.99
    for scheme in low:  # above chance at every query position, the first queries the most
        for seed in (0, 1, 2):
            model = experiment.train("copy", scheme, length=16, steps=150, batch_size=16, seed=seed)
            batch = model.task.sample(np.random.default_rng(7), 512, 16)
            right = (experiment.predict(model, batch.tokens) == batch.labels)[:, 3:].mean(axis=0)
            assert right.min() > 0.2 and right[:4].mean() > right[-4:].mean()


def copying_head(scheme: str, seed: int) -> dict[str, float]:
    """The position cell's numbers for one seed, computed here: accuracy by block, the copying head at 15 and 127."""
    L, n = 16, 128
    model = experiment.train("copy", scheme, length=L, steps=150, batch_size=16, seed=seed)
    batch = model.task.sample(np.random.default_rng(1), 64, n)
    right = experiment.predict(model, batch.tokens) == batch.labels
    blocks = [right[:, max(s, 3) : s + L].mean() for s in range(0, n, L)]
    weights = experiment.attention_weights(model, model.task.sample(np.random.default_rng(1), 32, n).tokens).mean(
        axis=0
    )
    head = max(range(model.n_heads), key=lambda h: weights[h, 15, 12])
    row = weights[head, n - 1]
    near = [row[n - 1 - d] for d in range(L) if d != 3]
    far = [row[n - 1 - d] for d in range(L, n)]
    near_mean = sum(near) / len(near)
    alone = row[n - 4] / (sum(row[n - 1 - d] for d in range(L)) + len(far) * near_mean)
    return {
        "blocks": blocks,
        "early": weights[head, 15, 12],
        "late": row[n - 4],
        "alone": alone,
        "ratio": (sum(far) / len(far)) / near_mean,
    }


@pytest.fixture(scope="module")
def heads() -> dict[tuple[str, int], dict]:
    return {(scheme, seed): copying_head(scheme, seed) for scheme in ("t5-sized", "rope") for seed in (0, 1, 2)}


def test_the_position_cell_splits_the_accuracy_by_query(run, heads):
    ns = run.namespace
    for scheme in ("t5-sized", "rope"):
        assert ns["by_block"][scheme] == pytest.approx(heads[scheme, 0]["blocks"], abs=1e-12)
        early, late, alone, ratio = ns["weight_on_target"][scheme]
        assert (early, late, alone, ratio) == pytest.approx(
            tuple(heads[scheme, 0][k] for k in ("early", "late", "alone", "ratio")), rel=1e-9
        )
    printed = cell_printing(run, "accuracy by query position").splitlines()
    assert printed[1] == "  t5-sized  1.00 0.98 0.87 0.76 0.68 0.61 0.53 0.50"
    assert printed[2] == "  rope      1.00 0.99 0.36 0.13 0.12 0.11 0.14 0.12"
    assert "t5-sized 0.34 -> 0.051 (dilution alone: 0.06); a far key weighs 1.1 times a near one" in printed[4]
    assert "rope     0.80 -> 0.001 (dilution alone: 0.42); a far key weighs 1,084.6 times a near one" in printed[5]


def test_t5_sized_loses_the_late_queries_to_dilution(heads, lesson, table):
    """Every distance trained, 113 keys in the last bucket at query 127, accuracy falling with the query's position."""
    in_last = sum(transformers_causal_bucket(-d, 16, 16) == 15 for d in range(128))
    assert in_last == 113 and sum(transformers_causal_bucket(-d, 16, 16) == 15 for d in range(16)) == 1
    assert all(transformers_causal_bucket(-d, 16, 16) == min(d, 15) for d in range(16))  # all trained buckets
    for seed in (0, 1, 2):
        blocks, got = heads["t5-sized", seed]["blocks"], heads["t5-sized", seed]
        assert all(b < a for a, b in itertools.pairwise(blocks))  # falls block by block
        assert blocks[0] >= 0.99 and 0.45 <= blocks[-1] <= 0.55
        assert 0.05 <= round(got["late"], 2) <= 0.06 and round(got["alone"], 2) == 0.06
        assert 1.0 <= round(got["ratio"], 1) <= 1.1 and abs(got["late"] - got["alone"]) < 0.01
    answer = folded(lesson, "Does *t5-sized* hold at $8L$?")
    for text in (
        "No, though it stays far above *t5* (0.73 against 0.49)",
        "from 1.00 at queries 0 to 15 to 0.50 at 112 to 127",
        "grows from at most one to 113",
        "falls from 0.34 to 0.05",
        "dilution alone predicts nearly all of it (0.06)",
        "(1.1 times)",
        "its late weight 0.05 to 0.06, dilution alone 0.06 on each, a far key 1.0 to 1.1 times",
    ):
        assert text in answer, text
    assert round(heads["t5-sized", 0]["blocks"][-1], 2) == 0.50 and round(heads["t5-sized", 0]["early"], 2) == 0.34


def test_ropes_drop_is_partly_dilution_mostly_new_angles(heads, lesson):
    answer = folded(lesson, "Does *t5-sized* hold at $8L$?")
    zero = heads["rope", 0]
    assert (round(zero["early"], 2), round(zero["alone"], 2), round(zero["late"], 3)) == (0.80, 0.42, 0.001)
    assert 1000 <= zero["ratio"] < 1100  # "about a thousand times"
    assert "Dilution alone would take its copying head from 0.80 to 0.42" in answer
    assert "about a thousand times a near key, and the weight on the target falls to 0.001" in answer
    assert "partly this dilution, and mostly the new angles of its slow pairs" in answer
    alone = [heads["rope", s]["alone"] for s in (0, 1, 2)]
    ratio = [heads["rope", s]["ratio"] for s in (0, 1, 2)]
    late = [heads["rope", s]["late"] for s in (0, 1, 2)]
    assert (round(min(alone), 2), round(max(alone), 2)) == (0.28, 0.77)
    assert (round(min(ratio)), round(max(ratio))) == (41, 1085)
    assert (round(min(late), 3), round(max(late), 3)) == (0.001, 0.018)
    assert "dilution alone leaves 0.28 to 0.77 on the target, a far key weighs 41 to 1,085 times" in answer
    assert "the late weight is 0.001 to 0.018" in answer
    for seed in (0, 1, 2):  # on every seed: far keys outweigh near ones, and the weight ends far below dilution's
        got = heads["rope", seed]
        assert got["ratio"] > 10 and got["late"] < got["alone"] / 10
        assert got["blocks"][1] >= 0.97 and got["blocks"][-1] < 0.2


def test_the_idea_box_names_what_a_long_input_still_brings(lesson):
    box = lesson.text.split('!!! abstract "The idea in two lines"', 1)[1].split("\n\n", 1)[0]
    box = " ".join(box.split())
    assert "nothing is new" not in box
    assert "a longer input still brings more keys, and they all compete for the weight of each query's softmax" in box


def test_every_main_section_asks_before_it_answers(lesson):
    """A prediction prompt in each main section, its answer folded (??? success) after the cell or exercise."""
    sections = re.split(r"^## ", lesson.text, flags=re.M)
    for title in (
        "Why lengths break",
        "Shaw et al.",
        "Transformer-XL",
        "T5",
        "ALiBi",
        "KERPLE and FIRE",
        "NoPE",
        "Train it yourself",
    ):
        (body,) = [s for s in sections if s.startswith(title)]
        ask = body.index("**Predict before")
        answer = body.index("??? success", ask)
        assert body.index("```pyodide", ask) < answer, f"{title}: the answer must come after the cell"
    assert lesson.text.count("**Predict before") >= 9 and lesson.text.count("??? success") >= 9


def test_learned_cannot_run_past_L(table):
    for task in experiment.TASKS:
        runs = table[task, "learned"]
        assert np.all(runs[:, 0] >= 0.95)
        assert np.isnan(runs[:, 1:]).all()


def test_absolute_sinusoids_fall_off_past_L(table):
    for task in ("copy", "latest-marked"):
        assert np.all(seeds(table, task, "sinusoidal", 1) >= 0.95)
        assert np.all(seeds(table, task, "sinusoidal", 2) <= 0.85)
        assert np.all(seeds(table, task, "sinusoidal", 8) <= 0.5)


def test_rope_holds_to_about_2L(table):
    assert np.all(seeds(table, "copy", "rope", 2) >= 0.95)
    assert np.all(seeds(table, "copy", "rope", 4) <= 0.8)
    assert np.all(seeds(table, "copy", "rope", 8) <= 0.5)


def test_alibi_generalises_on_recency_and_cannot_copy(table):
    assert np.all(table["latest-marked", "alibi"] >= 0.9)  # every length, every seed
    assert np.all(seeds(table, "copy", "alibi", 1) <= 0.4)  # even at L, far below the 1.00 of t5 or rope
    assert np.all(seeds(table, "copy", "alibi", 1) > 1 / 8)  # above chance: recency helps a little


def test_t5_sized_buckets_beat_the_default_past_L(table):
    for multiple in (2, 4, 8):
        assert np.all(seeds(table, "copy", "t5-sized", multiple) >= seeds(table, "copy", "t5", multiple) + 0.1)
    np.testing.assert_array_equal(seeds(table, "copy", "t5", 1), seeds(table, "copy", "t5-sized", 1))  # same training


def test_nope_wins_majority_and_fails_copy(table):
    assert np.all(table["majority", "nope"] >= 0.98)
    for scheme in experiment.SCHEMES:
        if scheme not in ("nope", "learned"):
            assert mean(table, "majority", "nope", 8) > mean(table, "majority", scheme, 8)
    assert np.all(seeds(table, "copy", "nope", 1) <= 0.4)


def test_the_build_cost_is_stated_in_the_author_guide():
    guide = (ROOT / "docs" / "authors.md").read_text(encoding="utf-8")
    assert "lessons/34-relative-position.md" in guide
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^      execute_timeout: (\d+)$", config, flags=re.M)


@pytest.mark.parametrize(
    ("title", "answer"),
    [
        ("T5's buckets for a decoder", ("* (num_buckets - max_exact)", "np.minimum(far", "np.where(n < max_exact")),
        ("Positions from a causal mask", ("weights.sum", "1 / o", "np.rint")),
    ],
)
def test_the_first_hint_leads_and_the_last_is_closest_to_the_answer(lesson, title, answer):
    """The first hint names no piece of the solution's code; the last one holds some of it."""
    hints = exercise(lesson, title).hints
    assert len(hints) >= 3
    assert not any(piece in hints[0] for piece in answer), hints[0]
    assert any(piece in hints[-1] for piece in answer), hints[-1]


def test_every_exercise_hint_leads_before_it_tells(lesson):
    """In every exercise the first hint holds no line of the solution's code."""
    for ex in parse_exercises(lesson.blocks):
        lines = {line.strip() for line in ex.solution.splitlines() if len(line.strip()) > 20}
        assert not any(line in ex.hints[0] for line in lines), (ex.title, ex.hints[0])
        assert len(ex.hints) >= 2, ex.title
