"""What the runs show beyond the figures: bytes by file (g), and where the time goes (timelines)."""

from __future__ import annotations

from collections import defaultdict

from . import site_layout as layout
from .browser import Run
from .built_site import SiteInfo
from .figures import fmt_ms, median

PYODIDE_FILES_TIMED = ("pyodide.js", "pyodide.asm", "python_stdlib", "numpy-", "posenc-", "matplotlib", "pyodide-lock")
THEME_FILES_TIMED = ("bundle.",)  # the theme's script bundle


def classify(path: str, info: SiteInfo, needed_wheels: set[str], needs_fonts: bool) -> tuple[str, bool]:
    """(category, flagged) for a site path fetched during a run."""
    site_path = path.lstrip("/")
    wheels = info.wheel_paths()
    if site_path in wheels:
        name = wheels[site_path]
        return (f"wheel {name}", name not in needed_wheels)
    if site_path.startswith(info.index_path):
        if site_path.endswith(layout.FONT_LIST):
            return ("matplotlib font list", not needs_fonts)
        return ("Pyodide core", False)
    if site_path == info.lock_path:
        return ("lock", False)
    if site_path.startswith(layout.RUNNER_FOLDERS):
        return ("cell runner", False)
    if site_path in {f"{layout.COURSE_FOLDER}/{name}" for name in layout.WORKER_SETTINGS}:
        return ("cell runner", False)
    if site_path.endswith(layout.SERVICE_WORKER):
        return ("service worker", False)
    if site_path.startswith(layout.THEME_SEARCH):
        return ("theme search", False)
    return ("page / theme", False)


RUNTIME_CATEGORIES = ("Pyodide core", "lock", "matplotlib font list")
WORKER_PATHS = ("/js/worker/", "/py/", "/js/protocol.js", "bare_worker.js")
"""What the Python worker fetches beyond Pyodide's files: its scripts, its Python and its settings."""


def is_runtime(path: str, category: str) -> bool:
    """Whether the Python worker fetched ``path`` (Pyodide's files, derived files, wheels, lock, its own files)."""
    settings = any(path.endswith(f"/{name}") for name in layout.WORKER_SETTINGS)
    return (
        category.startswith("wheel ")
        or category in RUNTIME_CATEGORIES
        or settings
        or any(part in path for part in WORKER_PATHS)
    )


def runtime_bytes(table: dict | None, before_ms: float | None) -> dict | None:
    """The Python runtime's bytes on the wire in a (g) table, by file, counting what started before ``before_ms``
    (the first output; None: all), and the page's own bytes over the same time."""
    if not table:
        return None
    files: dict[str, int] = {}
    page = 0
    for row in table["files"]:
        counted = [t for t in row["at_ms"] if before_ms is None or t <= before_ms]
        share = row["bytes"] * len(counted) / len(row["at_ms"]) if row["at_ms"] else 0
        if is_runtime(row["path"], row["category"]):
            files[row["path"]] = round(share)
        else:
            page += round(share)
    return {"total": sum(files.values()), "files": files, "page": page}


