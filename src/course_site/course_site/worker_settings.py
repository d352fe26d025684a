"""What the pages and ``worker-settings.json`` tell the browser, fixed once per build: the site's
trimmed lock, the worker's settings (preload, output limits, time limit, the build's version) and the
inline script that starts the worker."""

from __future__ import annotations

import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path

from . import derived_bytecode, pyodide_manifest
from .contract import BRIDGE_MODULE, PYTHON_FILES
from .errors import SettingsError
from .markup import Raw, tag
from .shipped_python import ShippedPython, package_entry
from .site_layout import (
    FONT_CACHE,
    SERVICE_WORKER_NAME,
    SITE_FOLDER,
    WORKER,
    WORKER_PRESTART,
    runner_digest,
    runner_folder,
)


@dataclass(frozen=True)
class OutputLimits:
    """How much stdout and stderr one run of a cell shows, in the browser and in the build alike."""

    lines: int
    chars: int


@dataclass(frozen=True)
class WorkerSettings:
    """What the pages and ``worker-settings.json`` tell the browser, fixed once per build."""

    lock_text: str
    config: dict  # worker-settings.json

    @property
    def lock_name(self) -> str:
        return self.config["lock_file_url"]

    @property
    def version(self) -> str:
        return self.config["version"]

    @property
    def runner_folder(self) -> str:
        """This build's runner folder, from the site's root (`runner_folder`)."""
        return f"{SITE_FOLDER}/{self.config['runner_folder'].rstrip('/')}"

    def runner_files(self, names: list[str]) -> list[str]:
        """``names`` (paths inside the runner, e.g. `STYLESHEETS`) as site paths in this build's runner folder."""
        return [f"{self.runner_folder}/{name}" for name in names]


def worker_settings(
    shipped: ShippedPython,
    site_url: str | None,
    *,
    preload: list[str],
    time_limit: int,
    module_hint: str,
    output_limits: OutputLimits,
) -> WorkerSettings:
    """The site's trimmed lock (with the course package) and worker-settings.json.

    Paths in them are relative to worker-settings.json. Raises `SettingsError` when a CDN
    serves Pyodide but ``site_url`` is unset (the lock then needs the wheel's absolute URL),
    or when the course package requires a package that the site does not ship.
    """
    try:
        lock = pyodide_manifest.site_lock(
            shipped.manifest, [package_entry(shipped, site_url, shipped.base_url is None)]
        )
    except ValueError as error:
        raise SettingsError(f"course: the site's Pyodide lock: {error}") from None
    lock_text = json.dumps(lock, separators=(",", ":"), sort_keys=True)
    lock_hash = hashlib.sha256(lock_text.encode()).hexdigest()[:16]
    config = {
        "pyodide_index_url": shipped.base_url or f"../../{shipped.index_path}",
        "lock_file_url": f"pyodide-lock-{lock_hash}.json",
        "preload_packages": preload,
        # Their wheels' lock entries, so that the worker starts them before it has read the lock.
        "preload_wheels": _preload_wheels(lock, preload),
        "import_packages": shipped.import_packages,
        "module_hint": module_hint,
        "download_bytes": {
            "core": shipped.core_bytes,
            "numpy": shipped.package_bytes("numpy"),
            "matplotlib": shipped.package_bytes("matplotlib"),
            shipped.wheel.name: shipped.wheel.path.stat().st_size,
        },
        "time_limit_s": time_limit,
        "output_max_lines": output_limits.lines,
        "output_max_chars": output_limits.chars,
        "pyodide_version": shipped.version,
        "pyodide_build_id": shipped.build_id,
        # The derived bytecode, each checked by sha256: the pre-compiled stdlib (the official
        # python_stdlib.zip is the fallback) and the preloaded packages' (compiling is the fallback).
        "stdlib": _derived_entry(shipped, shipped.bytecode.stdlib) if shipped.bytecode else None,
        "package_bytecode": _derived_entry(shipped, shipped.bytecode.packages)
        if shipped.bytecode and shipped.bytecode.packages
        else None,
        "service_worker": f"../../{SERVICE_WORKER_NAME}",
        "runner_folder": f"{runner_folder().removeprefix(SITE_FOLDER + '/')}/",
        "python_files": list(PYTHON_FILES),  # in the runner folder's py/: the worker writes each into Pyodide
        "python_bridge": BRIDGE_MODULE,  # the one it imports
        "matplotlib_font_cache": f"../../{shipped.index_path}{FONT_CACHE}",
        # Names the caches and busts browser caches: changes with Pyodide, the package, the lock and the runner.
        "version": f"{shipped.version}-{shipped.wheel.sha256[:8]}-{lock_hash[:8]}-{runner_digest()[:8]}",
    }
    return WorkerSettings(lock_text, config)


def _preload_wheels(lock: dict, preload: list[str]) -> dict[str, dict[str, str]]:
    """The lock's ``file_name`` and ``sha256`` of the ``preload`` packages and their dependencies, by lock key."""
    try:
        keys = pyodide_manifest.dependency_closure(lock, preload)
    except pyodide_manifest.AssetError as error:
        raise SettingsError(f"course: preload: {error}") from None
    return {key: {field: lock["packages"][key][field] for field in ("file_name", "sha256")} for key in keys}


def _derived_entry(shipped: ShippedPython, derived: derived_bytecode.DerivedZip) -> dict:
    """A derived zip's entry in worker-settings.json: its URL (from there) and sha256."""
    return {"url": f"../../{shipped.index_path}{derived.file_name}", "sha256": derived.sha256}


def starter_script(page_url: str, settings: WorkerSettings, *, console: bool = True) -> str:
    """The inline ``<script>`` that starts the page's Python worker from ``<head>`` (worker_prestart.js).

    It carries the page's build (``data-version``): a page whose build is not the settings' reloads (kernel.js);
    and, with ``console=False``, ``data-console="off"``: the page has no Python console (console.js).
    """
    worker = f"{_relative_url(settings.runner_files([WORKER])[0], page_url)}?v={settings.version}"
    attributes = {"data-worker": worker, "data-version": settings.version}
    if not console:
        attributes["data-console"] = "off"
    return tag("script", attributes, Raw(_script_code(WORKER_PRESTART))).html


def _relative_url(path: str, page_url: str) -> str:
    """A site path as a link from the page at ``page_url`` (``lessons/a/``, ``a.html`` or ``""``)."""
    folder = posixpath.dirname(page_url) if "." in posixpath.basename(page_url) else page_url
    return posixpath.relpath(path, folder or ".")


def _script_code(path: Path) -> str:
    """A script's code without its leading comment (which documents it in the repository)."""
    text = path.read_text()
    if text.startswith("/*"):
        text = text[text.index("*/") + 2 :]
    return text.strip()
