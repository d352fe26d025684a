"""Declarative options of the ``course`` plugin (``plugins: - course: ...`` in mkdocs.yml)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from . import limits
from .exercises import SOLUTION_RULES


class CourseConfig(Config):
    """Options of the ``course`` plugin, with their defaults."""

    lessons_dir = c.Type(str, default="lessons")
    """Folder of lesson Markdown files, relative to mkdocs.yml; published under ``lessons/``."""

    course_end = c.Type(str, default="")
    """Markdown of "Where to go next", in the end-of-course section under the last lesson of ``nav``."""

    package_project = c.Type(str, default=".")
    """Folder holding the ``pyproject.toml`` of the course's own Python package, relative to
    mkdocs.yml. The plugin builds its wheel and serves it, so ``import <package>`` works in cells."""

    package_source = c.Type(str)
    """That package's import folder, relative to ``package_project`` (required; e.g. ``src/posenc``).
    Its name is the module cells import; its wheel is what build-time runs install too; ``mkdocs serve`` watches it."""

    preload = c.ListOfItems(c.Type(str), default=[])
    """Lock packages loaded and imported with Python itself, before any Run (e.g. ``[numpy, posenc]``)."""

    import_packages = c.DictOfItems(c.ListOfItems(c.Type(str)), default={})
    """Module -> lock packages its import needs that a scan of the cell's imports does not reveal
    (e.g. ``posenc.plot: [matplotlib]``, for a module that imports matplotlib itself)."""

    module_hint = c.Type(str, default="")
    """Note added to a cell's ``ModuleNotFoundError``; ``{name}`` is the missing module (``{name!r}`` quoted).
    Empty: the catalogue's ``python.module_hint`` in the site's language (``strings`` overrides it too)."""

    strings = c.Type(dict, default={})
    """The course's words, by key, over the catalogue of ``theme.language`` (``course_site/catalogues/``):
    ``{"cell.run": "Exécuter"}``; a string that counts takes its plural forms (``{"one": …, "other": …}``).
    An unknown key, or a string without one of the English one's placeholders, fails the build at its line."""

    pyodide_manifest = c.Type(str, default="pyodide_assets/manifest.json")
    """Pinned Pyodide manifest: each file, its sources and its sha256."""

    pyodide_cache = c.Type(str, default="pyodide_assets/files")
    """Where verified Pyodide files are cached between builds (git-ignored)."""

    pyodide_base_url = c.Optional(c.Type(str))
    """Load Pyodide from this URL (a CDN) instead of the self-hosted copy."""

    precompile_stdlib = c.Type(bool, default=True)
    """Ship a derived ``python_stdlib-pyc-<hash>.zip``, the boot stdlib (the pre-compiled modules that a
    boot loads; the rest come from the official stdlib on first import), and the preloaded packages'
    bytecode (self-hosted Pyodide only; needs Node.js at build time). The first boot downloads and
    compiles less."""

    execute = c.Type(bool, default=True)
    """Run every cell at build time and embed its output."""

    execute_timeout = c.Type(int, default=60)
    """Seconds one page's cells may run at build time (Python's start not counted) before the build
    fails at the cell that was running."""

    cache_dir = c.Type(str, default=".cache/course")
    """Build cache: cell outputs and the posenc wheel, keyed by content."""

    solutions = c.Choice(SOLUTION_RULES, default="after-check")
    """When an exercise's "Show solution" appears: ``always`` (from the start), ``after-check`` (once the
    learner has checked their code once) or ``after-pass`` (once it passes); an exercise's fence option
    ``solutions="…"`` overrides it there.  A solved exercise keeps its solution at hand on later visits."""

    console = c.Type(bool, default=True)
    """A Python console on every page with cells, sharing the page's namespace (its header button, Ctrl+`);
    a page's front matter ``console: false`` turns it off there."""

    time_limit = c.Type(int, default=limits.TIME_LIMIT_S)
    """Seconds a cell may run in the browser before it is stopped; 0 turns the limit off."""

    output_max_lines = c.Type(int, default=limits.MAX_LINES)
    """Lines of stdout and stderr one run of a cell shows, in the browser and in the built page;
    the rest is dropped with a notice (written into worker-settings.json for the worker)."""

    output_max_chars = c.Type(int, default=limits.MAX_CHARS)
    """Characters of stdout and stderr one run of a cell shows (same notice); a result or an
    error longer than this is cut too."""
