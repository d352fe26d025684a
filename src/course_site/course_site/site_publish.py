"""The course's files written into the built site: the runner, Pyodide, the course package's wheel,
the lock and the worker's settings, the service worker, the offline list, the figures."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from . import pyodide_fetch
from .contract import PUBLISHED_PYTHON_FILES
from .errors import SettingsError
from .shipped_python import ShippedPython, wheel_path
from .site_layout import (
    ASSETS,
    FONT_CACHE,
    SERVICE_WORKER,
    SERVICE_WORKER_NAME,
    SITE_FOLDER,
    WORKER_SETTINGS,
    offline_list_path,
)
from .worker_settings import WorkerSettings

SERVICE_WORKER_POLICY = "./assets/course/js/cache_policy.js"
"""The service worker's import of cache_policy.js, as written in service_worker.js; published from the runner folder."""
NOT_KEPT_OFFLINE = re.compile(
    r"^(pyodide/|sitemap\.xml|course-sw\.js$|assets/course/offline-|assets/javascripts/lunr/)|\.map$"
)
"""Site files the service worker's install does not keep: Pyodide's (the Python worker keeps what it
fetches), the sitemap, source maps and the search's other languages (unused: the site is in English)."""


def publish(shipped: ShippedPython, settings: WorkerSettings, site_dir: Path) -> None:
    """Copy the runner, Pyodide and the course wheel into ``site_dir``; write the lock, the worker
    settings and the list of what the service worker keeps for offline use (`offline_list`)."""
    course = site_dir / SITE_FOLDER
    runner = site_dir / settings.runner_folder
    shutil.copytree(ASSETS, runner, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    for name, path in PUBLISHED_PYTHON_FILES.items():
        (runner / "py" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, runner / "py" / name)
    (site_dir / SERVICE_WORKER_NAME).write_text(service_worker_code(settings.runner_folder))
    index = site_dir / shipped.index_path
    if shipped.base_url is None:
        pyodide_fetch.copy_assets(shipped.assets, index)
    index.mkdir(parents=True, exist_ok=True)
    shutil.copy2(shipped.manifest.with_name(FONT_CACHE), index / FONT_CACHE)
    if shipped.bytecode:
        for derived in (shipped.bytecode.stdlib, shipped.bytecode.packages):
            if derived:
                shutil.copy2(derived.path, index / derived.file_name)
    copy_wheel(shipped, site_dir)
    (course / settings.lock_name).write_text(settings.lock_text)
    (course / WORKER_SETTINGS).write_text(json.dumps(settings.config, indent=2))
    (site_dir / offline_list_path(settings.version)).write_text(json.dumps(offline_list(site_dir), indent=0))


def service_worker_code(runner: str) -> str:
    """service_worker.js as published at the site's root: it imports cache_policy.js from the ``runner`` folder."""
    code = SERVICE_WORKER.read_text()
    if SERVICE_WORKER_POLICY not in code:
        raise SettingsError(f"course: {SERVICE_WORKER.name} no longer imports {SERVICE_WORKER_POLICY}")
    return code.replace(SERVICE_WORKER_POLICY, f"./{runner}/js/cache_policy.js")


def offline_list(site_dir: Path) -> list[str]:
    """Every file of the site that offline use needs, as URLs from the site's root (``x/`` for ``x/index.html``).

    All but Pyodide's files (the Python worker keeps those it fetches, in a cache that outlives a
    deploy), the sitemap and the service worker itself.
    """
    urls = []
    for path in sorted(site_dir.rglob("*")):
        relative = path.relative_to(site_dir).as_posix()
        if path.is_file() and not NOT_KEPT_OFFLINE.search(relative):
            urls.append(relative.removesuffix("index.html") if relative.endswith("index.html") else relative)
    return [url or "./" for url in urls]


def copy_wheel(shipped: ShippedPython, site_dir: Path) -> None:
    target = site_dir / wheel_path(shipped)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(shipped.wheel.path, target)


def publish_figures(figures: dict[str, bytes], site_dir: Path) -> None:
    for path, png in figures.items():
        target = site_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
