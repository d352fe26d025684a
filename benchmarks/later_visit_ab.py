"""A later visit, site A against site B: navigation start -> first output of lesson 32's cell 1.

Run:  .venv/bin/python benchmarks/later_visit_ab.py SITE_A SITE_B [--rounds N]

For comparing two builds of the site (a change to the boot, the snapshot, the worker) on
(f) alone, side by side.  Each round and each site: a fresh browser profile on disk; a first
visit runs cell 1 and waits until the worker has kept its snapshot ("course: snapshot kept");
then a new browser process on that profile opens the lesson, clicks Run as soon as the cell
is live, and the time from navigation start to the cell's end is taken in the page.  The two
sites alternate which goes first, round by round; each is served on its own loopback port
with ``Cache-Control: max-age=600``, and Chromium resolves no other name.  Prints each
visit's time and how Python started, the medians, and the per-round ratios B/A.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from startup.browser import CHROMIUM_ARGS, find_chromium
from startup.site_layout import CELL_MARKUP, LESSON, TEXT_CELL

KEPT = "course: snapshot kept"
TIMEOUT_MS = 120_000


class CachedFiles(http.server.SimpleHTTPRequestHandler):
    """A static file server that lets the browser keep what it gets for 10 minutes."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> str:
    """Serve ``folder`` on a free loopback port, in a daemon thread; its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CachedFiles, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/"


def visit(playwright, base_url: str, profile: str, *, first: bool) -> tuple[float, list[str]]:
    """A visit in a new browser process on ``profile``: ms from navigation start to cell 1 done; the boot lines."""
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=find_chromium(), args=CHROMIUM_ARGS, bypass_csp=True
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
    args = parser.parse_args()
    sites = {"A": serve(args.site_a), "B": serve(args.site_b)}
    times: dict[str, list[float]] = {name: [] for name in sites}
    with sync_playwright() as playwright:
        for number in range(args.rounds):
            for name in list(sites) if number % 2 == 0 else list(sites)[::-1]:
                with tempfile.TemporaryDirectory(prefix="later-visit-") as profile:
                    visit(playwright, sites[name], profile, first=True)
                    elapsed, lines = visit(playwright, sites[name], profile, first=False)
                times[name].append(elapsed)
                print(f"round {number + 1} {name}: {elapsed:.0f} ms  {' / '.join(lines)}", flush=True)
    for name, values in times.items():
        print(f"{name}: median {statistics.median(values):.0f} ms  ({', '.join(f'{v:.0f}' for v in values)})")
    ratios = [b / a for a, b in zip(times["A"], times["B"], strict=True)]
    print(f"B/A per round: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
