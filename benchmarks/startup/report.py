"""The report: a line per round, then the figures against their goals, bytes, timelines and observations.

``analyse`` prints it and returns it as the results file's data.
"""

from __future__ import annotations

import os

from . import site_layout as layout
from .analysis import byte_table, runtime_bytes, where_time_goes
from .browser import Run
from .built_site import SiteInfo
from .figures import fmt_ms, fmt_ratio, fmt_s, median, ratio, verdict
from .observations import observe
from .scenarios import RUNTIME_BYTES_GOAL, goals_for, metrics


def round_line(number: int, runs: dict[str, Run]) -> str:
    """One round's figures, and its runs' errors."""
    m = metrics(runs)
    errors = [f"{k}: {r.error}" for k, r in runs.items() if r.error]
    line = (
        f"round {number}: a {fmt_s(m['a'])}  b {fmt_s(m['b'])}  c {fmt_ms(m['c'])}  "
        f"floor_d {fmt_s(m['floor_d'])}  d {fmt_s(m['d'])}  floor_e {fmt_ms(m['floor_e'])}  e {fmt_ms(m['e'])}  "
        f"f {fmt_s(m['f'])}"
    )
    return line + ("".join(f"\n  error {e}" for e in errors) if errors else "")


def analyse(rounds, diagnostics, info: SiteInfo, leaks, page_errors, args, elapsed: float) -> dict:
    """Print the report of these runs; return it, with the runs, as the results file's data."""
    goals = goals_for(args.net)
    judged = judge(rounds, goals)
    tables = byte_tables(rounds, info)
    judged["checks"]["g"] = (
        None if not (tables["b"] and tables["d"]) else not (tables["b"]["flagged"] or tables["d"]["flagged"])
    )
    sizes = diagnostics.get("sizes_check_cell_2")
    where = where_time_goes(rounds)
    observations = observe(rounds, diagnostics)
    print_figures(len(rounds), judged, goals)
    print_byte_tables(tables, judged["checks"]["g"], sizes)
    runtime = {key: runtime_bytes(tables[key], tables[key]["output_ms"] if tables[key] else None) for key in "ab"}
    judged["ratios"]["runtime_bytes_b/a"] = runtime_ratio = (
        ratio(runtime["b"]["total"], runtime["a"]["total"]) if runtime["a"] and runtime["b"] else None
    )
    judged["checks"]["runtime_bytes_b/a"] = None if runtime_ratio is None else runtime_ratio <= RUNTIME_BYTES_GOAL
    print_runtime_bytes(runtime, runtime_ratio)
    print_where(where)
    print_observations(observations, leaks, page_errors)
    print(f"\n({elapsed / 60:.1f} min, load average now {os.getloadavg()[0]:.2f})")
    return {
        "config": {
            "pairs": len(rounds),
            "gzip": args.gzip,
            "read_seconds": args.read_seconds,
            "settle_seconds": getattr(args, "settle_seconds", 0.0),
            "cpus": os.cpu_count(),
        },
        "goals": goals,
        "medians_ms": judged["medians"],
        "ratios": judged["ratios"],
        "checks": judged["checks"],
        "samples_ms": judged["series"],
        "bytes": {**tables, "chromium_sizes_cell_2": sizes, "runtime_before_first_output": runtime},
        "where": where,
        "observations": observations,
        **raw_data(rounds, diagnostics, leaks, page_errors, elapsed),
    }


def judge(rounds: list[dict[str, Run]], goals: dict[str, float]) -> dict:
    """Each figure's samples (``series``) and median, the medians of the per-round ratios, the ``goals`` met."""
    per_round = [metrics(r) for r in rounds]
    series = {key: [m[key] for m in per_round] for key in ("a", "b", "c", "floor_d", "d", "floor_e", "e", "f")}
    ratios = {
        "b/a": median([ratio(m["b"], m["a"]) for m in per_round]),
        "d/floor_d": median([ratio(m["d"], m["floor_d"]) for m in per_round]),
        "e/floor_e": median([ratio(m["e"], m["floor_e"]) for m in per_round]),
        "f/b": median([ratio(m["f"], m["b"]) for m in per_round]),
        "f/a": median([ratio(m["f"], m["a"]) for m in per_round]),
    }
    med = {key: median(values) for key, values in series.items()}
    checks = {
        "b/a": None if ratios["b/a"] is None else ratios["b/a"] <= goals["b/a"],
        "c": None if med["c"] is None else med["c"] <= goals["c_s"] * 1000,
        "d/floor_d": None if ratios["d/floor_d"] is None else ratios["d/floor_d"] <= goals["d/floor_d"],
        "e/floor_e": None if ratios["e/floor_e"] is None else ratios["e/floor_e"] <= goals["e/floor_e"],
        "f/a": None if ratios["f/a"] is None else ratios["f/a"] <= goals["f/a"],
    }
    return {"series": series, "medians": med, "ratios": ratios, "checks": checks}


