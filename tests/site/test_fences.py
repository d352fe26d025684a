"""The scanner and validators behind ```pyodide and ```quiz fences: lines and messages."""

from __future__ import annotations

import pytest

from course_site.errors import LessonError
from course_site.fences import CellOptions, scan, to_cell
from course_site.quiz import parse_quiz, render_quiz

PAGE = """\
# Title

```pyodide height="8" autorun="true"
# --- setup ---
import math

# --- code ---
print(math.pi)
```

!!! note
    ```pyodide
    x = 1
    x + 1
    ```

````markdown
```pyodide
not a cell, an example in an author guide
```
````
"""


def test_scan_finds_cells_with_lines_and_skips_examples_in_other_fences():
    blocks = scan(PAGE, "lessons/page.md")
    assert [(b.lang, b.line) for b in blocks] == [("pyodide", 3), ("pyodide", 12)]
    assert blocks[1].body == "x = 1\nx + 1"


def test_setup_and_code_sections_keep_their_markdown_lines():
    cell = to_cell(scan(PAGE, "lessons/page.md")[0])
    assert cell.setup == "import math"
    assert cell.code == "print(math.pi)"
    assert (cell.setup_line, cell.code_line) == (5, 8)
    assert cell.options == CellOptions(height=8, autorun=True, execute=True)


def test_cell_without_markers_is_all_code():
    cell = to_cell(scan(PAGE, "lessons/page.md")[1])
    assert (cell.setup, cell.code, cell.code_line) == ("", "x = 1\nx + 1", 13)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ('```pyodide heigth="3"', "unknown option 'heigth'"),
        ('```pyodide height="2"', 'height="2" must be a whole number of lines from 3 to 40'),
        ('```pyodide height="ten"', 'height="ten" must be a whole number'),
        ('```pyodide autorun="yes"', 'autorun="yes" must be "true" or "false"'),
    ],
)
def test_bad_option_names_file_and_line(header, message):
    page = f"intro\n\n{header}\nprint(1)\n```\n"
    with pytest.raises(LessonError, match=message) as caught:
        to_cell(scan(page, "lessons/bad.md")[0])
    assert str(caught.value).startswith("lessons/bad.md:3: ")


def test_unknown_section_and_unclosed_fence():
    with pytest.raises(LessonError, match=r"lessons/s\.md:4: unknown section '# --- env ---'"):
        to_cell(scan("\n\n```pyodide\n# --- env ---\nx = 1\n```\n", "lessons/s.md")[0])
    with pytest.raises(LessonError, match=r"lessons/u\.md:1: the ```pyodide fence is never closed"):
        scan("```pyodide\nx = 1\n", "lessons/u.md")


QUIZ = """\
```quiz
Why *order*?

- [ ] Speed.
    Not about speed.
- [x] Attention is permutation-equivariant.
    It sees a set: $P\\,\\mathrm{Attn}(X)$.
```
"""


def test_quiz_parses_and_renders_accessible_form():
    quiz = parse_quiz(scan(QUIZ, "lessons/q.md")[0])
    assert [o.correct for o in quiz.options] == [False, True]
    html = render_quiz(quiz, 2)
    assert '<form class="course-quiz" id="quiz-2" novalidate>' in html
    assert html.count('type="radio"') == 2 and 'name="quiz-2"' in html
    assert "<fieldset><legend" in html and "<em>order</em>" in html
    assert '<details class="course-quiz__answers">' in html
    assert 'data-correct="true"' in html and "Not about speed." in html
    assert 'class="arithmatex"' in html  # turned into MathML with the rest of the page


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("Q?\n\n- [ ] a\n    why a\n- [ ] b\n    why b", "exactly one right option marked '- \\[x\\]', found 0"),
        ("Q?\n\n- [x] a\n    why a\n- [x] b\n    why b", "found 2"),
        ("Q?\n\n- [x] a\n- [ ] b\n    why b", r"q\.md:6: every option needs an explanation"),
        ("- [x] a\n    why\n- [ ] b\n    why", "no question"),
        ("Q?\n\n- [x] only\n    why", "at least two options"),
    ],
)
def test_bad_quiz_names_file_and_line(body, message):
    with pytest.raises(LessonError, match=message):
        parse_quiz(scan(f"\n\n```quiz\n{body}\n```\n", "lessons/q.md")[0])
