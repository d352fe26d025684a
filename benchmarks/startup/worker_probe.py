"""Runs in the lesson's Python worker (Pyodide) once the heatmap's runs are over, so it perturbs nothing measured.

Is matplotlib's font cache the one the site ships, what would rebuilding it
cost, and where does a re-run of the heatmap spend its time?
``browser.probe_worker`` runs this file in a fresh namespace and calls ``probe()``.
"""

import io
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any


def probe() -> str:
    """The answers as JSON (only ``matplotlib_imported`` if the cell has not imported matplotlib)."""
    info: dict[str, Any] = {"matplotlib_imported": "matplotlib" in sys.modules}
    if info["matplotlib_imported"]:
        info.update(font_cache())
        info["heatmap_steps_ms"] = heatmap_steps()
    return json.dumps(info)


def font_cache() -> dict[str, Any]:
    """matplotlib's font cache file as the worker has it, and what a rebuild costs (ms)."""
    from matplotlib import font_manager

    path = os.path.join(os.path.dirname(font_manager.__file__), "fontlist.json")
    info: dict[str, Any] = {
        "font_cache_path": path,
        "font_cache_exists": os.path.exists(path),
        "font_manager_version": font_manager.FontManager.__version__,
    }
    if info["font_cache_exists"]:
        with open(path) as f:
            info["font_cache_version"] = json.load(f).get("_version")
    info["ttf_fonts"] = len(font_manager.fontManager.ttflist)
    info["prebuilt_marker"] = getattr(font_manager.fontManager, "_course_prebuilt", None)
    started = time.perf_counter()
    font_manager.FontManager()
    info["font_cache_rebuild_ms"] = round((time.perf_counter() - started) * 1000)
    return info


def heatmap_steps() -> dict[str, float]:
    """The heatmap cell's steps, and variants of its ``savefig``, each timed once (ms)."""
    import matplotlib.pyplot as plt
    import numpy as np

    import posenc
    import posenc.plot

    steps: dict[str, float] = {}

    def timed(name: str, action: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        result = action()
        steps[name] = round((time.perf_counter() - started) * 1000, 1)
        return result

    def png(figure: Any, **options: Any) -> None:
        figure.savefig(io.BytesIO(), format="png", **options)

    pe = timed("sinusoidal(64, 128)", lambda: posenc.sinusoidal(64, 128))
    fig = timed("posenc.plot.heatmap", lambda: posenc.plot.heatmap(pe))
    timed("savefig png dpi=100 (a fresh figure)", lambda: png(fig, dpi=100))
    timed("canvas.draw() of the same figure again", fig.canvas.draw)
    plt.close(fig)
    fig = posenc.plot.heatmap(pe)
    timed("savefig png dpi=100 bbox_inches=tight (a fresh figure)", lambda: png(fig, dpi=100, bbox_inches="tight"))
    plt.close(fig)
    fig = plt.figure(figsize=(8, 3))
    posenc.plot.heatmap(pe, ax=fig.add_subplot())
    timed("savefig png dpi=100 (a fresh figure without a layout engine)", lambda: png(fig, dpi=100))
    plt.close(fig)
    fig = posenc.plot.heatmap(pe)
    timed("savefig png dpi=72 (a fresh figure)", lambda: png(fig, dpi=72))
    plt.close(fig)
    timed("np.unique(pe.round(8), axis=0)", lambda: len(np.unique(pe.round(8), axis=0)))
    return steps
