"""What drawing every figure in both colour schemes costs the build: cold-cache runs, side by side.

The build saves each figure twice, in Material's light and dark schemes (figure_style.py). This
runs the course's lessons in the site's Pyodide under Node, as ``mkdocs build`` does with an empty
cache, with the build's schemes (both) and with the light scheme only,
in interleaved rounds, one page at a time; it prints each run, the medians and their ratio.
A report, not a test: it exits 0.

    .venv/bin/python benchmarks/figure_schemes.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from course_site import execute
from course_site.execute import PageExecutor, RunSettings
from course_site.lesson_page import runs_of
from course_site.local_python import LocalPython
from course_site.worker_settings import OutputLimits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from course_python import course_options, stage_python  # noqa: E402

LESSONS = sorted((ROOT / "lessons").glob("*.md"))
OPTIONS = course_options()
SETTINGS = RunSettings(OPTIONS.preload, OPTIONS.import_packages, "hint", OutputLimits(2000, 200_000))


def run_cold(python: LocalPython, schemes: list[str]) -> float:
    """Seconds to run every lesson's cells and exercises with an empty cache, drawing figures in ``schemes``."""
    execute.FIGURE_SCHEMES[:] = schemes
    runner = PageExecutor(Path(tempfile.mkdtemp()), python, SETTINGS, 600)
    pages = [runs_of(path.read_text(), path.relative_to(ROOT).as_posix(), 1) for path in LESSONS]
    start = time.perf_counter()
    for page in pages:
        runner.run_pages([page])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    folder = Path(tempfile.mkdtemp())
    python = stage_python(folder)
    variants = {"both schemes": ["default", "slate"], "light only": ["default"]}
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for k in range(rounds):
        order = list(variants) if k % 2 == 0 else list(reversed(variants))
        for name in order:
            seconds[name].append(run_cold(python, variants[name]))
            print(f"round {k + 1}: {name}: {seconds[name][-1]:.1f} s", flush=True)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    ratio = medians["both schemes"] / medians["light only"]
    print(f"medians: {', '.join(f'{name} {value:.1f} s' for name, value in medians.items())}; ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
