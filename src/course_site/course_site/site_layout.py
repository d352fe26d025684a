"""Where the course's files are in the built site.

Layout under the site folder::

    course-sw.js                 the service worker: offline use, the site's pages revalidated
    pyodide/v<version>/          verified Pyodide core files and wheels, matplotlib's font list,
                                 the derived bytecode: python_stdlib-pyc-<hash>.zip (the boot
                                 stdlib), site-packages-pyc-<hash>.zip (the preloaded packages')
    assets/course/runner-<hash>/js|css|vendor|py|fonts/   the cell runner, in a folder named by its
                                 content, so that a page only ever loads its own build's runner
    assets/course/wheels/<hash>/<package>-<version>-py3-none-any.whl   the course package
    assets/course/pyodide-lock-<hash>.json   the official lock, trimmed, plus the course package
    assets/course/worker-settings.json   where all of the above is, for the Python worker (revalidated)
    assets/course/offline-<version>.json   what the service worker's install keeps for offline use
    assets/course/figures/<hash>.png   build-time figures of the cells
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .contract import PUBLISHED_PYTHON_FILES

ASSETS = Path(__file__).parent / "assets"
SITE_FOLDER = "assets/course"
STYLESHEETS = ["css/course.css", "css/ansi.css", "math.css"]  # in the runner folder (runner_folder())
ENHANCE = "js/enhance.js"
WORKER = "js/worker/main.js"
WORKER_PRESTART = Path(__file__).with_name("worker_prestart.js")
"""Inlined at the top of ``<head>`` on pages with cells: starts the Python worker during parsing."""
FONT_CACHE = "matplotlib-fontlist.json"
"""matplotlib's font list, prebuilt in Pyodide by scripts/matplotlib_font_cache.mjs."""
SERVICE_WORKER = Path(__file__).with_name("service_worker.js")
SERVICE_WORKER_NAME = "course-sw.js"  # at the site root, so that its scope covers every page
WORKER_SETTINGS = "worker-settings.json"


def runner_digest() -> str:
    """sha256 over the runner's files (scripts, styles, the cells' Python) and the service worker."""
    digest = hashlib.sha256()
    files = {path.relative_to(ASSETS.parent).as_posix(): path for path in ASSETS.rglob("*") if path.is_file()}
    files |= {f"assets/py/{name}": path for name, path in PUBLISHED_PYTHON_FILES.items()}
    files |= {path.relative_to(ASSETS.parent).as_posix(): path for path in (SERVICE_WORKER, WORKER_PRESTART)}
    for name, path in sorted(files.items()):
        if "__pycache__" not in path.parts:
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def runner_folder() -> str:
    """Where the runner's files are published, from the site's root: a folder named by their content.

    A page links its own build's runner, so a page kept by a browser cache never runs with the
    scripts of a later deploy (nor a new page with a cached old script): each build's are elsewhere.
    """
    return f"{SITE_FOLDER}/runner-{runner_digest()[:16]}"


def offline_list_path(version: str) -> str:
    """Where the build lists what offline use needs (the service worker's install reads it)."""
    return f"{SITE_FOLDER}/offline-{version}.json"


def figure_path(png: bytes) -> str:
    """Where a build-time figure is published: named by its content, so it caches forever."""
    return f"{SITE_FOLDER}/figures/{hashlib.sha256(png).hexdigest()[:16]}.png"
