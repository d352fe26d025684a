"""Which of Pyodide's wasm functions V8 compiles with TurboFan on a first and on later visits, and for how long.

Run:  .venv/bin/python benchmarks/wasm_tiers.py SITE [--rounds N] [--visits K]

A diagnostic for (e) and (f) of first_output.py: on this 2-core machine a later visit is bound by
the CPU, and V8's background compiles are a large part of it.  Each round: a fresh browser profile
on disk, a first visit (Run on lesson 32's cell 1 at load, then wait until the worker has kept its
snapshot), then K-1 later visits, each in a new browser process (later_visit_ab.visit).  Chromium
runs with V8's ``--trace-wasm-compilation-times``: every wasm function compiled is logged with its
module, tier (Liftoff or TurboFan) and time; Playwright's ``pw:browser`` log hands the lines over.
Pyodide's functions are named from ``pyodide.asm.wasm``'s export section (the main module exports
every function, for the side modules).  Timing every compile costs a little, so the visits' times
are not (f)'s; the compile counts are the point.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from later_visit_ab import visit
from playwright.sync_api import sync_playwright
from startup.server import SiteServer

TRACE_FLAG = "--js-flags=--trace-wasm-compilation-times"
COMPILED = re.compile(r"\[pid=(\d+)\]\[out\] Compiled function (0x[0-9a-f]+)#(\d+) using (\w+), took (\d+) (μs|ms)")
TOP = 5  # functions listed per visit


@dataclass
class Visit:
    """One browser process: how long cell 1 took, how Python started, and its compiles."""

    elapsed_ms: float
    boot: list[str]
    compiles: list[tuple[str, int, str, float]] = field(default_factory=list)  # (module, function, tier, ms)


def read_leb128(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at ``at``: (value, offset after it)."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def export_names(wasm: bytes) -> dict[int, str]:
    """Function index -> exported name, from a wasm module's export section (id 7)."""
    at = 8  # magic and version
    while at < len(wasm):
        section, at = wasm[at], at + 1
        size, at = read_leb128(wasm, at)
        if section == 7:
            count, cursor = read_leb128(wasm, at)
            names: dict[int, str] = {}
            for _ in range(count):
                length, cursor = read_leb128(wasm, cursor)
                name, kind = wasm[cursor : cursor + length].decode(), wasm[cursor + length]
                index, cursor = read_leb128(wasm, cursor + length + 1)
                if kind == 0:  # a function
                    names.setdefault(index, name)
            return names
        at += size
    return {}


def compiles_by_process(log: str) -> dict[str, list[tuple[str, int, str, float]]]:
    """The compile lines of Playwright's browser log, by browser process id, in order."""
    by_pid: dict[str, list[tuple[str, int, str, float]]] = collections.defaultdict(list)
    for pid, module, function, tier, took, unit in COMPILED.findall(log):
        by_pid[pid].append((module, int(function), tier, int(took) / (1000 if unit == "μs" else 1)))
    return by_pid


def report(number: int, visits: list[Visit], names: dict[int, str]) -> None:
    """Print each visit: time, boot, TurboFan and Liftoff totals, and Pyodide's costliest TurboFan functions."""
    for n, seen in enumerate(visits, start=1):
        modules = collections.Counter(module for module, *_ in seen.compiles)
        pyodide = modules.most_common(1)[0][0] if modules else None  # the module with by far the most functions
        turbofan: dict[int, list[float]] = collections.defaultdict(list)
        totals = collections.Counter()
        for module, function, tier, ms in seen.compiles:
            totals[tier] += ms
            if module == pyodide and tier == "TurboFan":
                turbofan[function].append(ms)
        boot = " / ".join(seen.boot) or "no boot line"
        print(
            f"round {number} visit {n}: cell 1 in {seen.elapsed_ms:.0f} ms ({boot}); "
            f"TurboFan {totals['TurboFan']:.0f} ms, Liftoff {totals['Liftoff']:.0f} ms (all modules)"
        )
        for function, times in sorted(turbofan.items(), key=lambda item: -sum(item[1]))[:TOP]:
            label = names.get(function, f"function {function}")
            print(f"    {label}: TurboFan x{len(times)}, {sum(times):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built site (mkdocs build)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--visits", type=int, default=3, help="visits per profile, the first included (2 or more)")
    args = parser.parse_args()
    if args.visits < 2:
        parser.error("--visits must be 2 or more: the first visit only keeps the snapshot")
    wasm = next(args.site.glob("pyodide/v*/pyodide.asm.wasm"), None)
    if wasm is None:
        parser.error(f"{args.site} has no pyodide/v*/pyodide.asm.wasm: is it a built site?")
    names = export_names(wasm.read_bytes())
    os.environ["DEBUG"] = "pw:browser"  # Playwright's driver then passes Chromium's output to its stderr
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="wasm-tiers-") as folder:
            log_path = Path(folder) / "browser.log"
            visits: list[Visit] = []
            with (
                SiteServer(args.site, gzip_text=False) as server,
                log_path.open("w") as log,
                contextlib.redirect_stderr(log),  # the driver inherits this file as its stderr
                sync_playwright() as playwright,
            ):
                profile = str(Path(folder) / "profile")
                for n in range(args.visits):
                    elapsed, boot = visit(playwright, server.base_url, profile, first=n == 0, extra_args=(TRACE_FLAG,))
                    visits.append(Visit(elapsed, boot))
            by_pid = compiles_by_process(log_path.read_text(errors="replace"))
        if len(by_pid) != len(visits):
            print(f"round {number}: {len(by_pid)} browser processes logged compiles for {len(visits)} visits: skipped")
            continue
        for seen, compiles in zip(visits, by_pid.values(), strict=True):
            seen.compiles = compiles
        report(number, visits, names)


if __name__ == "__main__":
    main()
