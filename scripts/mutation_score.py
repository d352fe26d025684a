"""Print the mutation scores that `make mutation` measured: the Python's (mutmut) and the JavaScript's (StrykerJS).

Usage: ``python scripts/mutation_score.py [python] [js]`` (both by default).

Python: reads ``mutmut-cicd-stats.json`` (written by ``mutmut export-cicd-stats``) in
each package's ``mutants/`` folder. JavaScript: reads Stryker's JSON report of each
browser module, ``.cache/stryker/<module>.json`` (``make mutation-js``). A mutant is
caught when a test fails on it (killed) or it makes the tests time out; the score is
caught / total (for Stryker, total leaves out the mutants that do not even run:
compile and runtime errors, as Stryker's own score does).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"posenc": ROOT / "mutants", "course_site (plugin)": ROOT / "src/course_site/mutants"}
STRYKER_REPORTS = ROOT / ".cache" / "stryker"
INVALID = {"CompileError", "RuntimeError", "Ignored"}  # Stryker's statuses of mutants that are not counted


def score_line(name: str, stats: dict[str, int]) -> str:
    caught = stats["killed"] + stats["timeout"]
    share = 100 * caught / stats["total"] if stats["total"] else 0.0
    return (
        f"{name}: {caught}/{stats['total']} caught ({share:.1f} %): {stats['killed']} killed, "
        f"{stats['timeout']} timed out; {stats['survived']} survived, {stats['no_tests']} without a covering test"
    )


def stryker_stats(report: dict) -> dict[str, int]:
    """The counts of one Stryker JSON report (mutation-testing-report-schema), by status."""
    counts = Counter(mutant["status"] for file in report["files"].values() for mutant in file["mutants"])
    return {
        "killed": counts["Killed"],
        "timeout": counts["Timeout"],
        "survived": counts["Survived"],
        "no_tests": counts["NoCoverage"],
        "total": sum(n for status, n in counts.items() if status not in INVALID),
    }


def python_scores() -> list[str] | None:
    """A line per Python package, or None (printed why) when mutmut has not run."""
    missing = [folder for folder in PACKAGES.values() if not (folder / "mutmut-cicd-stats.json").exists()]
    if missing:
        print(f"no mutmut results in {', '.join(map(str, missing))}: run `make mutation`", file=sys.stderr)
        return None
    return [
        score_line(name, json.loads((folder / "mutmut-cicd-stats.json").read_text()))
        for name, folder in PACKAGES.items()
    ]


def js_scores() -> list[str] | None:
    """A line per browser module Stryker ran on, then their sum, or None (printed why) when it has not run."""
    reports = sorted(STRYKER_REPORTS.glob("*.json"))
    if not reports:
        print(f"no Stryker reports in {STRYKER_REPORTS}: run `make mutation-js`", file=sys.stderr)
        return None
    stats = {path.stem: stryker_stats(json.loads(path.read_text())) for path in reports}
    total = {key: sum(module[key] for module in stats.values()) for key in next(iter(stats.values()))}
    return [score_line(f"js {name}", module) for name, module in stats.items()] + [score_line("js (all)", total)]


def main(argv: list[str]) -> int:
    wanted = argv or ["python", "js"]
    found = [{"python": python_scores, "js": js_scores}[kind]() for kind in wanted]
    for lines in found:
        if lines:
            print("\n".join(lines))
    return 0 if all(lines is not None for lines in found) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
