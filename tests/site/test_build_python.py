"""Build-time runs happen in the learner's Python: the site's Pyodide under Node, with its limits.

A cell that would fail in the browser fails the build at its line, and the pre-rendered
output is what a first Run shows, output limit included.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from course_site.cells import _outputs as render_outputs
from course_site.errors import LessonError
from course_site.execute import PageExecutor
from course_site.fences import CELL, scan, to_cell
from course_site.worker_settings import OutputLimits

PATH = "lessons/lesson.md"
PYODIDE_VERSION = json.loads((Path(__file__).resolve().parents[2] / "pyodide_assets/manifest.json").read_text())[
    "pyodide_version"
]


def cells_of(markdown: str) -> list:
    return [to_cell(block) for block in scan(markdown, PATH) if block.lang == CELL]


def run_page(runner: PageExecutor, markdown: str) -> list:
    return runner.run(cells_of(markdown))


NOTEBOOK_HABITS = """\
```pyodide
import asyncio
async def later():
    await asyncio.sleep(0)
    return "from cell 1"
task = asyncio.ensure_future(later())
```

```pyodide
await task
```

```pyodide
import sys, numpy, matplotlib.pyplot as plt
plt.plot([1]); plt.title("At show")
plt.show()
print("after", sys.version_info[:2], numpy.__version__)
```

```pyodide
for i in range(100_000):
    print(i)
"last"
```
"""


def test_cells_run_in_the_sites_pyodide_as_a_notebook_with_the_browsers_output_limit(
    make_executor, local_python, tmp_path: Path
):
    limits = OutputLimits(lines=50, chars=200_000)
    outputs = run_page(make_executor(limits=limits), NOTEBOOK_HABITS)
    first, awaited, figure, flood = outputs
    assert first == []
    assert [(o.kind, o.text) for o in awaited] == [("result", "'from cell 1'")]  # one event loop per page
    # plt.show() shows the figure where it is called; Python 3.12 and numpy 2.0.2, as in the browser.
    shown = [("figure", "Line plot titled “At show”"), ("stdout", "after (3, 12) 2.0.2\n")]
    assert [(o.kind, o.text) for o in figure] == shown
    assert figure[0].png.startswith(b"\x89PNG")
    # Capped as the worker caps it: 50 lines kept, the notice, the result, then what was dropped.
    kinds = [o.kind for o in flood]
    assert kinds == ["stdout", "capped", "result", "dropped"]
    assert flood[0].text == "".join(f"{i}\n" for i in range(50))
    assert flood[1].text == "Output limit reached (50 lines or 200 kB per run); the rest is dropped."
    assert flood[3].text == "… 99,950 lines dropped (0.6 MB of output not shown)."
    html = render_outputs(flood, figure_url=lambda png: "", index=1).html
    assert '<p class="course-cell__notice course-cell__notice--info">Output limit reached' in html
    assert '<p class="course-cell__notice course-cell__notice--dropped">… 99,950 lines dropped' in html
    # The cache key does not depend on where the files are: the same Python, said to be where
    # nothing is, finds these outputs in the cache.
    moved = dataclasses.replace(local_python, index=tmp_path / "elsewhere", lock=tmp_path / "elsewhere/lock.json")
    assert run_page(make_executor(limits=limits, python=moved), NOTEBOOK_HABITS) == outputs


@pytest.mark.parametrize(
    ("code", "line", "said"),
    [
        pytest.param(
            "import numpy as np\nparts = np.unstack(np.eye(2))",
            5,
            [
                "AttributeError: module 'numpy' has no attribute 'unstack'",
                f"Pyodide {PYODIDE_VERSION} (Python 3.12.7) with numpy 2.0.2, matplotlib 3.8.4",
            ],
            id="an API newer than the shipped numpy",
        ),
        pytest.param(
            "import numpy\nimport scipy.special",
            5,
            ["ModuleNotFoundError: No module named 'scipy'\nmodule 'scipy' is not available"],
            id="a module the site does not ship",
        ),
        pytest.param(
            "import asyncio\nawait asyncio.sleep(0)\nraise ValueError('late')",
            6,
            [f'File "{PATH}", line 6', "ValueError: late"],
            id="an error in an awaiting cell",
        ),
    ],
)
def test_a_cell_that_would_fail_in_the_browser_fails_at_its_line(make_executor, code: str, line: int, said: list):
    with pytest.raises(LessonError) as caught:
        run_page(make_executor(), f"# L\n\n```pyodide\n{code}\n```\n")
    assert str(caught.value).startswith(f"{PATH}:{line}: cell 1 of the page raised\n")
    for text in said:
        assert text in caught.value.detail
