"""The shipped Python laid out on disk as a self-hosted site serves it, for the build's runs under Node."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import pyodide_fetch, pyodide_manifest
from .shipped_python import ShippedPython, package_entry
from .site_layout import FONT_CACHE, SITE_FOLDER
from .site_publish import copy_wheel


@dataclass(frozen=True)
class LocalPython:
    """The shipped Python laid out on disk as the site serves it, for build-time runs under Node."""

    index: Path  # the Pyodide folder (``indexURL``)
    lock: Path  # the site's lock, the course package's wheel at its place beside it
    lock_text: str
    font_list: Path  # matplotlib's prebuilt font list, as the worker installs it
    stdlib: Path | None = None  # the derived stdlib the worker boots with; None: the official one
    bytecode: Path | None = None  # the preloaded packages' .pyc the worker extracts; None: none


def stage_local(shipped: ShippedPython, dest: Path) -> LocalPython:
    """Lay out the site's Pyodide files, the course wheel and the self-hosted lock under ``dest``.

    The same files and lock as a self-hosted site publishes (hardlinked where the filesystem
    allows), whatever ``pyodide_base_url`` says, so that the build runs cells in the learner's Python;
    with the derived bytecode, when the site ships it, as the worker boots with it.
    """
    index = dest / shipped.index_path
    pyodide_fetch.copy_assets(shipped.assets, index)
    copy_wheel(shipped, dest)
    lock = pyodide_manifest.site_lock(shipped.manifest, [package_entry(shipped, None, True)])
    lock_text = json.dumps(lock, separators=(",", ":"), sort_keys=True)
    lock_path = dest / SITE_FOLDER / "pyodide-lock.json"
    lock_path.write_text(lock_text)
    font_list = shipped.manifest.with_name(FONT_CACHE)
    derived = shipped.bytecode
    if derived is None:
        return LocalPython(index, lock_path, lock_text, font_list)
    packages = derived.packages.path if derived.packages else None
    return LocalPython(index, lock_path, lock_text, font_list, derived.stdlib.path, packages)
