"""The pinned Pyodide files: ``pyodide_assets/manifest.json``, read and checked against the official lock.

The manifest pins every file the site ships from Pyodide: the core runtime (``pyodide.js``,
``pyodide.asm.js``, ``pyodide.asm.wasm``, ``python_stdlib.zip``) and the wheels of the dependency
closure of numpy, matplotlib and jedi, each with its size, sha256 and the sources to try, in order.
Wheel pins must equal the official ``pyodide-lock.json`` (committed next to the manifest, itself
pinned by sha256); `site_lock` trims that lock to what the site ships.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOCK_NAME = "pyodide-lock.json"
MANIFEST_FORMAT = 1

LOCK_REQUIRED_FIELDS = ("name", "version", "file_name", "sha256")
LOCK_DEFAULT_FIELDS: dict[str, Any] = {
    "install_dir": "site",
    "package_type": "package",
    "imports": [],
    "depends": [],
    "unvendored_tests": False,
}
"""Field set of a lock entry in the pinned lock's format: the required fields plus these defaults."""


class AssetError(Exception):
    """A Pyodide asset is missing, corrupt, or could not be fetched from any source."""


@dataclass(frozen=True)
class Manifest:
    """A loaded manifest, already checked against the official lock."""

    path: Path
    version: str
    sources: dict[str, dict[str, str]]
    files: list[dict[str, Any]]
    lock: dict[str, Any]


def canonical_name(name: str) -> str:
    """Normalize a package name the way Pyodide keys its lock (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def dependency_closure(lock: Mapping[str, Any], roots: Iterable[str]) -> list[str]:
    """Sorted canonical names of *roots* and everything they depend on in *lock*."""
    packages = lock["packages"]
    seen: set[str] = set()
    todo = [canonical_name(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise AssetError(f"package {name!r} is not in the Pyodide lock")
        seen.add(name)
        todo.extend(canonical_name(d) for d in packages[name]["depends"])
    return sorted(seen)


def load_manifest(manifest_path: Path) -> Manifest:
    """Read the manifest and check the committed lock and the wheel pins against each other."""
    manifest_path = Path(manifest_path)
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AssetError(f"pyodide assets: cannot read manifest {manifest_path}: {exc}") from exc
    if data.get("format") != MANIFEST_FORMAT:
        raise AssetError(f"pyodide assets: {manifest_path} has unknown format {data.get('format')}")
    try:
        lock = _load_pinned_lock(manifest_path, data["lock"])
        manifest = Manifest(
            path=manifest_path,
            version=data["pyodide_version"],
            sources=data["sources"],
            files=data["files"],
            lock=lock,
        )
        _check_manifest(manifest)
    except (KeyError, TypeError) as exc:
        raise AssetError(f"pyodide assets: {manifest_path} is malformed: missing {exc}") from exc
    return manifest


def _load_pinned_lock(manifest_path: Path, pin: Mapping[str, str]) -> dict[str, Any]:
    """Load the official lock next to the manifest, refusing it unless its sha256 matches."""
    lock_path = manifest_path.parent / pin["path"]
    try:
        raw = lock_path.read_bytes()
    except OSError as exc:
        raise AssetError(f"pyodide assets: cannot read the official lock {lock_path}: {exc}") from exc
    actual = hashlib.sha256(raw).hexdigest()
    if actual != pin["sha256"]:
        raise AssetError(
            f"pyodide assets: {lock_path} has sha256 {actual}, but {manifest_path} pins "
            f"{pin['sha256']}. Restore the committed file, or regenerate the manifest "
            "(see pyodide_assets/README.md)."
        )
    return json.loads(raw)


def _check_manifest(manifest: Manifest) -> None:
    """Every wheel pin equals the lock; every file names known sources."""
    if manifest.lock["info"]["version"] != manifest.version:
        raise AssetError(
            f"pyodide assets: lock is for Pyodide {manifest.lock['info']['version']}, manifest for {manifest.version}"
        )
    for entry in manifest.files:
        unknown = [key for key in entry["sources"] if key not in manifest.sources]
        if unknown:
            raise AssetError(f"pyodide assets: {entry['name']} names unknown sources {unknown}")
        if entry["kind"] == "wheel":
            _check_wheel_pin(manifest, entry)


def _check_wheel_pin(manifest: Manifest, entry: Mapping[str, Any]) -> None:
    """A wheel's manifest pin must be the official lock's entry, byte for byte."""
    locked = manifest.lock["packages"].get(canonical_name(entry["package"]))
    if locked is None or (locked["file_name"], locked["sha256"]) != (
        entry["name"],
        entry["sha256"],
    ):
        raise AssetError(
            f"pyodide assets: {manifest.path} pins {entry['name']} sha256 {entry['sha256']}, "
            f"but the official lock says {locked and (locked['file_name'], locked['sha256'])}. "
            "Regenerate the manifest (see pyodide_assets/README.md)."
        )


def site_lock(manifest_path: Path, extra_packages: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The ``pyodide-lock.json`` to publish: the official lock trimmed to shipped wheels.

    Keeps ``info`` unchanged (Pyodide refuses a lock whose ``info.version`` differs from its
    own) and only the package entries whose ``file_name`` is shipped, then adds
    *extra_packages*. Each extra is an entry of the pinned lock's format: required ``name``,
    ``version``, ``file_name`` (relative to the site's Pyodide folder, or a URL) and
    ``sha256`` (hex; Pyodide checks it as subresource integrity); optional ``install_dir``
    ("site"), ``package_type`` ("package"), ``imports`` ([]), ``depends`` ([]: canonical names
    that must be in the result) and ``unvendored_tests`` (False). ``shared_library`` (the
    pre-0.26 boolean) is accepted and mapped to ``package_type``; other keys are refused.
    Raises ValueError for a bad extra.
    """
    manifest = load_manifest(manifest_path)
    shipped = {entry["name"] for entry in manifest.files if entry["kind"] == "wheel"}
    packages = {key: dict(value) for key, value in manifest.lock["packages"].items() if value["file_name"] in shipped}
    for extra in extra_packages:
        entry = lock_entry(extra)
        key = canonical_name(entry["name"])
        if key in packages:
            raise ValueError(f"extra package {entry['name']!r} is already in the lock")
        packages[key] = entry
    _check_depends(packages)
    return {"info": dict(manifest.lock["info"]), "packages": dict(sorted(packages.items()))}


