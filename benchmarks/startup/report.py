"""The report: a line per round, then the figures against their goals, bytes, timelines and observations.

``analyse`` prints it and returns it as the results file's data.
"""

from __future__ import annotations

import os

from .analysis import byte_table, where_time_goes
from .browser import Run
from .built_site import SiteInfo
from .figures import fmt_ms, fmt_ratio, fmt_s, median, ratio, verdict
from .observations import observe
from .scenarios import GOALS, metrics


def round_line(number: int, runs: dict[str, Run]) -> str:
    m = metrics(runs)
    errors = [f"{k}: {r.error}" for k, r in runs.items() if r.error]
    line = (
        f"round {number}: a {fmt_s(m['a'])}  b {fmt_s(m['b'])}  c {fmt_ms(m['c'])}  "
        f"floor_d {fmt_s(m['floor_d'])}  d {fmt_s(m['d'])}  floor_e {fmt_ms(m['floor_e'])}  e {fmt_ms(m['e'])}  "
        f"f {fmt_s(m['f'])}"
    )
    return line + ("".join(f"\n  error {e}" for e in errors) if errors else "")


def analyse(rounds, diagnostics, info: SiteInfo, leaks, page_errors, args, elapsed: float) -> dict:
    per_round = [metrics(r) for r in rounds]
    series = {key: [m[key] for m in per_round] for key in ("a", "b", "c", "floor_d", "d", "floor_e", "e", "f")}
    ratios = {
        "b/a": median([ratio(m["b"], m["a"]) for m in per_round]),
        "d/floor_d": median([ratio(m["d"], m["floor_d"]) for m in per_round]),
        "e/floor_e": median([ratio(m["e"], m["floor_e"]) for m in per_round]),
        "f/b": median([ratio(m["f"], m["b"]) for m in per_round]),
    }
    med = {key: median(values) for key, values in series.items()}
    checks = {
        "b/a": None if ratios["b/a"] is None else ratios["b/a"] <= GOALS["b/a"],
        "c": None if med["c"] is None else med["c"] <= GOALS["c_s"] * 1000,
        "d/floor_d": None if ratios["d/floor_d"] is None else ratios["d/floor_d"] <= GOALS["d/floor_d"],
        "e": None if med["e"] is None else med["e"] <= GOALS["e_ms"],
        "f/b": None if ratios["f/b"] is None else ratios["f/b"] <= GOALS["f/b"],
    }

    first_ok = lambda key: next((r[key] for r in rounds if key in r and not r[key].error), None)  # noqa: E731
    needed_b = info.closure("numpy", "posenc")
    needed_d = info.closure("numpy", "posenc", "matplotlib")
    bytes_b = byte_table(first_ok("b"), info, needed_b, False) if first_ok("b") else None
    bytes_d = byte_table(first_ok("d"), info, needed_d, True) if first_ok("d") else None
    bytes_f = byte_table(first_ok("f"), info, needed_b, False) if first_ok("f") else None
    checks["g"] = None if not (bytes_b and bytes_d) else not (bytes_b["flagged"] or bytes_d["flagged"])
    floors = {
        key: byte_table(first_ok(key), info, info.closure("numpy", "matplotlib"), True) if first_ok(key) else None
        for key in ("a", "floor_d")
    }

    print("\n== First output (medians of", len(rounds), "interleaved rounds; times from navigation start) ==")
    rows = [
        ("(a) floor: bare Pyodide + numpy imported", fmt_s(med["a"]), "", ""),
        (
            "(b) lesson cell 1, Run at load -> output",
            fmt_s(med["b"]),
            f"(b)/(a) = {fmt_ratio(ratios['b/a'])}",
            f"<= {GOALS['b/a']}: {verdict(checks['b/a'])}",
        ),
        (
            "(c) Run after 8 s reading -> output",
            fmt_ms(med["c"]),
            "click -> output",
            f"<= {GOALS['c_s']} s: {verdict(checks['c'])}",
        ),
        ("floor_d: bare + matplotlib + cell 2 to PNG", fmt_s(med["floor_d"]), "", ""),
        (
            "(d) cell 2 heatmap, Run at load -> figure",
            fmt_s(med["d"]),
            f"(d)/floor = {fmt_ratio(ratios['d/floor_d'])}",
            f"<= {GOALS['d/floor_d']}: {verdict(checks['d/floor_d'])}",
        ),
        ("floor_e: cell 2 run again in floor_d", fmt_ms(med["floor_e"]), "", ""),
        (
            "(e) heatmap Run again -> figure",
            fmt_ms(med["e"]),
            f"(e)/floor = {fmt_ratio(ratios['e/floor_e'])}",
            f"<= {GOALS['e_ms']:.0f} ms: {verdict(checks['e'])}",
        ),
        (
            "(f) second visit, warm profile -> output",
            fmt_s(med["f"]),
            f"(f)/(b) = {fmt_ratio(ratios['f/b'])}",
            f"<= {GOALS['f/b']}: {verdict(checks['f/b'])}",
        ),
    ]
    for row in rows:
        print(f"  {row[0]:<44} {row[1]:>9}   {row[2]:<20} {row[3]}")
    print("  samples (ms):")
    for key, values in series.items():
        print(f"    {key:<8} " + " ".join("   n/a" if v is None else f"{v:6.0f}" for v in values))

    for label, table in (("(b) cell 1", bytes_b), ("(d) cell 2", bytes_d), ("(f) second visit, cell 1", bytes_f)):
        print_bytes(label, table)
    for key, table in floors.items():
        if table:
            print(f"  for comparison, floor {key}: {table['total_bytes'] / 1e6:.2f} MB in {table['requests']} requests")
    print(f"  (g) nothing fetched that the cell does not need: {verdict(checks['g'])}")
    sizes = diagnostics.get("sizes_check_cell_2")
    if sizes and bytes_d:
        chromium_total = sum(sizes.values())
        print(
            f"  cross-check, cell 2: Chromium's request.sizes() counts {chromium_total / 1e6:.2f} MB in "
            f"{len(sizes)} files (server: {bytes_d['total_bytes'] / 1e6:.2f} MB in {len(bytes_d['files'])} files)"
        )

    where = where_time_goes(rounds)
    print("\n== Where the time goes (medians, ms from navigation start) ==")
    for title, points in where.items():
        print(f"  {title}")
        for name, t in points:
            print(f"    {t:8.0f}  {name}")

    observations = observe(rounds, diagnostics)
    print("\n== Observations ==")
    for line in observations:
        print(f"  - {line}")
    if leaks or page_errors:
        print("\n== Errors ==")
        for line in sorted(set(leaks)) + sorted(set(page_errors)):
            print(f"  {line}")
    print(f"\n({elapsed / 60:.1f} min, load average now {os.getloadavg()[0]:.2f})")

    return {
        "config": {
            "pairs": len(rounds),
            "gzip": args.gzip,
            "read_seconds": args.read_seconds,
            "cpus": os.cpu_count(),
        },
        "goals": GOALS,
        "medians_ms": med,
        "ratios": ratios,
        "checks": checks,
        "samples_ms": series,
        "bytes": {"b": bytes_b, "d": bytes_d, "f": bytes_f, **floors, "chromium_sizes_cell_2": sizes},
        "where": where,
        "observations": observations,
        **raw_data(rounds, diagnostics, leaks, page_errors, elapsed),
    }


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
