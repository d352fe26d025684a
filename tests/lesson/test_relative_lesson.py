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

import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc
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
    assert run.figures.count(1) == 2  # the penalties and the experiment's accuracy plot
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
    assert "the pairs from $\\lambda = 35$ on step out, and 17 of the 32 columns by more than 0.1" in prose
    printed = cell_printing(run, "columns more than 0.1 outside")
    assert printed.splitlines()[-1] == "columns more than 0.1 outside their training range: 17 of 32"
    np.testing.assert_allclose(run.namespace["beyond"], beyond, atol=1e-12)


# --- Shaw et al. -----------------------------------------------------------------------------


def test_shaw_indices_are_the_clipped_offsets(run):
    index = run.namespace["index"]
    k = 2
    assert index.tolist() == [[min(max(j - i, -k), k) + k for j in range(6)] for i in range(6)]
    assert "same vector along each diagonal: True" in cell_printing(run, "a^K shape")


# --- Transformer-XL --------------------------------------------------------------------------


def test_transformer_xl_terms_depend_on_the_offset_only(run):
    printed = cell_printing(run, "terms (a)-(d)")
    assert printed.splitlines()[-1] == "unchanged: True"
    ns = run.namespace
    q = ns["W_q"] @ ns["E"][0]
    for shift in (0, 17, 40):
        i, j = 5 + shift, 2 + shift
        position = ns["R"][i - j]
        assert q @ (ns["W_kR"] @ position) == pytest.approx(ns["near"][1], abs=1e-12)
        assert ns["v"] @ (ns["W_kR"] @ position) == pytest.approx(ns["near"][3], abs=1e-12)


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
    assert lines[-1] == "bucket 31: distances 113 to ...  (888 distances)"
    assert posenc.t5_relative_bucket(-40, bidirectional=False) == transformers_causal_bucket(-40) == 23


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


# --- KERPLE and FIRE -------------------------------------------------------------------------


def test_kerple_and_fire_values(run):
    ns = run.namespace
    assert ns["log_kernel"][[1, 8, 64]] == pytest.approx([-2 * math.log(1 + 0.5 * d) for d in (1, 8, 64)])
    assert ns["power_kernel"][[1, 4, 64]] == pytest.approx([-1.0, -2.0, -8.0])
    psi = [math.log(0.1 * d + 1) / math.log(0.1 * 64 + 1) for d in range(65)]
    assert ns["fire"] == pytest.approx(psi)
    assert "FIRE's input spans 0.0 to 1.0" in cell_printing(run, "FIRE's input spans")


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
