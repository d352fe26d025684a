"""A cell's inputs on a warm Python: a value change to the updated figure, against a plain re-run.

Builds the site into ``.cache/bench-site-inputs`` (``--site DIR``: a build as it is), serves it on
127.0.0.1, opens lesson 32 in headless Chromium and runs its cell with inputs once (matplotlib
loads: not counted). Then ``--rounds`` interleaved rounds, each timing in the page, from the
trigger to the cell's run ended with its figure in the output:

- (r) a plain re-run: a click on Run, the inputs unchanged;
- (i) a value change: the slider set to another position and its ``input`` event dispatched.

Each round alternates which goes first. Prints the medians and (i)/(r) against the goal (<= 1.1).
Then a drag: the slider swept across its 64 positions, one ``input`` event per animation frame,
counting the runs it made (from the cell's run count); by construction at most one waits behind
the one running, and a run still queued takes the latest values when it is sent. Exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from completion import build, open_lesson, serve
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.1
CELL = '[data-inputs="pos marked"]'
TIMED = """async ([cell, kind, position]) => {
  const root = document.querySelector(cell);
  const t0 = performance.now();
  await new Promise((resolve) => {
    const done = () => root.getAttribute("data-status") === "ok" && !root.hasAttribute("aria-busy")
      && root.querySelector(".course-cell__output img")?.alt.includes(`position ${position}'s`);
    const o = new MutationObserver(() => done() && (o.disconnect(), resolve()));
    o.observe(root, { attributes: true, childList: true, subtree: true });
    if (kind === "run") root.querySelector(".course-cell__button--run").click();
    else {
      const slider = root.querySelector("input[type=range]");
      slider.value = String(position);
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });
  return performance.now() - t0;
}"""
DRAG = """async (cell) => {
  const root = document.querySelector(cell);
  const slider = root.querySelector("input[type=range]");
  const count = () => Number(/^\\[(\\d+)\\]/.exec(root.querySelector(".course-cell__count").textContent)?.[1] ?? 0);
  const before = count();
  for (let p = 0; p <= 63; p++) {
    slider.value = String(p);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => requestAnimationFrame(r));
  }
  await new Promise((resolve) => {
    const done = () => !root.hasAttribute("aria-busy")
      && root.querySelector(".course-cell__output img")?.alt.includes("position 63's");
    if (done()) return resolve();
    const o = new MutationObserver(() => done() && (o.disconnect(), resolve()));
    o.observe(root, { attributes: true, childList: true, subtree: true });
  });
  return count() - before;
}"""


def measure(url: str, rounds: int) -> tuple[dict[str, list[float]], int]:
    times: dict[str, list[float]] = {"run": [], "input": []}
    with sync_playwright() as p:
        browser, page = open_lesson(p, url)
        page.locator(CELL).scroll_into_view_if_needed()
        page.evaluate(TIMED, [CELL, "run", 10])  # warm: matplotlib loads
        position = 10
        for k in range(rounds):
            order = ["run", "input"] if k % 2 else ["input", "run"]
            for kind in order:
                if kind == "input":
                    position = 21 if position == 20 else 20
                times[kind].append(page.evaluate(TIMED, [CELL, kind, position]))
        runs = page.evaluate(DRAG, CELL)
        browser.close()
    return times, runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site to use as it is")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    if args.rounds < 12:
        parser.error("--rounds must be at least 12")
    site = args.site or build(ROOT / ".cache" / "bench-site-inputs")
    times, runs = measure(serve(site), args.rounds)
    run, change = (statistics.median(times[kind]) for kind in ("run", "input"))
    for kind, label in (("run", "(r) plain re-run"), ("input", "(i) value change")):
        values = times[kind]
        spread = f"{min(values):.0f}-{max(values):.0f}, n={len(values)}"
        print(f"  {label:20} median {statistics.median(values):7.1f} ms  ({spread})")
    ratio = change / run
    print(f"value change / plain re-run: {ratio:.2f} (goal <= {GOAL}): {'met' if ratio <= GOAL else 'NOT met'}")
    print(f"a drag across 64 positions (one input event per frame) made {runs} run(s), the last for position 63")
    return 0


if __name__ == "__main__":
    sys.exit(main())
