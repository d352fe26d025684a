"""Lesson 34's training run in the browser's Pyodide against CPython, side by side.

Builds the site into ``.cache/bench-site-experiment`` (``--site DIR``: a build as it is), serves it
on 127.0.0.1 and opens lesson 34 in headless Chromium. One run is what the lesson's explorable cell
does: ``posenc.experiment.train`` (L = 16, 150 steps of 16 sequences, seed 0) and ``evaluate`` at
1, 2, 4 and 8 x L, timed inside Python with ``time.perf_counter``, in a cell of the page (Pyodide in
its worker) and in a CPython subprocess of this checkout. ``--rounds`` interleaved rounds over the
schemes, each alternating which side goes first, after one warm-up run on each side (imports, the
first numpy calls). Prints each scheme's medians, Pyodide / CPython, and the slowest median against
the lesson's goal, one run <= 6 s in the browser. Exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

from completion import build, serve
from playwright.sync_api import sync_playwright
from startup.browser import CHROMIUM_ARGS, find_chromium

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 6.0
SCHEMES = ("nope", "rope", "alibi", "t5-sized")
ONE_RUN = """
import time
from posenc import experiment
t0 = time.perf_counter()
model = experiment.train("copy", {scheme!r}, length=16, steps=150, batch_size=16, seed=0)
accuracy = experiment.evaluate(model)
print(f"{{time.perf_counter() - t0:.4f}}")
"""
SET_AND_RUN = """async ([cell, code]) => {
  const root = document.querySelector(cell);
  const enhance = document.querySelector('script[src$="/js/enhance.js"]');
  const { EditorView } = await import(new URL("../vendor/codemirror.js", enhance.src).href);
  const view = EditorView.findFromDOM(root.querySelector(".cm-editor"));
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
  await new Promise((resolve) => {
    const done = () => root.dataset.state === "done" && root.dataset.status === "ok";
    const o = new MutationObserver(() => done() && (o.disconnect(), resolve()));
    o.observe(root, { attributes: true });
    root.querySelector(".course-cell__button--run").click();
  });
  return root.querySelector(".course-cell__output pre").textContent.trim();
}"""


def in_cpython(scheme: str) -> float:
    code = ONE_RUN.format(scheme=scheme)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True
    )
    done.check_returncode()
    return float(done.stdout.split()[-1])


def measure(url: str, rounds: int) -> dict[str, dict[str, list[float]]]:
    times = {scheme: {"pyodide": [], "cpython": []} for scheme in SCHEMES}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url + "lessons/34-relative-position/")
        page.locator("#cell-1 .course-cell__status", has_text="Python is ready").wait_for(timeout=180_000)
        cell = "#cell-1"
        page.locator(cell).scroll_into_view_if_needed()
        page.locator(f"{cell} .cm-editor").wait_for(timeout=60_000)
        page.evaluate(SET_AND_RUN, [cell, ONE_RUN.format(scheme="nope")])  # warm-up
        in_cpython("nope")
        for k in range(rounds):
            for scheme in SCHEMES:
                order = ("pyodide", "cpython") if k % 2 else ("cpython", "pyodide")
                for side in order:
                    if side == "pyodide":
                        seconds = float(page.evaluate(SET_AND_RUN, [cell, ONE_RUN.format(scheme=scheme)]))
                    else:
                        seconds = in_cpython(scheme)
                    times[scheme][side].append(seconds)
        browser.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site to use as it is")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    site = args.site or build(ROOT / ".cache" / "bench-site-experiment")
    times = measure(serve(site), args.rounds)
    slowest = 0.0
    for scheme, sides in times.items():
        pyodide, cpython = (statistics.median(sides[side]) for side in ("pyodide", "cpython"))
        slowest = max(slowest, pyodide)
        spread = f"{min(sides['pyodide']):.2f}-{max(sides['pyodide']):.2f}"
        ratio = pyodide / cpython
        print(f"  {scheme:9} Pyodide {pyodide:5.2f} s ({spread}), CPython {cpython:5.2f} s, ratio {ratio:4.1f}")
    verdict = "met" if slowest <= GOAL_S else "NOT met"
    print(f"slowest median in the browser: {slowest:.2f} s (goal <= {GOAL_S:g} s): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
