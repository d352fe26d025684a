"""Print the mutation score of each package that `make mutation` ran mutmut on.

Reads ``mutmut-cicd-stats.json`` (written by ``mutmut export-cicd-stats``) in
each package's ``mutants/`` folder. A mutant is caught when a test fails on it
(killed) or it makes the tests time out; the score is caught / total.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"posenc": ROOT / "mutants", "course_site (plugin)": ROOT / "src/course_site/mutants"}


def score_line(name: str, stats: dict[str, int]) -> str:
    caught = stats["killed"] + stats["timeout"]
    share = 100 * caught / stats["total"] if stats["total"] else 0.0
    return (
        f"{name}: {caught}/{stats['total']} caught ({share:.1f} %): {stats['killed']} killed, "
        f"{stats['timeout']} timed out; {stats['survived']} survived, {stats['no_tests']} without a covering test"
    )


def main() -> int:
    missing = [folder for folder in PACKAGES.values() if not (folder / "mutmut-cicd-stats.json").exists()]
    if missing:
        print(f"no mutmut results in {', '.join(map(str, missing))}: run `make mutation`", file=sys.stderr)
        return 1
    for name, folder in PACKAGES.items():
        print(score_line(name, json.loads((folder / "mutmut-cicd-stats.json").read_text())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
