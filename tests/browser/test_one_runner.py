"""One cell runner for the build and the page: the same cells, run by the build (the site's Pyodide under Node,
``PageExecutor.trial``) and by the browser's worker, give the same outputs, byte for byte: text, a traceback,
the output cap's notices, a result cut at the cap and a figure's PNG. (Every cell of every lesson is compared
with its build-time output by ``page_fixture.run_like_at_build_time`` and ``steps.check_cells_as_built``.)"""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from course_python import course_options
from page_fixture import SETTINGS_FILE, guarded_page, make_fixture_site, run

from course_site.execute import RunSettings
from course_site.fences import scan, to_cell
from course_site.worker_settings import OutputLimits

pytestmark = pytest.mark.browser

# The cells of the fixture page without a setup, each given one case; the build stops at a cell that
# raises, so the traceback comes last.
CASES = {
    1: "import matplotlib.pyplot as plt\n"
    'fig, ax = plt.subplots(figsize=(3, 2))\nax.plot([1, 3, 2])\nax.set_title("three points");',
    3: "for i in range(2500):\n    print(i)",
    4: '"x" * 200_010',  # its repr: 200,012 characters
    5: 'import sys\nprint("to stderr", file=sys.stderr)\nprint("out")\n6 * 7',
    6: "def f(x):\n    return 1 / x\n\n\nf(0)",
}

SHOWN = """async (cell) => {
    const digest = async (url) => {
        const bytes = await (await fetch(url)).arrayBuffer();
        const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        return [...hash].map((b) => b.toString(16).padStart(2, "0")).join("");
    };
    const shown = [];
    for (const node of document.querySelector(`${cell} .course-cell__output`).children) {
        if (node.tagName === "FIGURE") {
            const img = node.querySelector("img");
            shown.push(["figure", img.alt, await digest(img.src)]);
        } else if (node.classList.contains("course-cell__notice")) {
            shown.push(["notice", node.textContent]);
        } else {
            shown.push([node.className.replace(/^course-out course-out--/, ""), node.textContent]);
        }
    }
    return shown;
}"""
"""What ``cell``'s output area shows: [kind, text] for text and notices, [figure, alt, sha256 of its PNG]."""


def as_shown(items: list[dict]) -> list[list[str]]:
    """A run's outputs at build time as the page shows them (`SHOWN`): a figure in the light scheme."""
    shown = []
    for item in items:
        if item["kind"] == "figure":
            shown.append(["figure", item["text"], hashlib.sha256(base64.b64decode(item["png"])).hexdigest()])
        elif item["kind"] in ("capped", "dropped"):
            shown.append(["notice", item["text"]])
        else:
            shown.append([item["kind"], item["text"]])
    return shown


@pytest.fixture(scope="module")
def folder(built_site, tmp_path_factory):
    return make_fixture_site(built_site, tmp_path_factory.mktemp("one-runner") / "site")


def build_outputs(make_executor, folder) -> dict[int, list[list[str]]]:
    """Each case's outputs as the build gives them, with the site's settings."""
    settings = json.loads((folder / SETTINGS_FILE).read_text())
    options = course_options()
    limits = OutputLimits(settings["output_max_lines"], settings["output_max_chars"])
    executor = make_executor()
    executor.settings = RunSettings(options.preload, options.import_packages, settings["module_hint"], limits)
    page = "".join(f"```pyodide\n{code}\n```\n\n" for code in CASES.values())
    cells = dict(zip(CASES, (to_cell(block) for block in scan(page, "lessons/trial.md")), strict=True))
    runs = executor.trial(cells)
    assert len(runs) == len(CASES) and [run.ok for run in runs] == [True] * (len(CASES) - 1) + [False]
    return {number: as_shown(run.items) for number, run in zip(CASES, runs, strict=True)}


def test_a_traceback_the_output_cap_a_cut_result_and_a_figure_are_the_builds_byte_for_byte(
    browser, folder, serve, make_executor
):
    built = build_outputs(make_executor, folder)
    assert [kind for kind, *_ in built[3]] == ["stdout", "notice", "notice"]  # the cap, then what it dropped
    assert built[4][0][1].endswith("… 12 more characters not shown.")  # the repr's quotes too
    assert 'File "<cell 6>", line 5' in built[6][0][1] and "ZeroDivisionError" in built[6][0][1]
    assert built[1][0][0] == "figure"
    with guarded_page(browser, serve(folder) + "fixture/") as (page, _problems):
        for number, code in CASES.items():
            run(page, f"#cell-{number}", code)
            assert page.evaluate(SHOWN, f"#cell-{number}") == built[number], f"cell {number}: {code!r}"
