"""A cell's inputs at build time: the ``inputs`` section, its authoring errors at file:line, the
pre-rendered combinations (run in the page's Pyodide after the cells above), the HTML, the notebook."""

from __future__ import annotations

import json
import re

import pytest
from site_project import build, failing_build, lesson_html, make_project

from course_site.errors import LessonError
from course_site.fences import scan, to_cell
from course_site.inputs import bindings, combinations, default_key, precomputed_keys
from course_site.lesson_page import LessonBlocks

PATH = "lessons/inputs.md"

PAGE = """\
# Inputs

```pyodide
offset = 100
```

```pyodide
# --- inputs ---
pos = slider(0, 3, value=1, label="position pos")
method = select(["linear", "yarn"], value="yarn", label="rescaling")
show = checkbox(True, label="show it")
# --- code ---
print(type(pos).__name__, pos + offset, repr(method), show)
```
"""


def cell_of(body: str, header: str = "") -> object:
    [block] = scan(f"# t\n\n```pyodide{header}\n{body}\n```\n", PATH)
    return to_cell(block)


def error_of(body: str, header: str = "") -> str:
    with pytest.raises(LessonError) as caught:
        cell_of(body, header)
    return str(caught.value)


def test_the_inputs_are_bound_as_python_values_of_their_type():
    cell = cell_of(
        "# --- inputs ---\n"
        'pos = slider(0, 63, value=10, step=1, label="position pos")\n'
        'method = select(["linear", "ntk", "yarn", "llama3"], value="yarn", label="rescaling")\n'
        'show_cos = checkbox(True, label="show the cosine columns")\n'
        "factor = slider(0.5, 2.0, value=1.0, step=0.25)\n"
        "# --- code ---\nprint(pos)"
    )
    assert [i.name for i in cell.inputs] == ["pos", "method", "show_cos", "factor"]
    assert bindings(cell.inputs, default_key(cell.inputs)) == (
        "pos = 10\nmethod = 'yarn'\nshow_cos = True\nfactor = 1.0\n"
    )
    assert cell.inputs[3].values == (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
    assert combinations(cell.inputs) == 64 * 4 * 2 * 7
    assert precomputed_keys(cell.inputs, 16) == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x = knob(1, 2)", "unknown kind of input 'knob' (valid: slider, select, checkbox)"),
        ("1x = slider(0, 1)", "the input's name '1x' is not a Python identifier"),
        ("class = checkbox(True)", "the input's name 'class' is not a Python identifier"),
        ("x = slider(0, 10, value=11)", "the slider's value 11 is outside its range 0 to 10"),
        ("x = slider(0, 10, step=3)", "the slider's step 3 does not divide its range 0 to 10 into whole steps"),
        ('x = select(["a", "b"], value="c")', "the select's value 'c' is not among its choices ['a', 'b']"),
        ("x = slider(0, n)", "the argument max=n of slider() is not a literal"),
        ("x = checkbox(1)", "the checkbox's value must be True or False, not 1"),
        ("x = slider(0, 1, colour=2)", "slider() has no argument 'colour'"),
        ("print(x)", "an input is one line `name = kind(arguments)`"),
    ],
)
def test_bad_authoring_fails_at_the_inputs_line(line, message):
    # the fence opens at line 3, the marker is line 4, the first input line 5
    text = error_of(f"# --- inputs ---\nok = checkbox(False)\n{line}\n# --- code ---\nprint(1)")
    assert text.startswith(f"{PATH}:6: ")
    assert message in text


def test_a_repeated_name_fails_at_its_second_line():
    text = error_of("# --- inputs ---\nx = checkbox(True)\n\nx = slider(0, 2)\n# --- code ---\nprint(x)")
    assert text == f"{PATH}:7: the input 'x' is defined twice in this cell"


