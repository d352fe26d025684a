"""Where the time goes, in words: the in-page marks of the runs compared, medians."""

from __future__ import annotations

from . import site_layout as layout
from .analysis import median_marks, served_via
from .browser import Run
from .figures import diff, fmt_ms, fmt_ratio, fmt_s, median, ratio
from .scenarios import GOALS

# Mark names (see in_page.js and bare.html).
BOOTED = "received: loadPyodide done (packages loaded)"
COURSE = f"worker created: {layout.PYTHON_WORKER_NAME}"
BARE = "worker created: bare-python"
RUN_SENT = "page -> worker: run"


def span(marks: dict[str, float], end: str, begin: str) -> str:
    """The time from mark ``begin`` to mark ``end``."""
    return fmt_ms(diff(marks.get(end), marks.get(begin)))


def observe(rounds: list[dict[str, Run]], diagnostics: dict) -> list[str]:
    """Where the time goes, from the medians of the in-page marks."""
    ok = lambda key: [r[key] for r in rounds if key in r and not r[key].error]  # noqa: E731
    a_runs, b_runs, c_runs, d_runs, f_runs, floors = ok("a"), ok("b"), ok("c"), ok("d"), ok("f"), ok("floor_d")
    notes: list[str] = []
    if a_runs and b_runs:
        notes += observe_b(a_runs, b_runs, d_runs)
    if c_runs:
        notes += observe_c(c_runs)
    if d_runs and floors:
        notes += observe_d(d_runs, floors, diagnostics)
    if f_runs:
        notes += observe_f(f_runs, b_runs)
    if diagnostics.get("a_visit_2"):
        notes += observe_floor_visits(diagnostics)
    outputs = {r["b"].outputs.get("output", {}).get("className") for r in rounds if "b" in r and not r["b"].error}
    if outputs:
        notes.append(f"first live output node in (b): {sorted(o for o in outputs if o)}")
    return notes


def observe_b(a_runs: list[Run], b_runs: list[Run], d_runs: list[Run]) -> list[str]:
    """(b) against (a), step by step; what (b) and (d) fetched that they should not have."""
    notes: list[str] = []
    a, b = median_marks(a_runs), median_marks(b_runs)
    notes.append(
        "(b) vs (a), medians: Python worker created at "
        f"{fmt_ms(b.get(COURSE))} vs {fmt_ms(a.get(BARE))} "
        f"(lesson: DOMContentLoaded {fmt_ms(b.get('domcontentloaded'))}, load {fmt_ms(b.get('load'))}, Run button "
        f"and click {fmt_ms(b.get('click'))}); "
        f"worker created -> 'ready' {span(b, 'worker ready', COURSE)} vs the floor's worker created -> "
        f"loadPyodide done {span(a, BOOTED, BARE)}, -> numpy imported {span(a, 'received: numpy imported', BARE)}; "
        "then "
        f"run sent -> 'started' (loading what the cell imports beyond the preloaded packages): "
        f"{span(b, 'worker started', RUN_SENT)}; 'started' -> first output (the cell's Python, with any "
        f"import not done at boot; the floor's `import numpy` takes {span(a, 'received: numpy imported', BOOTED)}"
        f"): {span(b, 'output', 'worker started')}"
    )
    mpl = [r for r in b_runs if any("matplotlib" in s["path"] for s in r.served)]
    fonts = [r for r in b_runs if any(s["path"].endswith(layout.FONT_LIST) for s in r.served)]
    notes.append(f"(b): matplotlib wheels fetched in {len(mpl)} of {len(b_runs)} runs, the font list in {len(fonts)}")
    twice = [
        (r.kind, s["path"])
        for r in b_runs + d_runs
        for s in r.served
        if s["status"] == 200 and sum(1 for x in r.served if x["path"] == s["path"] and x["status"] == 200) > 1
    ]
    if twice:
        paths = sorted({p for _, p in twice})
        notes.append(
            f"(b)/(d): downloaded twice in one cold run: {paths} ({len(twice) // 2} times over "
            f"{len(b_runs + d_runs)} runs); the second download starts once the worker is ready, i.e. it is the "
            "service worker's `keep` -> cache.add(); a cold context's in-memory HTTP cache does not keep a "
            "10 MB entry (a persistent profile's disk cache does: see (c), the first visit of one)"
        )
    return notes


def observe_c(c_runs: list[Run]) -> list[str]:
    """(c): where Pyodide was when the learner clicked; the service worker after a first visit."""
    notes: list[str] = []
    gaps = [diff(r.mark("worker ready"), r.mark("click")) for r in c_runs]
    m = median_marks(c_runs)
    notes.append(
        f"(c): Pyodide ready {fmt_ms(median(gaps))} relative to the click (negative: before it; per run "
        f"{[round(g) if g is not None else None for g in gaps]}); click -> 'started' (package loading) "
        f"{span(m, 'worker started', 'click')}, 'started' -> output (the cell's Python) "
        f"{span(m, 'output', 'worker started')}"
    )
    state = c_runs[0].extra.get("service_worker")
    notes.append(f"after the first visit in a persistent profile, service worker: {state}")
    return notes


def observe_d(d_runs: list[Run], floors: list[Run], diagnostics: dict) -> list[str]:
    """(d) against floor_d, matplotlib's font cache, and (e) as the worker saw it."""
    notes: list[str] = []
    d, fl = median_marks(d_runs), median_marks(floors)
    fetched = sum(1 for r in d_runs if any(s["path"].endswith(layout.FONT_LIST) for s in r.served))
    probe = d_runs[-1].extra.get("probe") or {}
    notes.append(
        f"(d): {layout.FONT_LIST} fetched in {fetched} of {len(d_runs)} runs; in the worker afterwards: "
        f"fontlist.json _version {probe.get('font_cache_version')}, FontManager.__version__ "
        f"{probe.get('font_manager_version')}, {probe.get('ttf_fonts')} ttf fonts, _course_prebuilt marker "
        f"{probe.get('prebuilt_marker')!r}; a rebuild of the font cache "
        f"costs {probe.get('font_cache_rebuild_ms')} ms warm (the matplotlib wheel's own fontlist.json has "
        "_version 390, so matplotlib rebuilds it on first import unless the site's list is written first)"
    )
    if probe.get("error"):
        notes.append(f"(d): worker probe failed: {probe['error']}")
    notes.append(
        f"(d) vs floor_d, medians: Python worker at {fmt_ms(d.get(COURSE))} vs "
        f"{fmt_ms(fl.get(BARE))}; ready (numpy only) "
        f"{fmt_ms(d.get('worker ready'))} vs floor's loadPyodide with numpy + matplotlib "
        f"{fmt_ms(fl.get(BOOTED))}; lesson: run sent -> 'started' "
        f"(matplotlib's 12 wheels fetched and installed only now) {span(d, 'worker started', RUN_SENT)}, "
        f"'started' -> figure {span(d, 'figure', 'worker started')}; floor: import numpy -> pyplot imported "
        f"{span(fl, 'received: matplotlib.pyplot imported', 'received: numpy imported')}, "
        f"-> figure PNG {span(fl, 'received: figure drawn to PNG', 'received: matplotlib.pyplot imported')}"
    )
    no_fonts = diagnostics.get("floor_d_without_font_list")
    if isinstance(no_fonts, Run) and not no_fonts.error:
        imported = "received: matplotlib.pyplot imported"
        notes.append(
            f"floor_d without the font list (1 run): numpy imported -> pyplot imported "
            f"{fmt_ms(diff(no_fonts.mark(imported), no_fonts.mark('received: numpy imported')))} "
            f"(with it, median: {span(fl, imported, 'received: numpy imported')}); "
            f"figure at {fmt_ms(no_fonts.mark('received: figure drawn to PNG'))}"
        )
    reruns = [r.done[1] for r in d_runs if len(r.done) > 1]
    if reruns:
        notes.append(
            f"(e): the worker reports {median([x['ms'] for x in reruns]):.0f} ms of Python for the re-run "
            f"(total {median([x['totalMs'] for x in reruns]):.0f} ms); the same steps timed in the worker: "
            f"{probe.get('heatmap_steps_ms')}"
        )
    return notes


def observe_f(f_runs: list[Run], b_runs: list[Run]) -> list[str]:
    """(f): what served the second visit, and its steps against the cold (b)."""
    notes: list[str] = []
    controlled = sum(1 for r in f_runs if r.extra.get("controlled_at_dcl"))
    own = lambda r: [e for e in r.resources if e["where"] != "service worker"]  # noqa: E731
    via_sw = median([sum(1 for e in own(r) if served_via(e, r) == "service worker") for r in f_runs])
    cached = median([sum(1 for e in own(r) if served_via(e, r) == "cache") for r in f_runs])
    served = median([len(r.served) for r in f_runs])
    revalidated = median([sum(1 for s in r.served if s["status"] == 304) for r in f_runs])
    body = median([sum(s["body"] for s in r.served) for r in f_runs])
    notes.append(
        f"(f): page controlled by the service worker in {controlled} of {len(f_runs)} second visits; "
        f"median per visit: {via_sw:.0f} responses via the service worker, {cached:.0f} from the HTTP cache, "
        f"{served:.0f} requests reached the server ({revalidated:.0f} answered 304), {body / 1e6:.2f} MB of bodies"
    )
    restored = sum(1 for r in f_runs if any("restored" in line for line in r.extra.get("python_boot", [])))
    notes.append(f"(f): Python restored from the browser's snapshot in {restored} of {len(f_runs)} second visits")
    m = median_marks(f_runs)
    b = median_marks(b_runs) if b_runs else {}
    notes.append(
        f"(f): click {fmt_ms(m.get('click'))}, worker created -> ready {span(m, 'worker ready', COURSE)} "
        f"(cold (b): {span(b, 'worker ready', COURSE)}), run sent -> output "
        f"{span(m, 'output', RUN_SENT)} (cold: {span(b, 'output', RUN_SENT)}): "
        "with every byte local, the wait is CPU: compiling the wasm, booting Python, "
        "loading numpy's shared libraries, importing"
    )
    return notes


def observe_floor_visits(diagnostics: dict) -> list[str]:
    """The floor's own repeat visits: the bound for (f)/(b), and what V8's code caches give."""

    def visits_of(label: str, visits: tuple[int, ...]) -> list[Run]:
        return [r for n in visits for r in diagnostics.get(f"{label}_visit_{n}", []) if not r.error]

    def boot(label: str, visits: tuple[int, ...]) -> str:
        runs = visits_of(label, visits)
        return fmt_ms(median([diff(r.mark(BOOTED), r.mark("received: worker running")) for r in runs]))

    def numpy_ready(visits: tuple[int, ...]) -> float | None:
        return median([r.mark("received: numpy imported") for r in visits_of("a", visits)])

    first, later = numpy_ready((1,)), numpy_ready((2, 3))
    return [
        f"(f)'s own floor: the bare page's later visits reach 'numpy imported' at {fmt_s(later)} from "
        f"navigation start against {fmt_s(first)} on its first visit, a ratio of {fmt_ratio(ratio(later, first))} "
        f"(the goal for (f)/(a) is {GOALS['f/a']})",
        "the floor's own repeat visits (fresh persistent profiles, HTTP disk cache, no service worker), "
        f"worker running -> Pyodide + numpy loaded, median: first visit {boot('a', (1,))}, later visits "
        f"{boot('a', (2, 3))} (V8 code caches for the wasm and pyodide.asm.js); loading Pyodide the way the "
        "site's worker once did (responses re-wrapped in a new Response to count bytes, pyodide.asm.js run from a "
        f"blob: URL): first visit {boot('a_site_style', (1,))}, later visits {boot('a_site_style', (2, 3))}",
    ]