def byte_tables(rounds: list[dict[str, Run]], info: SiteInfo) -> dict[str, dict | None]:
    """(g): the bytes of the first successful run of (b), (d), (f) and the floors (a), floor_d."""
    first_ok = lambda key: next((r[key] for r in rounds if key in r and not r[key].error), None)  # noqa: E731
    needed = {
        "b": (info.closure("numpy", "posenc"), False),
        "d": (info.closure("numpy", "posenc", "matplotlib"), True),
        "f": (info.closure("numpy", "posenc"), False),
        "a": (info.closure("numpy", "matplotlib"), True),
        "floor_d": (info.closure("numpy", "matplotlib"), True),
    }
    return {
        key: byte_table(first_ok(key), info, wheels, fonts) if first_ok(key) else None
        for key, (wheels, fonts) in needed.items()
    }


def print_figures(count: int, judged: dict, goals: dict[str, float]) -> None:
    med, ratios, checks = judged["medians"], judged["ratios"], judged["checks"]
    print("\n== First output (medians of", count, "interleaved rounds; times from navigation start) ==")

    def against(ratio: str, named: str) -> tuple[str, str]:
        """A run's ratio to its floor, and its goal with the verdict."""
        return f"{named} = {fmt_ratio(ratios[ratio])}", f"<= {goals[ratio]}: {verdict(checks[ratio])}"

    rows = [
        ("(a) floor: bare Pyodide + numpy imported", fmt_s(med["a"]), "", ""),
        ("(b) lesson cell 1, Run at load -> output", fmt_s(med["b"]), *against("b/a", "(b)/(a)")),
        (
            "(c) Run after 8 s reading -> output",
            fmt_ms(med["c"]),
            "click -> output",
            f"<= {goals['c_s']} s: {verdict(checks['c'])}",
        ),
        (f"floor_d: bare + matplotlib + {layout.FIGURE_CELL_LABEL} to PNG", fmt_s(med["floor_d"]), "", ""),
        (f"(d) {layout.FIGURE_CELL_LABEL}, Run at load -> figure", fmt_s(med["d"]), *against("d/floor_d", "(d)/floor")),
        (f"floor_e: {layout.FIGURE_CELL_LABEL} run again in floor_d", fmt_ms(med["floor_e"]), "", ""),
        ("(e) heatmap Run again -> figure", fmt_ms(med["e"]), *against("e/floor_e", "(e)/floor")),
        ("(f) later visit, new browser process -> output", fmt_s(med["f"]), *against("f/a", "(f)/(a)")),
    ]
    width = max(len(row[0]) for row in rows)
    for row in rows:
        print(f"  {row[0]:<{width}} {row[1]:>9}   {row[2]:<20} {row[3]}")
    print("  samples (ms):")
    for key, values in judged["series"].items():
        print(f"    {key:<8} " + " ".join("   n/a" if v is None else f"{v:6.0f}" for v in values))


def print_byte_tables(tables: dict[str, dict | None], nothing_unneeded: bool | None, sizes: dict | None) -> None:
    labels = {"b": "(b) cell 1", "d": f"(d) {layout.FIGURE_CELL_LABEL}", "f": "(f) second visit, cell 1"}
    for key, label in labels.items():
        print_bytes(label, tables[key])
    for key in ("a", "floor_d"):
        table = tables[key]
        if table:
            print(f"  for comparison, floor {key}: {table['total_bytes'] / 1e6:.2f} MB in {table['requests']} requests")
    print(f"  (g) nothing fetched that the cell does not need: {verdict(nothing_unneeded)}")
    bytes_d = tables["d"]
    if sizes and bytes_d:
        chromium_total = sum(sizes.values())
        print(
            f"  cross-check, {layout.FIGURE_CELL_LABEL}: Chromium's request.sizes() counts "
            f"{chromium_total / 1e6:.2f} MB in "
            f"{len(sizes)} files (server: {bytes_d['total_bytes'] / 1e6:.2f} MB in {len(bytes_d['files'])} files)"
        )