def test_precompute_is_a_whole_number_and_needs_inputs():
    assert 'precompute="many" must be a whole number' in error_of(
        "# --- inputs ---\nx = checkbox(True)\n# --- code ---\nprint(x)", ' precompute="many"'
    )
    assert error_of("print(1)", " precompute=4").startswith(f"{PATH}:3: precompute=")
    cell = cell_of("# --- inputs ---\nx = slider(0, 40)\n# --- code ---\nprint(x)", " precompute=41")
    assert len(precomputed_keys(cell.inputs, cell.options.precompute)) == 41


def test_every_combination_runs_after_the_cells_above_and_the_defaults_run_last(make_executor):
    blocks = LessonBlocks(PAGE, PATH, 1, make_executor())
    pending = blocks.pending[2]
    assert [o.text for o in pending.outputs] == ["int 101 'yarn' True\n"]
    assert len(pending.variants) == 4 * 2 * 2 - 1
    assert [o.text for o in pending.variants["3,0,0"]] == ["int 103 'linear' False\n"]


def test_a_combination_that_raises_fails_the_build_at_its_line_naming_the_values(make_executor):
    page = "```pyodide\n# --- inputs ---\nk = slider(0, 2, value=1)\n# --- code ---\nprint(1 / (k - 2))\n```\n"
    with pytest.raises(LessonError) as caught:
        LessonBlocks(page, PATH, 1, make_executor())
    assert str(caught.value).startswith(f"{PATH}:5: cell 1 of the page raised with its inputs k=2")


def test_the_page_has_the_inputs_disabled_at_their_defaults_and_every_combination(tmp_path):
    project = make_project(tmp_path, PAGE)
    result = build(project)
    assert result.returncode == 0, result.stderr
    html = lesson_html(project)
    region = re.search(r'<div class="course-cell"[^>]*id="cell-2"[^>]*>', html)[0]
    assert 'data-inputs="pos method show"' in region
    spec = json.loads(re.search(r'data-inputs-spec="([^"]*)"', region)[1].replace("&quot;", '"'))
    assert [s["kind"] for s in spec] == ["slider", "select", "checkbox"]
    fieldset = re.search(r'<fieldset class="course-inputs" disabled>.*?</fieldset>', html, re.S)[0]
    assert "<legend>Inputs</legend>" in fieldset  # the nearest heading above the cell
    assert '<label for="cell-2-input-pos">position pos</label>' in fieldset
    assert re.search(r'<input id="cell-2-input-pos"[^>]*type="range" min="0" max="3" step="1" value="1">', fieldset)
    assert '<option value="1" selected>yarn</option>' in fieldset
    assert re.search(r'type="checkbox" checked>', fieldset)
    assert fieldset.count("<output ") == 1  # the slider's readout: a select and a checkbox show their own value
    assert len(re.findall(r'<template class="course-inputs__variant" data-combination="\d,\d,\d">', fieldset)) == 16
    assert "int 102 &#x27;linear&#x27; True" in fieldset
    assert fieldset.index("</fieldset>") < len(fieldset)
    assert html.index("course-inputs") < html.index('class="course-cell__output"', html.index('id="cell-2"'))
    notebook = json.loads((project / "site/lessons/lesson.ipynb").read_text())
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert any("pos = 1\nmethod = 'yarn'\nshow = True\n" in c for c in code)


def test_too_many_combinations_pre_render_the_defaults_only(tmp_path):
    page = "# L\n\n```pyodide\n# --- inputs ---\nn = slider(0, 20)\n# --- code ---\nprint(n)\n```\n"
    project = make_project(tmp_path, page)
    result = build(project)
    assert result.returncode == 0, result.stderr
    html = lesson_html(project)
    assert html.count('class="course-inputs__variant"') == 0
    assert '<pre class="course-out course-out--stdout">0\n</pre>' in html


def test_a_bad_input_fails_the_build_at_its_file_line(tmp_path):
    page = "# L\n\n```pyodide\n# --- inputs ---\nn = slider(0, 20, value=30)\n# --- code ---\nprint(n)\n```\n"
    errors = failing_build(make_project(tmp_path, page))
    assert "lessons/lesson.md:5: the slider's value 30 is outside its range 0 to 20" in errors


