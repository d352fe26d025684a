"""The scanner and validators behind ```pyodide and ```quiz fences: lines and messages."""

from __future__ import annotations

import pytest

from course_site.errors import LessonError
from course_site.fences import CellOptions, fence_block, misspelled, scan, tag_blocks, to_cell
from course_site.lesson_page import LessonBlocks, PendingCell, PendingQuiz
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


def test_tagging_puts_each_blocks_number_in_place_of_its_options_and_changes_nothing_else():
    tagged, blocks = tag_blocks(PAGE, "lessons/page.md")
    assert [b.line for b in blocks] == [3, 12]
    assert blocks[0].options == {"height": "8", "autorun": "true"}
    assert tagged.splitlines()[2] == '```pyodide course_block="1"'
    assert tagged.splitlines()[11] == '    ```pyodide course_block="2"'
    untagged = tagged.replace(' course_block="1"', ' height="8" autorun="true"').replace(' course_block="2"', "")
    assert untagged == PAGE
    assert tag_blocks("```{.pyodide height=5}\nx\n```", "p.md")[0].startswith('```{.pyodide course_block="1"}\n')


def test_option_values_may_be_unquoted():
    [block] = scan("```pyodide height=10 autorun=true execute='false'\nx = 1\n```\n", "lessons/p.md")
    assert to_cell(block).options == CellOptions(height=10, autorun=True, execute=False)


def test_lines_count_from_the_first_line_after_front_matter():
    with pytest.raises(LessonError, match=r"^lessons/f\.md:7: autorun="):
        LessonBlocks("text\n\n```pyodide autorun=maybe\nx\n```\n", "lessons/f.md", 5, None)


def test_blocks_are_taken_by_number_whatever_their_text():
    page = "```pyodide\nx = 1\n```\n\n```pyodide\nx = 1\n```\n\n" + QUIZ
    blocks = LessonBlocks(page, "lessons/p.md", 1, None)
    second = blocks.take("pyodide", "ignored", {"course_block": "2"})
    assert isinstance(second, PendingCell) and (second.index, second.cell.block.line) == (2, 5)
    with pytest.raises(LessonError, match=r"^lessons/p\.md:1: this ```pyodide fence was not rendered"):
        blocks.check_all_taken()
    assert isinstance(blocks.take("quiz", "", {"course_block": "3"}), PendingQuiz)
    assert blocks.take("pyodide", "", {"course_block": "1"}).index == 1
    blocks.check_all_taken()


def test_fence_made_by_another_plugin_is_parsed_when_rendered_without_file_lines():
    blocks = LessonBlocks("```pyodide\nx = 1\n```\n", "lessons/p.md", 1, None)
    made = blocks.take("pyodide", "# --- setup ---\ny = 2\n# --- code ---\nprint(y)\n", {"autorun": "true"})
    assert isinstance(made, PendingCell) and made.index == 2 and made.outputs == []
    cell = made.cell
    assert (cell.setup, cell.code, cell.code_line, cell.block.line) == ("y = 2", "print(y)", 4, None)
    assert made.cell.options.autorun
    with pytest.raises(LessonError, match=r"^lessons/p\.md: unknown option 'heigth'"):
        to_cell(fence_block("pyodide", "x = 1", {"heigth": "3"}, "lessons/p.md"))
    with pytest.raises(LessonError, match=r"^lessons/p\.md: unknown section"):
        to_cell(fence_block("pyodide", "# --- env ---\nx = 1", {}, "lessons/p.md"))


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
    assert '<details class="course-quiz__answers" data-search-exclude>' in html  # not searchable
    assert 'data-correct="true"' in html and "Not about speed." in html
    assert 'class="arithmatex"' in html  # turned into MathML with the rest of the page


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("Q?\n\n- [ ] a\n    why a\n- [ ] b\n    why b", r"q\.md:6: .*exactly one right option marked .*, found 0"),
        ("Q?\n\n- [x] a\n    why a\n- [x] b\n    why b", r"q\.md:8: .*found 2 \(lines 6, 8\)"),
        ("Q?\n\n- [x] a\n- [ ] b\n    why b", r"q\.md:6: every option needs an explanation"),
        ("- [x] a\n    why\n- [ ] b\n    why", "no question"),
        ("Q?\n\n- [x] only\n    why", "at least two options"),
    ],
)
def test_bad_quiz_names_file_and_line(body, message):
    with pytest.raises(LessonError, match=message):
        parse_quiz(scan(f"\n\n```quiz\n{body}\n```\n", "lessons/q.md")[0])


