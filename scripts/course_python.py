"""This course's ``course`` plugin options, as mkdocs.yml sets them, and its Python staged for Node.

Imported by ``tests/conftest.py`` (``scripts/`` is on pytest's ``pythonpath``) and
``benchmarks/figure_schemes.py`` (which puts ``scripts/`` on ``sys.path``), so that the build's
tests and the benchmark run cells in the Python the site ships, with the site's own settings.
"""

from __future__ import annotations

import functools
from pathlib import Path

from mkdocs.config import load_config

from course_site.config import CourseConfig
from course_site.local_python import LocalPython, stage_local
from course_site.shipped_python import CoursePackage, prepare

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def course_options() -> CourseConfig:
    """The ``course`` plugin's options in the repository's mkdocs.yml, defaults filled in (read once)."""
    return load_config(str(ROOT / "mkdocs.yml")).plugins["course"].config


def stage_python(folder: Path) -> LocalPython:
    """The course's Python as the site ships it (Pyodide, its lock, the course package's wheel), prepared
    with ``folder`` as the build cache and staged for Node in ``folder / "python"``."""
    options = course_options()
    project = ROOT / options.package_project
    shipped = prepare(
        ROOT / options.pyodide_manifest,
        ROOT / options.pyodide_cache,
        CoursePackage(project, project / options.package_source),
        folder,
        base_url=None,
        import_packages=options.import_packages,
    )
    return stage_local(shipped, folder / "python")