def print_runtime_bytes(runtime: dict[str, dict | None], runtime_ratio: float | None) -> None:
    """The Python runtime's bytes on the wire before the first output, (a) and (b) side by side, by file."""
    print("\n== Python runtime on the wire before the first output (what the Python worker fetches) ==")
    if not (runtime["a"] and runtime["b"]):
        print("  no successful run of (a) and (b)")
        return
    names = sorted({*runtime["a"]["files"], *runtime["b"]["files"]}, key=lambda n: n.rsplit("/", 1)[-1])
    print(f"  {'(a) bytes':>12} {'(b) bytes':>12}  file")
    for name in names:
        a, b = (runtime[key]["files"].get(name) for key in "ab")
        print(f"  {a or 0:>12,} {b or 0:>12,}  {name if len(name) <= 70 else '…' + name[-69:]}")
    a_total, b_total = runtime["a"]["total"], runtime["b"]["total"]
    print(f"  {a_total:>12,} {b_total:>12,}  total; (b)/(a) = {fmt_ratio(runtime_ratio)}")
    met = runtime_ratio is not None and runtime_ratio <= RUNTIME_BYTES_GOAL
    print(f"  goal <= {RUNTIME_BYTES_GOAL}: {verdict(met)}")
    print(f"  the page's own files over the same time: (a) {runtime['a']['page']:,}, (b) {runtime['b']['page']:,}")


def print_where(where: dict[str, list[tuple[str, float]]]) -> None:
    print("\n== Where the time goes (medians, ms from navigation start) ==")
    for title, points in where.items():
        print(f"  {title}")
        for name, t in points:
            print(f"    {t:8.0f}  {name}")


def print_observations(observations: list[str], leaks: list[str], page_errors: list[str]) -> None:
    print("\n== Observations ==")
    for line in observations:
        print(f"  - {line}")
    if leaks or page_errors:
        print("\n== Errors ==")
        for line in sorted(set(leaks)) + sorted(set(page_errors)):
            print(f"  {line}")


def raw_data(rounds, diagnostics, leaks, page_errors, elapsed: float) -> dict:
    """What was measured, as JSON (``--from-json`` reads it back)."""
    return {
        "leaks": sorted(set(leaks)),
        "page_errors": sorted(set(page_errors)),
        "elapsed_s": elapsed,
        "rounds": [{k: r.summary() for k, r in runs.items()} for runs in rounds],
        "diagnostics": {k: _runs_to_json(v) for k, v in diagnostics.items()},
    }


def print_bytes(label: str, table: dict | None) -> None:
    """(g) for one run: a line per file."""
    if not table:
        print(f"\n== (g) bytes for {label}: no successful run ==")
        return
    print(f"\n== (g) bytes for {label}: {table['total_bytes'] / 1e6:.2f} MB in {table['requests']} requests ==")
    for row in table["files"]:
        name = row["path"] if len(row["path"]) <= 60 else "…" + row["path"][-59:]
        print(
            f"  {row['bytes']:>10,}  {name:<60} {row['category']:<24} x{row['requests']} {row['status']} "
            f"{row['encoding'] or '-':<4} {','.join(row['by'])}  {row['flag']}"
        )


def _runs_to_json(value: object) -> object:
    if isinstance(value, Run):
        return value.summary()
    if isinstance(value, list):
        return [_runs_to_json(v) for v in value]
    return value


def runs_from_json(value: object) -> object:
    if isinstance(value, dict) and "marks" in value and "kind" in value:
        return Run.from_summary(value)
    if isinstance(value, list):
        return [runs_from_json(v) for v in value]
    return value


def json_default(value: object) -> object:
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, Run):
        return value.summary()
    raise TypeError(type(value))