def test_a_quiz_that_another_plugin_adds_is_parsed_rendered_and_numbered_after_the_pages_quizzes():
    blocks = LessonBlocks(QUIZ, "lessons/p.md", 1, None)
    quiz_body = QUIZ.split("\n", 1)[1].rsplit("```", 1)[0]
    late = [blocks.take("quiz", quiz_body, {}) for _ in range(2)]
    expected = render_quiz(parse_quiz(fence_block("quiz", quiz_body, {}, "lessons/p.md")), 2)
    assert isinstance(late[0], PendingQuiz) and late[0].html == expected
    assert 'id="quiz-3"' in late[1].html  # each late quiz takes the next number
    with pytest.raises(LessonError, match=r"^lessons/p\.md: .*exactly one right option"):
        blocks.take("quiz", "Q?\n\n- [ ] a\n    why\n- [ ] b\n    why", {})


def test_a_late_fences_body_loses_only_its_surrounding_newlines():
    """The first line's indentation and every other character are the author's."""
    assert fence_block("pyodide", "\n\n  x = 1\nprint(x)\n\n", {}, "lessons/p.md").body == "  x = 1\nprint(x)"
    assert fence_block("pyodide", "\nX = 1\nX\n", {}, "lessons/p.md").body == "X = 1\nX"


def test_the_pages_quizzes_are_numbered_in_page_order():
    second = QUIZ.replace("Why *order*?", "Why *position*?")
    blocks = LessonBlocks("```pyodide\nx = 1\n```\n\n" + QUIZ + "\n" + second, "lessons/p.md", 1, None)
    quizzes = [item.html for item in blocks.pending.values() if isinstance(item, PendingQuiz)]
    assert quizzes == [
        render_quiz(parse_quiz(block), number)
        for number, block in enumerate(scan(QUIZ + "\n" + second, "lessons/p.md"), start=1)
    ]
    assert 'id="quiz-1"' in quizzes[0] and 'id="quiz-2"' in quizzes[1]


def test_a_cell_with_only_a_setup_section_has_no_visible_code():
    with pytest.raises(LessonError, match=r"^lessons/p\.md:1: the ```pyodide cell has no visible code$"):
        to_cell(scan("```pyodide\n# --- setup ---\nx = 1\n```\n", "lessons/p.md")[0])


def test_an_error_with_detail_puts_it_on_the_lines_after_the_message():
    error = LessonError("lessons/p.md", 4, "the cell raised", "Traceback:\n  ZeroDivisionError")
    assert str(error) == "lessons/p.md:4: the cell raised\nTraceback:\n  ZeroDivisionError"
    assert error.detail == "Traceback:\n  ZeroDivisionError"


def test_fences_without_a_language_empty_or_back_to_back_are_skipped_or_found_whole():
    page = "```\nplain\n```\n```text\n```\n```pyodide\nx = 1\n```\n```pyodide\ny = 2\n```\n"
    assert [(b.line, b.body) for b in scan(page, "lessons/p.md")] == [(6, "x = 1"), (9, "y = 2")]


def test_body_lines_indented_less_than_the_fence_keep_their_text():
    page = "- item\n\n    ```pyodide\n    x = 1\nprint(x)\n  y = 2\n    ```\n"
    assert scan(page, "lessons/p.md")[0].body == "x = 1\nprint(x)\ny = 2"


def test_heights_at_both_ends_of_the_range_are_accepted():
    for height in (3, 40):
        [block] = scan(f"```pyodide height={height}\nx = 1\n```\n", "lessons/p.md")
        assert to_cell(block).options.height == height


def test_options_in_a_braced_header_lose_only_the_closing_brace():
    [block] = scan("```{.pyodide height=5 autorun=true}\nx = 1\n```\n", "lessons/p.md")
    assert block.options == {"height": "5", "autorun": "true"}
    [block] = scan("```{.pyodide exercise=Find_X}\nx = 1\n```\n", "lessons/p.md")
    assert block.options == {"exercise": "Find_X"}


