"""The command line: ``python benchmarks/first_output.py [options]``; measure, then report."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from . import __doc__ as PACKAGE_DOC
from .browser import NETWORKS, Driver, Run, find_chromium
from .built_site import BENCHMARKS, ROOT, SITE_DIR, SiteInfo, ensure_site, install_bare_page
from .report import analyse, json_default, raw_data, round_line, runs_from_json
from .scenarios import GROUPS, READ_SECONDS, measure_diagnostics, measure_rounds
from .server import SiteServer

RESULTS = BENCHMARKS / "results" / "first_output.json"
CONFIG_KEPT = ("git", "site", "pyodide")  # what the results file says about the measured build


def group_list(text: str) -> list[str]:
    """``--only``'s value: comma-separated names of ``GROUPS``."""
    chosen = [name.strip() for name in text.split(",")]
    unknown = [name for name in chosen if name not in GROUPS]
    if unknown:
        valid = ", ".join(f"{name} = {figures}" for name, figures in GROUPS.items())
        raise argparse.ArgumentTypeError(
            f"unknown group {', '.join(map(repr, unknown))}: choose among {valid}, comma-separated"
        )
    return chosen


def build_parser() -> argparse.ArgumentParser:
    """The benchmark's options (no browser is needed to build or use it)."""
    parser = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5, help="interleaved rounds (default 5, at least 1)")
    parser.add_argument("--gzip", action="store_true", help="gzip text and wasm like GitHub Pages")
    parser.add_argument(
        "--net",
        choices=list(NETWORKS),
        default="loopback",
        help="throttled: 20 Mbit/s, 40 ms RTT; mobile: 1.6 Mbit/s down, 0.75 up, 150 ms RTT "
        "(DevTools emulation; both served gzipped)",
    )
    parser.add_argument("--site", type=Path, help="use this built site as it is (no build)")
    parser.add_argument("--rebuild", action="store_true", help="build the site even if it looks up to date")
    parser.add_argument("--read-seconds", type=float, default=READ_SECONDS, help="reading time before (c)'s click")
    parser.add_argument(
        "--settle-seconds",
        type=seconds,
        default=0.0,
        help="(f): open the lesson this long after the new browser process started (default 0: at once, "
        "while the browser's own start-up still takes CPU)",
    )
    parser.add_argument("--no-diagnostics", action="store_true", help="skip the one-off runs at the end")
    parser.add_argument("--json", type=Path, default=RESULTS, help="results file (default benchmarks/results/…)")
    groups = ", ".join(f"{name} = {figures}" for name, figures in GROUPS.items())
    parser.add_argument(
        "--only",
        type=group_list,
        default=",".join(GROUPS),
        help=f"measure only these groups, comma-separated: {groups} (default: all)",
    )
    parser.add_argument("--from-json", type=Path, help="measure nothing: analyse the runs in this results file")
    return parser


def seconds(value: str) -> float:
    """A duration in seconds, 0 or more (``--settle-seconds``)."""
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds, 0 or more")
    return number


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return reanalyse(args) if args.from_json else measure(args)


def measure(args: argparse.Namespace) -> int:
    """Build (if needed) and serve the site, run the rounds and diagnostics, report, save the results."""
    from playwright.sync_api import sync_playwright

    site = args.site.resolve() if args.site else SITE_DIR
    measured = git_state()
    if not args.site:
        ensure_site(site, args.rebuild)
    install_bare_page(site)
    info = SiteInfo.read(site)
    chromium = find_chromium()
    args.gzip = args.gzip or args.net != "loopback"
    load = os.getloadavg()[0]
    print(
        f"chromium: {chromium}; {os.cpu_count()} CPUs, load {load:.2f}; gzip: {args.gzip}; net: {args.net}; "
        f"(f) opened {args.settle_seconds:g} s after its browser started"
    )

    rounds: list[dict[str, Run]] = []
    diagnostics: dict = {}
    started = time.perf_counter()
    with SiteServer(site, args.gzip) as server, sync_playwright() as p:
        driver = Driver(
            p.chromium,
            chromium,
            server,
            info,
            args.read_seconds,
            network=NETWORKS[args.net],
            settle_s=args.settle_seconds,
        )
        try:
            for number, runs in enumerate(measure_rounds(driver, args.only, args.pairs), 1):
                rounds.append(runs)
                print(round_line(number, runs), flush=True)
            if not args.no_diagnostics:
                diagnostics = measure_diagnostics(driver)
        finally:
            driver.close()
    elapsed = time.perf_counter() - started
    config = {"git": measured, "site": str(site), "pyodide": info.pyodide_version, "net": args.net}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    raw = {"config": config, **raw_data(rounds, diagnostics, driver.leaks, driver.page_errors, elapsed)}
    args.json.write_text(json.dumps(raw, default=json_default))  # kept if the analysis fails
    report = analyse(rounds, diagnostics, info, driver.leaks, driver.page_errors, args, elapsed)
    report["config"].update(config)
    args.json.write_text(json.dumps(report, indent=2, default=json_default))
    print(f"\nresults: {args.json}")
    return 0


def reanalyse(args: argparse.Namespace) -> int:
    """Report on the runs of an earlier results file (``--from-json``), into ``--json``."""
    data = json.loads(args.from_json.read_text())
    rounds = [{k: Run.from_summary(v) for k, v in runs.items()} for runs in data["rounds"]]
    diagnostics = {k: runs_from_json(v) for k, v in data["diagnostics"].items()}
    site = Path(data["config"].get("site") or SITE_DIR)
    args.gzip = data["config"].get("gzip", args.gzip)
    args.net = data["config"].get("net", args.net)
    report = analyse(
        rounds, diagnostics, SiteInfo.read(site), data["leaks"], data["page_errors"], args, data["elapsed_s"]
    )
    report["config"].update({k: v for k, v in data["config"].items() if k in CONFIG_KEPT})
    args.json.write_text(json.dumps(report, indent=2, default=json_default))
    return 0


def git_state() -> dict:
    """The commit measured, and which files of the product differed from it."""

    def git(*command: str) -> str:
        done = subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return {
        "head": git("rev-parse", "HEAD"),
        "dirty": git("status", "--porcelain", "--", "src", "pyodide_assets").splitlines(),
    }
