"""Each lesson's notebook: linked from its page, valid nbformat, and it runs top to bottom in CPython.

The notebook's code cells run in order in one namespace with the repository's posenc; every
exercise's check cell prints a verdict (the starter's "not yet"), and the exercise's solution
(from its task cell) then passes the same check. A notebook works outside the site: it names no
made-up host, links no ``.md`` file, and says nothing that only the page can do (a slider, a
checkbox, output computed when the site was built); an inputs cell starts with its values.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

from course_site.lesson_page import LessonBlocks
from course_site.notebook import Source, lesson_notebook
from course_site.strings import s

matplotlib.use("agg")
ROOT = Path(__file__).resolve().parents[2]
PASSED = "All checks passed."
LINK = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download>(?P<text>[^<]*)</a>')
SOLUTION = re.compile(r"<summary>Solution</summary>\n\n```python\n(?P<code>.*?)\n```", re.DOTALL)
URL = re.compile(r"https?://(?P<host>[^/\s)>\]`'\"]+)")
MD_LINK = re.compile(r"\]\((?![a-z]+://)[^)\s]*\.md(?:#[^)]*)?\)")
PAGE_ONLY = re.compile(
    r"\bslider|\bcheckbox|drop-?down|\bdrag\b|arrow keys|\bmenus?\b|site was built|before python has started",
    re.IGNORECASE,
)


def lesson_pages(site: Path) -> list[Path]:
    return sorted((site / "lessons").glob("*/index.html"))


def notebook_of(page: Path) -> nbformat.NotebookNode:
    found = LINK.search(page.read_text())
    assert found and found["text"] == s("notebook.link"), f"{page}: no link {s('notebook.link')!r}"
    notebook = nbformat.read(page.parent / found["href"], as_version=4)
    nbformat.validate(notebook)
    return notebook


def run_cell(source: str, namespace: dict, name: str) -> str:
    printed = io.StringIO()
    # The lessons set numpy's print options: they are put back after each cell, for the tests that follow.
    with contextlib.redirect_stdout(printed), np.printoptions():
        exec(compile(source, name, "exec"), namespace)
    return printed.getvalue()


def test_every_lesson_page_links_a_valid_notebook_with_tex_and_build_outputs(built_site: Path):
    pages = lesson_pages(built_site)
    assert len(pages) >= 2
    for page in pages:
        notebook = notebook_of(page)
        prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert "$" in prose and "<math" not in prose  # math as TeX, from the Markdown source
        outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
        assert any(o.output_type == "stream" for o in outputs), page
    figures = [
        o
        for page in pages
        for c in notebook_of(page).cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert figures, "no build-time figure reached a notebook"


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_notebook_runs_in_order_in_cpython_and_its_checks_give_verdicts(built_site: Path, index: int):
    notebook = notebook_of(lesson_pages(built_site)[index])
    namespace: dict = {"__name__": "__main__"}
    tasks = iter(SOLUTION.search(c.source) for c in notebook.cells if c.cell_type == "markdown")
    solutions = [m["code"] for m in tasks if m]
    checks = []
    for k, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        printed = run_cell(cell.source, namespace, f"<notebook cell {k}>")
        if cell.source.startswith("# Check exercise"):
            checks.append(cell.source)
            assert printed.strip() and PASSED not in printed, f"cell {k}: the starter's verdict: {printed!r}"
    assert len(checks) == len(solutions) >= 3
    for solution, check in zip(solutions, checks, strict=True):
        run_cell(solution, namespace, "<solution>")
        assert run_cell(check, namespace, "<check>").strip() == PASSED


def test_an_exercises_task_cell_holds_its_task_section(built_site: Path):
    """The task the page shows above the editor is the notebook's task too, as Markdown."""
    notebook = notebook_of(lesson_pages(built_site)[0])
    tasks = [c.source for c in notebook.cells if c.cell_type == "markdown" and c.source.startswith("**Exercise 1:")]
    assert len(tasks) == 1
    assert "Write `repeat_after(i, d_model)`" in tasks[0] and "$k \\ge 1$" in tasks[0]


