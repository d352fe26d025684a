"""A manifest written for a Pyodide release: its files found or downloaded, hashed and pinned to its lock."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._download import Fetcher, Log, SourceError
from .pyodide_manifest import LOCK_NAME, MANIFEST_FORMAT, AssetError, dependency_closure, sha256_file

CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
ROOT_PACKAGES = ("numpy", "matplotlib", "jedi")  # jedi: the editor's completion (worker/complete.js)
CDN_BASE = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"


def default_sources(version: str, mirror: Mapping[str, str] | None = None) -> dict[str, dict]:
    """Sources for a Pyodide *version*: npm package, CDN, and *mirror* if given.

    *mirror* is a ``pip`` source spec (see :mod:`course_site._download`); :func:`known_mirror`
    finds the one a manifest already names for *version*.
    """
    sources: dict[str, dict] = {
        "npm": {
            "type": "npm",
            "label": f"npm pyodide@{version}",
            "package": f"pyodide@{version}",
            "prefix": "package/",
        },
        "cdn": {
            "type": "url",
            "label": "Pyodide CDN",
            "base_url": CDN_BASE.format(version=version),
        },
    }
    if mirror:
        sources["mirror"] = dict(mirror)
    return sources


def pip_mirror(requirement: str, prefix: str) -> dict[str, str]:
    """The source spec of a wheel on PyPI carrying Pyodide's files under *prefix*."""
    label = re.split(r"[=<>!~ ;\[]", requirement, maxsplit=1)[0]
    return {"type": "pip", "label": label, "requirement": requirement, "prefix": prefix}


def known_mirror(manifests: Iterable[Path], version: str) -> dict[str, str] | None:
    """The ``mirror`` source of the first existing manifest pinning Pyodide *version*, if any.

    The mirror of a release is manifest data: regenerating a manifest for the same
    release keeps it; a new release needs ``--mirror`` (or does without one).
    """
    for path in manifests:
        if Path(path).is_file():
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if data.get("pyodide_version") == version and "mirror" in data.get("sources", {}):
                return data["sources"]["mirror"]
    return None


def build_manifest(
    lock_path: Path,
    files_dirs: Sequence[Path] = (),
    *,
    packages: Sequence[str] = ROOT_PACKAGES,
    sources: Mapping[str, Mapping[str, str]] | None = None,
    core_files: Sequence[str] = CORE_FILES,
    base_dir: Path | None = None,
    log: Log = print,
) -> dict[str, Any]:
    """Manifest dict for the official lock at *lock_path*.

    Files are the *core_files* plus the wheels of the closure of *packages* in the lock.
    Each is taken from the first of *files_dirs* that has it, else fetched from *sources*
    (default: :func:`default_sources` of the lock's version; ``dir`` sources are relative
    to *base_dir*). Core files come from sources ``npm`` then ``mirror``, wheels from
    ``cdn`` then ``mirror``. Wheels must hash to the lock's sha256; core files are not in
    the lock, so their hashes are taken from what the npm package (or the folder) holds.
    """
    raw = Path(lock_path).read_bytes()
    lock = json.loads(raw)
    version = lock["info"]["version"]
    sources = dict(sources) if sources is not None else default_sources(version)
    core_sources = [key for key in ("npm", "mirror") if key in sources]
    wheel_sources = [key for key in ("cdn", "mirror") if key in sources]
    wanted = [(name, None, core_sources) for name in core_files]
    wanted += [(lock["packages"][pkg]["file_name"], pkg, wheel_sources) for pkg in dependency_closure(lock, packages)]
    with tempfile.TemporaryDirectory(prefix="pyodide-manifest-") as work:
        base = Path(base_dir) if base_dir is not None else Path(lock_path).parent
        fetcher = Fetcher(sources, base, Path(work), log=log)
        locate = _Locator(files_dirs, fetcher, Path(work), log)
        files = [_file_entry(name, pkg, srcs, locate, lock) for name, pkg, srcs in wanted]
    return {
        "format": MANIFEST_FORMAT,
        "pyodide_version": version,
        "generated_by": "python -m course_site.pyodide_assets manifest",
        "lock": {"path": LOCK_NAME, "sha256": hashlib.sha256(raw).hexdigest()},
        "packages": list(packages),
        "sources": sources,
        "files": files,
    }


@dataclass
class _Locator:
    """Finds a file for manifest generation: local folders first, then the sources."""

    files_dirs: Sequence[Path]
    fetcher: Fetcher
    work: Path
    log: Log

    def __call__(self, name: str, sources: Sequence[str]) -> Path:
        """Path of a local or freshly downloaded copy of *name*."""
        for folder in self.files_dirs:
            if (Path(folder) / name).is_file():
                return Path(folder) / name
        dest = self.work / "files" / name
        dest.parent.mkdir(exist_ok=True)
        errors = []
        for key in sources:
            try:
                self.fetcher.fetch_to(key, name, dest)
            except SourceError as exc:
                errors.append(f"{self.fetcher.label(key)}: {exc}")
                continue
            self.log(f"pyodide assets: manifest: {name} from {self.fetcher.label(key)}")
            return dest
        raise AssetError(
            f"pyodide assets: cannot find {name} in {[str(d) for d in self.files_dirs]} "
            f"nor fetch it ({'; '.join(errors) or 'no sources'}). Pass a folder holding it "
            "with --files."
        )


def _file_entry(
    name: str,
    package: str | None,
    sources: list[str],
    locate: Callable[[str, Sequence[str]], Path],
    lock: Mapping[str, Any],
) -> dict[str, Any]:
    """Hash one file for the manifest (a wheel must match the lock)."""
    path = locate(name, sources)
    digest = sha256_file(path)
    entry: dict[str, Any] = {"name": name, "kind": "core" if package is None else "wheel"}
    if package is not None:
        entry["package"] = package
        expected = lock["packages"][package]["sha256"]
        if digest != expected:
            raise AssetError(f"pyodide assets: {path} has sha256 {digest}, the official lock says {expected}")
    entry.update(size=path.stat().st_size, sha256=digest, sources=sources)
    return entry


def write_manifest(
    manifest_path: Path,
    lock_path: Path,
    files_dirs: Sequence[Path] = (),
    **options: Any,
) -> dict[str, Any]:
    """Build the manifest (see :func:`build_manifest`), copy the lock next to it
    byte-identical, and write both."""
    manifest_path = Path(manifest_path)
    options.setdefault("base_dir", manifest_path.parent)
    manifest = build_manifest(lock_path, files_dirs, **options)
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    lock_copy = manifest_path.parent / LOCK_NAME
    if not (lock_copy.exists() and os.path.samefile(lock_path, lock_copy)):
        shutil.copyfile(lock_path, lock_copy)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest
