"""The scenarios: which runs make a round and in which order, the one-off diagnostics, the figures and goals."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from . import site_layout as layout
from .browser import Driver, Run
from .figures import diff

GROUPS = {"ab": "(a)+(b)", "d": "floor_d+(d)+(e)", "cf": "(c)+(f)"}
"""What ``--only`` can choose: a group of runs -> the figures it gives."""
PAIRS = {"ab": ("a", "b"), "d": ("floor_d", "d")}
"""A floor and its lesson run, measured back to back, in alternating order."""
READ_SECONDS = 8.0
GOALS = {  # the first output's goals, on loopback (benchmarks/README.md)
    "b/a": 0.8,
    "c_s": 0.3,
    "d/floor_d": 1.0,
    "e/floor_e": 1.10,
    "f/a": 0.4,
}
THROTTLED_GOALS = {**GOALS, "b/a": 1.0}  # on 20 Mbit/s, 40 ms: first output no later than bare Pyodide's
RUNTIME_BYTES_GOAL = 0.8  # the Python runtime's bytes on the wire before (b)'s output, against (a)'s


def goals_for(net: str) -> dict[str, float]:
    """The goals for ``--net``'s value (on the slow mobile link, (b)/(a) <= 0.8 as on loopback)."""
    return THROTTLED_GOALS if net == "throttled" else GOALS


def runs_of(driver: Driver) -> dict[str, Callable[[], Run]]:
    """The cold runs by figure: a floor, or the lesson with Run clicked at load."""
    return {
        "a": lambda: driver.bare("numpy"),
        "b": lambda: driver.lesson_cold(layout.TEXT_CELL, figure=False, rerun=False),
        "floor_d": lambda: driver.bare("matplotlib"),
        "d": lambda: driver.lesson_cold(layout.FIGURE_CELL, figure=True, rerun=True),
    }


def measure_rounds(driver: Driver, groups: list[str], count: int) -> Iterator[dict[str, Run]]:
    """Each round's runs by figure: each pair (a b, then b a, …), then (c) and (f) in one profile."""
    driver.bare("numpy")  # warm-up (not counted): the OS file cache, Chromium's shared processes
    measure = runs_of(driver)
    pairs = [pair for group, pair in PAIRS.items() if group in groups]
    for number in range(1, max(1, count) + 1):
        runs: dict[str, Run] = {}
        for pair in pairs:
            for key in pair if number % 2 else pair[::-1]:
                runs[key] = measure[key]()
        if "cf" in groups:
            runs["c"], runs["f"] = driver.warm_profile()
        yield runs


def measure_diagnostics(driver: Driver) -> dict[str, Any]:
    """The one-off runs: floor_d without the font list, the floor's repeat visits, Chromium's byte count."""
    diagnostics: dict[str, Any] = {"floor_d_without_font_list": driver.bare("matplotlib", font_list=False)}
    for site_style in (False, True, False, True):
        label = "a_site_style" if site_style else "a"
        for n, visit in enumerate(driver.bare_warm(site_style)):
            diagnostics.setdefault(f"{label}_visit_{n + 1}", []).append(visit)
    try:
        diagnostics["sizes_check_cell_2"] = driver.sizes_check(layout.FIGURE_CELL)
    except Exception as exc:
        print(f"sizes check failed: {type(exc).__name__}: {exc}")
    return diagnostics


def metrics(runs: dict[str, Run]) -> dict[str, float | None]:
    """The figures of one round, in ms."""
    a, b, c, d, f, floor_d = (runs.get(k) for k in ("a", "b", "c", "d", "f", "floor_d"))
    ok = lambda run: run is not None and not run.error  # noqa: E731
    return {
        "a": a.mark("received: numpy imported") if ok(a) else None,
        "b": b.mark("output") if ok(b) else None,
        "c": diff(c.mark("output"), c.mark("click")) if ok(c) else None,
        "floor_d": floor_d.mark("received: figure drawn to PNG") if ok(floor_d) else None,
        "floor_e": diff(floor_d.mark("received: figure drawn again"), floor_d.mark("received: figure drawn to PNG"))
        if ok(floor_d)
        else None,
        "d": d.mark("figure") if ok(d) else None,
        "e": diff(d.mark("rerun figure"), d.mark("rerun click")) if ok(d) else None,
        "f": f.mark("output") if ok(f) else None,
    }