def made_up(host: str) -> bool:
    """A host reserved for examples (RFC 2606: example.com, *.example, *.test, *.invalid) or named "example"."""
    labels = host.lower().split(":")[0].split(".")
    return "example" in labels or labels[-1] in {"example", "invalid", "test"}


def test_made_up_hosts_are_recognised():
    assert made_up("example.github.io") and made_up("example.com") and made_up("docs.example")
    assert not made_up("learner.github.io") and not made_up("127.0.0.1:8000")


def test_a_notebook_names_no_made_up_host_links_no_md_file_and_says_nothing_page_only(built_site: Path):
    for page in lesson_pages(built_site):
        notebook = notebook_of(page)
        for k, cell in enumerate(notebook.cells):
            hosts = [m["host"] for m in URL.finditer(cell.source)]
            assert not [h for h in hosts if made_up(h)], f"{page.parent.name} cell {k}: a made-up host in {hosts}"
            if cell.cell_type != "markdown":
                continue
            assert not MD_LINK.search(cell.source), f"{page.parent.name} cell {k} links a .md file: {cell.source!r}"
            found = PAGE_ONLY.search(cell.source)
            assert not found, f"{page.parent.name} cell {k}: {found[0]!r} only makes sense on the page"
            assert "<!--" not in cell.source, f"{page.parent.name} cell {k}: a page/notebook marker is left"


def test_without_a_site_address_the_notebook_says_how_to_get_posenc(built_site: Path):
    """The test build has no SITE_URL: the introduction names no host and says where posenc comes from."""
    notebook = notebook_of(lesson_pages(built_site)[0])
    intro = notebook.cells[0].source
    assert "`pip install numpy matplotlib`" in intro and "`pip install .`" in intro and "src/posenc/" in intro
    wheel = re.search(
        r"`(assets/course/wheels/[0-9a-f]+/(posenc-[^`/]+\.whl))` \(download it, then `pip install \2`\)", intro
    )
    assert wheel, intro
    assert (built_site / wheel[1]).is_file()  # the wheel it names is the one the site serves
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "(33-rope-long-context.ipynb)" in prose  # the next lesson's notebook, beside this one
    assert (built_site / "lessons" / "33-rope-long-context.ipynb").is_file()
    assert "](#A-fingerprint-for-every-position)" in prose  # a heading of this notebook, as Jupyter names it
    flat = " ".join(prose.split())
    assert "Set `d_model` and `pos` in the cell's first lines and run it, once for each width." in flat


def test_an_inputs_cell_starts_with_the_values_to_change_and_what_each_may_be(built_site: Path):
    for page in lesson_pages(built_site):
        cells = [
            c.source for c in notebook_of(page).cells if c.cell_type == "code" and "# The values to change" in c.source
        ]
        assert cells, page
        for source in cells:
            lines = source.splitlines()
            assert lines[0] == "# The values to change, then run the cell again:"
            comments = [line for line in lines[1:] if line.startswith("#   ")]
            assignments = lines[1 + len(comments) : 1 + 2 * len(comments)]
            assert comments and len(assignments) == len(comments)
            for comment, assignment in zip(comments, assignments, strict=True):
                name = assignment.split(" = ")[0]
                assert comment.startswith(f"#   {name}: ")
                assert re.search(r"one of |a whole number from |a number from |True or False", comment)


PAGE = """# 40 · A lesson

Read [the next lesson](41-next.md#its-start) and [the part below](#the-part-below).
<!-- page -->Move the slider.<!-- /page --><!-- notebook: Change `n` and run the cell again. -->

## The part below

```pyodide
# --- inputs ---
n = slider(0, 20, value=4, step=2, label="how many")
method = select(["a", "b"], value="b")
show = checkbox(True)
# --- code ---
print(n, method, show)
```
"""
PATH = "lessons/40-a-lesson.md"
WHEEL = "assets/course/wheels/0123456789abcdef/posenc-0.1.0-py3-none-any.whl"