@pytest.mark.parametrize(
    ("mistake", "message"),
    [
        pytest.param(
            lambda: LessonBlocks("text\n\n```pyodide\nx = 1\n```\n", "lessons/p.md", 1, None).check_all_taken(),
            "lessons/p.md:3: this ```pyodide fence was not rendered; fences must start a line "
            "(inside admonitions and tabs, indent them like the text)",
            id="a fence that was never rendered",
        ),
        pytest.param(
            lambda: parse_quiz(scan("```quiz\nQ?\n\n- [x] a\n    why\n- [x] b\n    why\n```\n", "lessons/q.md")[0]),
            "lessons/q.md:6: a quiz needs exactly one right option marked '- [x]', found 2 (lines 4, 6): "
            "keep '- [x]' on the right one, '- [ ]' on the others",
            id="two right options",
        ),
        pytest.param(
            lambda: scan("intro\n```pyodide =3\nx = 1\n```\n", "lessons/p.md"),
            "lessons/p.md:2: cannot read the fence option '=3'",
            id="an unreadable option",
        ),
        pytest.param(
            lambda: scan("intro\n```pyodide height=3 !x y\nx = 1\n```\n", "lessons/p.md"),
            "lessons/p.md:2: cannot read the fence option '!x'",
            id="an unreadable option after a readable one",
        ),
        pytest.param(
            lambda: to_cell(scan("```pyodide heigth=3\nx = 1\n```\n", "lessons/p.md")[0]),
            "lessons/p.md:1: unknown option 'heigth' on a ```pyodide fence "
            "(valid options: alt, autorun, code, execute, height, label, precompute)",
            id="an unknown option",
        ),
        pytest.param(
            lambda: to_cell(scan("text\n```pyodide\nx = 1\n# --- code ---\ny = 2\n```\n", "lessons/p.md")[0]),
            "lessons/p.md:3: code before the first '# --- ... ---' marker",
            id="code before the first marker",
        ),
    ],
)
def test_a_mistake_is_reported_in_full_at_its_file_and_line(mistake, message):
    """What the build says, word for word: where, what, and what to do where there is a choice."""
    with pytest.raises(LessonError) as caught:
        mistake()
    assert str(caught.value) == message


def test_blank_lines_around_markers_are_trimmed_and_lines_point_at_the_text():
    page = "```pyodide\n\n\n# --- setup ---\n\nimport math\n# --- code ---\n\n\nprint(math.pi)\n```\n"
    cell = to_cell(scan(page, "lessons/p.md")[0])
    assert (cell.setup, cell.setup_line, cell.code, cell.code_line) == ("import math", 6, "print(math.pi)", 10)


def test_a_fence_within_two_edits_of_a_course_language_is_a_misspelling_at_its_line():
    page = "# T\n\n```pyodid\nx\n```\n\n```Pyodide\nx\n```\n\n```qiuz\nQ\n```\n\n```python\nx\n```\n\n```py\nx\n```\n"
    found = misspelled(page, "lessons/page.md")
    assert [(m.line, m.lang, m.meant) for m in found] == [
        (3, "pyodid", "pyodide"),
        (7, "Pyodide", "pyodide"),
        (11, "qiuz", "quiz"),
    ]
    assert str(found[0].error()).startswith("lessons/page.md:3: ```pyodid fence: did you mean `pyodide`?")


def test_a_misspelled_fence_with_options_is_the_cause_reported_for_the_fence_after_it():
    page = '# T\n\nText.\n\n```pyodid height="10"\nprint(1)\n```\n\n```pyodide\nprint(2)\n```\n'
    blocks = LessonBlocks(page, "lessons/page.md", 1, None)
    assert [m.line for m in blocks.misspelled] == [5]
    with pytest.raises(LessonError) as caught:
        blocks.check_all_taken()  # the renderer paired the typo's closing line with line 9's opening
    assert caught.value.line == 5
    assert "did you mean `pyodide`?" in str(caught.value) and "at line 9 is not rendered" in str(caught.value)