def lock_entry(extra: Mapping[str, Any]) -> dict[str, Any]:
    """Normalize one extra lock entry to the pinned lock's field set (see :func:`site_lock`)."""
    entry = dict(extra)
    missing = [field for field in LOCK_REQUIRED_FIELDS if not entry.get(field)]
    if missing:
        raise ValueError(f"extra lock entry {extra!r} lacks {missing}")
    if "shared_library" in entry:
        shared = entry.pop("shared_library")
        entry.setdefault("package_type", "shared_library" if shared else "package")
    unknown = sorted(set(entry) - set(LOCK_REQUIRED_FIELDS) - set(LOCK_DEFAULT_FIELDS))
    if unknown:
        raise ValueError(f"extra lock entry {entry['name']!r} has unknown fields {unknown}")
    if not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
        raise ValueError(f"extra lock entry {entry['name']!r}: sha256 must be 64 hex digits")
    for field, default in LOCK_DEFAULT_FIELDS.items():
        entry.setdefault(field, list(default) if isinstance(default, list) else default)
    entry["depends"] = [canonical_name(dep) for dep in entry["depends"]]
    return dict(sorted(entry.items()))


def _check_depends(packages: Mapping[str, Mapping[str, Any]]) -> None:
    """Every dependency of every entry must itself be in the lock."""
    for key, entry in packages.items():
        absent = [dep for dep in entry["depends"] if canonical_name(dep) not in packages]
        if absent:
            raise ValueError(f"lock entry {key!r} depends on {absent}, which are not shipped")
