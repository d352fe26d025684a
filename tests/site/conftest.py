"""Shared by the site tests: one build cache for the session, and the site's Python staged for Node.

Build-time outputs are cached by content, never by where a project lives, so the many small
projects these tests build share one cache: a cell that one test ran is not run again by another.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from course_site import site_assets
from course_site.execute import PageRunner, RunSettings

ROOT = Path(__file__).resolve().parents[2]
HINT = "module {name!r} is not available"
LIMITS = site_assets.OutputLimits(lines=2000, chars=200_000)


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``cache_dir`` of every project the session builds."""
    return tmp_path_factory.mktemp("course-cache")


@pytest.fixture(scope="session")
def local_python(build_cache: Path) -> site_assets.LocalPython:
    """The course's Python as the site ships it (Pyodide, lock, posenc wheel), staged for Node."""
    package = site_assets.CoursePackage(ROOT, ROOT / "src" / "posenc")
    shipped = site_assets.prepare(
        ROOT / "pyodide_assets/manifest.json",
        ROOT / "pyodide_assets/files",
        package,
        build_cache,
        base_url=None,
        import_packages={"posenc.plot": ["matplotlib"]},
    )
    return site_assets.stage_local(shipped, build_cache / "python")


@pytest.fixture
def make_runner(local_python: site_assets.LocalPython, tmp_path: Path):
    """A `PageRunner` with its own cache (``tmp_path``): ``make_runner(timeout=..., limits=..., python=...)``."""

    def make(
        timeout: int = 120, limits: site_assets.OutputLimits = LIMITS, python: site_assets.LocalPython = local_python
    ) -> PageRunner:
        settings = RunSettings([], {"posenc.plot": ["matplotlib"]}, HINT, limits)
        return PageRunner(tmp_path, python, settings, timeout)

    return make
