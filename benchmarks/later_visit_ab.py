"""A later visit, site A against site B: navigation start -> first output of lesson 32's cell 1.

Run:  .venv/bin/python benchmarks/later_visit_ab.py SITE_A SITE_B [--rounds N] [--next-day]

For comparing two builds of the site (a change to the boot, the snapshot, the worker) on
(f) alone, side by side.  Each round and each site: a fresh browser profile on disk; a first
visit runs cell 1 and waits until the worker has kept its snapshot ("course: snapshot kept");
then a new browser process on that profile opens the lesson, clicks Run as soon as the cell
is live, and the time from navigation start to the cell's end is taken in the page.  The two
sites alternate which goes first, round by round; each is served on its own loopback port by
first_output.py's GitHub-Pages-like server (startup/server.py), and Chromium resolves no
other name.  With ``--next-day``, site B is served with ``Cache-Control: max-age=2`` and its
later visit comes once every entry of its HTTP cache is past that age, as for a learner
returning the next day (GitHub Pages sends max-age=600): each request is revalidated.  Pass
the same site twice to compare the two.  Prints each visit's time and how Python started,
the medians, and the per-round ratios B/A.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright
from startup.browser import CHROMIUM_ARGS, find_chromium
from startup.server import CACHE_CONTROL, SiteServer
from startup.site_layout import CELL_MARKUP, LESSON, TEXT_CELL

KEPT = "course: snapshot kept"
TIMEOUT_MS = 120_000
NEXT_DAY_MAX_AGE_S = 2  # --next-day: site B's HTTP cache entries expire this soon…
NEXT_DAY_WAIT_S = 3  # …and its later visit comes this long after its first


def visit(
    playwright, base_url: str, profile: str, *, first: bool, extra_args: tuple[str, ...] = ()
) -> tuple[float, list[str]]:
    """A visit in a new browser process on ``profile`` (Chromium also given ``extra_args``): ms from
    navigation start to cell 1 done; the boot lines."""
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=find_chromium(), args=[*CHROMIUM_ARGS, *extra_args], bypass_csp=True
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        lines: list[str] = []
        page.on("console", lambda message: lines.append(message.text))
        page.goto(base_url + LESSON, wait_until="commit")
        run = f"{TEXT_CELL}{CELL_MARKUP['liveCell']} {CELL_MARKUP['runButton']}"
        page.wait_for_selector(run, state="attached", timeout=TIMEOUT_MS)
        page.evaluate("(selector) => document.querySelector(selector).click()", run)
        page.wait_for_function(
            "(cell) => document.querySelector(cell).getAttribute('data-status') === 'ok'",
            arg=TEXT_CELL,
            timeout=TIMEOUT_MS,
            polling=20,
        )
        elapsed = page.evaluate("performance.now()")
        if first:
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while time.monotonic() < deadline and not any(KEPT in line for line in lines):
                page.wait_for_timeout(250)
            if not any(KEPT in line for line in lines):
                raise SystemExit(f"{base_url}: the first visit kept no snapshot: {lines}")
        return elapsed, [line for line in lines if line.startswith("course: Python")]
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site_a", type=Path)
    parser.add_argument("site_b", type=Path)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--next-day", action="store_true", help="site B's later visit finds its HTTP cache stale")
    args = parser.parse_args()
    cache_control = {"A": CACHE_CONTROL, "B": f"max-age={NEXT_DAY_MAX_AGE_S}" if args.next_day else CACHE_CONTROL}
    times: dict[str, list[float]] = {"A": [], "B": []}
    with ExitStack() as servers, sync_playwright() as playwright:
        sites = {
            name: servers.enter_context(SiteServer(root, gzip_text=False, cache_control=cache_control[name])).base_url
            for name, root in (("A", args.site_a), ("B", args.site_b))
        }
        for number in range(args.rounds):
            for name in list(sites) if number % 2 == 0 else list(sites)[::-1]:
                with tempfile.TemporaryDirectory(prefix="later-visit-") as profile:
                    visit(playwright, sites[name], profile, first=True)
                    if cache_control[name] != CACHE_CONTROL:
                        time.sleep(NEXT_DAY_WAIT_S)
                    elapsed, lines = visit(playwright, sites[name], profile, first=False)
                times[name].append(elapsed)
                print(f"round {number + 1} {name}: {elapsed:.0f} ms  {' / '.join(lines)}", flush=True)
    for name, values in times.items():
        print(f"{name}: median {statistics.median(values):.0f} ms  ({', '.join(f'{v:.0f}' for v in values)})")
    ratios = [b / a for a, b in zip(times["A"], times["B"], strict=True)]
    print(f"B/A per round: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