# --------------------------------------------------------------------------- an explorable cell

EXPLORABLE = """\
# Lesson

## Try it: the base of the waves

```pyodide{options}
# --- setup ---
import numpy as np
# --- inputs ---
base = select([100, 10000], value=10000, label="base")
# --- code ---
pairs = 4
slowest = 2 * np.pi * base ** ((pairs - 1) / pairs)
print(f"{{slowest:.0f}}")
```
"""


def explorable_html(tmp_path, options: str = "") -> str:
    project = make_project(tmp_path, EXPLORABLE.format(options=options))
    result = build(project)
    assert result.returncode == 0, result.stderr
    return lesson_html(project)


def order_of(html: str, *names: str) -> list[str]:
    """``names`` (class names in the cell's region) sorted by where each first appears."""
    return sorted(names, key=lambda name: html.index(name))


def test_an_inputs_cell_shows_its_controls_then_its_output_then_its_folded_code(tmp_path):
    html = explorable_html(tmp_path)
    names = ("course-inputs", "course-cell__toolbar", "course-cell__output", "course-cell__code")
    assert order_of(html, *names) == list(names)
    folded = html[html.index('<details class="course-cell__code">') :]  # closed: no "open"
    summary = '<summary class="course-cell__code-summary">Show the code · 3 lines</summary>'
    assert folded.startswith(f'<details class="course-cell__code">{summary}')
    assert folded.index("course-cell__setup") < folded.index("course-cell__static") < folded.index("course-cell__note")
    assert "<legend>Try it: the base of the waves</legend>" in html  # the nearest heading above
    assert 'data-code-layout="folded"' in html


def test_code_shown_keeps_the_code_first_and_a_label_names_the_inputs(tmp_path):
    html = explorable_html(tmp_path, ' code=shown label="Choose a base"')
    names = ("course-cell__static", "course-cell__toolbar", "course-inputs", "course-cell__output")
    assert order_of(html, *names) == list(names)
    assert "course-cell__code" not in html.split('id="cell-1"')[1].split("</fieldset>")[0]
    assert "<legend>Choose a base</legend>" in html


def test_code_folded_folds_a_cell_without_inputs(tmp_path):
    project = make_project(tmp_path, "# L\n\n```pyodide code=folded\nprint(6 * 7)\n```\n")
    assert build(project).returncode == 0
    html = lesson_html(project)
    assert order_of(html, "course-cell__output", "course-cell__code") == ["course-cell__output", "course-cell__code"]
    assert "Show the code · 1 line<" in html


def test_the_alt_option_fills_the_figures_alt_text_from_the_inputs_and_the_variables(tmp_path):
    page = """\
# L

```pyodide alt="Waves of base {base}: the slowest is {slowest:.0f} positions long"
# --- inputs ---
base = select([100, 10000], value=10000, label="base")
# --- code ---
import matplotlib.pyplot as plt
slowest = 2 * 3.14159 * base ** 0.75
plt.plot([0, 1], [0, slowest])
```
"""
    project = make_project(tmp_path, page)
    result = build(project)
    assert result.returncode == 0, result.stderr
    html = lesson_html(project)
    assert 'alt="Waves of base 10000: the slowest is 6283 positions long"' in html  # the defaults' figure
    assert 'alt="Waves of base 100: the slowest is 199 positions long"' in html  # the other, pre-rendered


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ' alt="{nowhere} moves"',
            "'nowhere' is neither an input nor a variable of the cell (they are: base, np, pairs, slowest)",
        ),
        (' alt="an {unclosed"', "alt=\"an {unclosed\": expected '}' before end of string"),
        (" code=hidden", 'code="hidden" must be "shown" or "folded"'),
        (' label=""', 'label="" needs a text'),
    ],
)
def test_a_wrong_explorable_option_fails_the_build_at_the_fence(tmp_path, options, message):
    stderr = failing_build(make_project(tmp_path, EXPLORABLE.format(options=options)))
    assert "lessons/lesson.md:5: " in stderr and message in stderr, stderr
