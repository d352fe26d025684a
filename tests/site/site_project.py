"""A one-lesson project, built as a maintainer builds the site: the helpers of the build's tests
(``tests/site``) and of the browser tests that build a page of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYODIDE_VERSION = json.loads((ROOT / "pyodide_assets/manifest.json").read_text())["pyodide_version"]
PYODIDE_INDEX = f"pyodide/v{PYODIDE_VERSION}"  # where the site serves Pyodide
SETTINGS = "assets/course/worker-settings.json"
CACHE = Path()  # the session's build cache (tests/site/conftest.py sets it), shared by every project built here


def make_project(tmp_path: Path, lesson: str, *, language: str | None = None, **plugin: object) -> Path:
    """A one-lesson MkDocs project using the repo's Pyodide cache and posenc (in Material's ``language``)."""
    options = {
        "pyodide_manifest": str(ROOT / "pyodide_assets/manifest.json"),
        "pyodide_cache": str(ROOT / "pyodide_assets/files"),
        "package_project": str(ROOT),
        "package_source": "src/posenc",
        "cache_dir": str(CACHE),
        "precompile_stdlib": False,  # Node boots Pyodide for it: only where a test checks it
        **plugin,
    }
    config = {
        "site_name": "t",
        "docs_dir": "docs",
        "theme": {"name": "material", "font": False, **({"language": language} if language else {})},
        "nav": [{"Home": "index.md"}, {"Lesson": "lessons/lesson.md"}],
        "plugins": [{"course": options}],
        "markdown_extensions": [
            "admonition",
            "pymdownx.superfences",
            {"pymdownx.tabbed": {"alternate_style": True}},
            {"pymdownx.arithmatex": {"generic": True}},
        ],
    }
    (tmp_path / "mkdocs.yml").write_text(json.dumps(config))  # JSON is YAML
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/index.md").write_text("# Home\n")
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons/lesson.md").write_text(textwrap.dedent(lesson))
    return tmp_path


def build(project: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=project,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


def failing_build(project: Path, env: dict[str, str] | None = None) -> str:
    """What a build of ``project`` that must fail says on stderr (the test fails if the build succeeds)."""
    done = build(project, env)
    assert done.returncode != 0, f"the build succeeded:\n{done.stderr}"
    return done.stderr


def lesson_text(project: Path) -> str:
    return (project / "lessons/lesson.md").read_text()


def lesson_html(project: Path) -> str:
    return (project / "site/lessons/lesson/index.html").read_text()


# A lesson page with one exercise (two hints) and one cell: the build's exercise tests' page, and the
# browser's (tests/browser/test_exercise_check_pyodide.py).
EXERCISE_PAGE = """\
# Exercises

```pyodide exercise="The period of a pair" height="6"
# --- setup ---
import math

# --- code ---
period = None  # the period of pair 0
# --- check ---
expect_defined("period")
assert period is not None, "Set `period` to the period of pair 0."
expect_close(period, 2 * math.pi, name="period")
# --- solution ---
period = 2 * math.pi
# --- hint ---
Pair 0 turns by one radian per position.

# --- hint ---
A full turn is $2\\pi$ radians: `math.pi` is there.
```

```pyodide
x = 1
```
"""