def byte_table(run: Run, info: SiteInfo, needed: set[str], needs_fonts: bool) -> dict:
    """(g): what the server sent in one run, by file, largest first, with what is not needed flagged."""
    rows: dict[str, dict] = {}
    origin = run.extra.get("time_origin")
    for record in run.served:
        row = rows.setdefault(
            record["path"],
            {"requests": 0, "bytes": 0, "body": 0, "status": [], "encoding": record["encoding"], "by": set(), "at": []},
        )
        row["requests"] += 1
        if origin and record["status"] == 200:
            row["at"].append(round(record["start"] * 1000 - origin))
        row["bytes"] += record["body"] + record["headers"]
        row["body"] += record["body"]
        row["status"].append(record["status"])
        dest = {"empty": "fetch", "": "?"}.get(record["dest"], record["dest"])
        row["by"].add("service worker script" if record["service_worker"] else dest)
    table = []
    for path, row in rows.items():
        category, flagged = classify(path, info, needed, needs_fonts)
        notes = []
        if flagged:
            notes.append("NOT NEEDED by the cell")
        downloads = sum(1 for s in row["status"] if s == 200)
        if downloads > 1:
            at = ", ".join(f"{t} ms" for t in row["at"])
            notes.append(f"downloaded {downloads} times (at {at}; worker ready at {fmt_ms(run.mark('worker ready'))})")
        table.append(
            {
                "path": path,
                "category": category,
                "requests": row["requests"],
                "bytes": row["bytes"],
                "status": sorted(set(row["status"])),
                "encoding": row["encoding"],
                "by": sorted(row["by"]),
                "at_ms": row["at"],
                "flag": "; ".join(notes),
            }
        )
    table.sort(key=lambda r: -r["bytes"])
    return {
        "output_ms": run.mark("output") or run.mark("received: numpy imported"),
        "files": table,
        "total_bytes": sum(r["bytes"] for r in table),
        "requests": sum(r["requests"] for r in table),
        "flagged": [r for r in table if r["flag"]],
    }


def timeline(run: Run, names: tuple[str, ...]) -> list[tuple[str, float | None, float, str]]:
    """Marks and selected resource timings of one run: (name, start or None, end, how it was served)."""
    points: list[tuple[str, float | None, float, str]] = [
        (name, None, t, "") for name, t in run.marks.items() if not name.startswith("received: ")
    ]
    for e in run.resources:
        base = e["name"].split("?")[0].rsplit("/", 1)[-1]
        if e["start"] >= 0 and any(n in base for n in names):  # a service worker may predate the page
            via = served_via(e, run)
            points.append((f"fetched {base} [{e['where']}]", e["start"], e["end"], via))
    return points


def served_via(e: dict, run: Run) -> str:
    """How a response came: "service worker" (its response), "cache" (the HTTP cache) or "" (network).

    A request that the service worker sees but leaves alone has a ``workerStart``
    too; the service worker's own fetch of the same URL tells the two apart.
    """
    if e["where"] != "service worker" and e.get("workerStart"):
        fetched_by_sw = {r["name"] for r in run.resources if r["where"] == "service worker"}
        if e["name"] in fetched_by_sw:
            return "service worker"
    return "cache" if e.get("delivery") == "cache" else ""


def median_marks(runs: list[Run]) -> dict[str, float]:
    """The median time of each mark that at least half of the runs reached."""
    names: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for name, t in run.marks.items():
            names[name].append(t)
    return {name: median(ts) for name, ts in names.items() if len(ts) * 2 >= len(runs)}


def where_time_goes(rounds: list[dict[str, Run]]) -> dict[str, list[tuple[str, float]]]:
    """The median marks and selected fetches of each kind of run, in time order."""
    files = PYODIDE_FILES_TIMED + layout.RUNNER_SCRIPTS_TIMED + THEME_FILES_TIMED
    out = {}
    for key, title in (
        ("a", "(a) bare numpy"),
        ("b", "(b) lesson cell 1"),
        ("floor_d", "floor_d bare matplotlib"),
        ("d", f"(d) lesson {layout.FIGURE_CELL_LABEL}"),
        ("f", "(f) second visit"),
    ):
        runs = [r[key] for r in rounds if key in r and not r[key].error]
        if not runs:
            continue
        merged: dict[str, list[tuple[float | None, float, str]]] = defaultdict(list)
        for run in runs:
            for name, start, end, via in timeline(run, files):
                merged[name].append((start, end, via))
        points = []
        for name, values in merged.items():
            if len(values) * 2 < len(runs):
                continue
            end = median([v[1] for v in values])
            if values[0][0] is not None:
                vias = [v[2] for v in values if v[2]]
                name += f", from {median([v[0] for v in values]):.0f} ms"
                if vias:
                    name += f" ({len(vias)}/{len(values)} via {vias[0]})"
            points.append((name, end))
        out[title] = sorted(points, key=lambda p: p[1])
    return out