def _page_notebook(site: str) -> nbformat.NotebookNode:
    source = Source(PAGE, 1, f"{site}lessons/40-a-lesson/", f"pip install numpy matplotlib {site}{WHEEL}")
    return lesson_notebook(source, LessonBlocks(PAGE, PATH, 1, None))


def test_with_a_real_site_address_the_notebook_links_the_sites_pages():
    notebook = _page_notebook("https://learner.github.io/course/")
    intro, prose = notebook.cells[0].source, notebook.cells[1].source
    assert "<https://learner.github.io/course/lessons/40-a-lesson/>" in intro
    assert f"`pip install numpy matplotlib https://learner.github.io/course/{WHEEL}`" in intro
    assert "[the next lesson](https://learner.github.io/course/lessons/41-next/#its-start)" in prose
    assert "[the part below](#The-part-below)" in prose
    assert "Change `n` and run the cell again." in prose and "slider" not in prose and "<!--" not in prose


def test_with_the_placeholder_address_the_notebook_names_no_host():
    notebook = _page_notebook("https://example.github.io/transformer-course/")
    text = "\n".join(cell.source for cell in notebook.cells)
    assert "example" not in text
    assert f"`{WHEEL}` (download it, then `pip install posenc-0.1.0-py3-none-any.whl`)" in notebook.cells[0].source
    assert "the lesson “40 · A lesson”" in notebook.cells[0].source
    assert "[the next lesson](41-next.ipynb#its-start)" in notebook.cells[1].source


def test_the_inputs_become_the_first_lines_with_what_each_may_hold():
    (code,) = [c.source for c in _page_notebook("https://learner.github.io/course/").cells if c.cell_type == "code"]
    assert code.startswith(
        "# The values to change, then run the cell again:\n"
        "#   n: how many, a whole number from 0 to 20 in steps of 2\n"
        "#   method: one of 'a', 'b'\n"
        "#   show: True or False\n"
        "n = 4\nmethod = 'b'\nshow = True\n"
    )


FOLDED_PAGE = """# 40 · A lesson

!!! abstract "The idea"
    Stated in plain view.

Run the cell, then read:

??? success "What the widths show"
    The answer, folded.

    A second paragraph.

???+ tip "Open from the start"
    Shown unfolded.
"""


def test_a_folded_answer_stays_folded_in_the_notebook():
    """``???`` is ``<details>`` (folded), ``???+`` ``<details open>``; ``!!!`` stays a block quote in plain view."""
    source = Source(FOLDED_PAGE, 1, "https://learner.github.io/course/lessons/40-a-lesson/", "pip install posenc")
    (prose,) = [c.source for c in lesson_notebook(source, LessonBlocks(FOLDED_PAGE, PATH, 1, None)).cells[1:]]
    assert "> **The idea**\n>\n> Stated in plain view." in prose
    assert (
        "<details><summary>What the widths show</summary>\n\nThe answer, folded.\n\nA second paragraph.\n\n</details>"
        in prose
    )
    assert "<details open><summary>Open from the start</summary>\n\nShown unfolded.\n\n</details>" in prose
    assert "> The answer" not in prose and "> Shown" not in prose


def test_the_lessons_folded_answers_are_folded_in_their_notebooks(built_site: Path):
    """Every ``??? success`` answer of a lesson is a ``<details>`` block of its notebook, none a block quote."""
    for page in lesson_pages(built_site):
        markdown = "\n".join(c.source for c in notebook_of(page).cells if c.cell_type == "markdown")
        source = (ROOT / "lessons" / f"{page.parent.name}.md").read_text(encoding="utf-8")
        titles = re.findall(r'^\?\?\? \w+ "([^"]+)"$', source, flags=re.M)
        for title in titles:
            assert f"<details><summary>{title}</summary>" in markdown, f"{page.parent.name}: {title!r} is not folded"
            assert f"> **{title}**" not in markdown, f"{page.parent.name}: {title!r} is an open block quote"
