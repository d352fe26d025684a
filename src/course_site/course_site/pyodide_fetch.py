"""The cache of verified Pyodide files: fetched from the manifest's sources, checked by sha256, linked into a site."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._download import CONNECT_TIMEOUT, Fetcher, Log, SourceError, describe
from .pyodide_manifest import AssetError, Manifest, load_manifest, sha256_file

FETCH_HINT = "run `make assets` (or `python -m course_site.pyodide_assets fetch`)"


@dataclass(frozen=True)
class Asset:
    """One verified file in the cache."""

    name: str
    path: Path
    size: int
    sha256: str
    kind: str  # "core" or "wheel"


def human_size(size: int) -> str:
    """Human size in decimal units, e.g. ``3.1 MB`` or ``15 kB``."""
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def _asset(entry: Mapping[str, Any], path: Path) -> Asset:
    """The :class:`Asset` of a verified manifest entry."""
    return Asset(entry["name"], path, entry["size"], entry["sha256"], entry["kind"])


def verify_assets(manifest_path: Path, cache_dir: Path) -> list[Asset]:
    """Check that every manifest file is in *cache_dir* with its pinned sha256 (no network)."""
    manifest = load_manifest(manifest_path)
    assets: list[Asset] = []
    problems: list[str] = []
    for entry in manifest.files:
        path = Path(cache_dir) / entry["name"]
        if not path.is_file():
            problems.append(f"  - {entry['name']}: missing")
            continue
        actual = sha256_file(path)
        if actual != entry["sha256"]:
            problems.append(f"  - {entry['name']}: corrupt: sha256 {actual}, expected {entry['sha256']}")
            continue
        assets.append(_asset(entry, path))
    if problems:
        raise AssetError(
            f"pyodide assets: {len(problems)} file(s) in {cache_dir} are missing or corrupt:\n"
            + "\n".join(problems)
            + f"\nDelete any corrupt file and {FETCH_HINT}: it fetches what is missing and "
            "verifies every file by sha256."
        )
    return assets


def fetch_assets(
    manifest_path: Path,
    cache_dir: Path,
    *,
    log: Log = print,
    timeout: float = CONNECT_TIMEOUT,
) -> list[Asset]:
    """Make sure every manifest file is in *cache_dir*, verified by sha256; return them.

    Cached files are re-hashed on every call; a corrupt cached file is deleted and fetched
    again. Missing files are fetched from their sources in manifest order, verified, and
    renamed into place atomically. A download with the wrong sha256 raises
    :class:`AssetError` at once; if every source fails for some files, the error lists
    each source with its error and how to supply the files by hand.
    """
    start = time.monotonic()
    manifest = load_manifest(manifest_path)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    found: dict[str, Asset] = {}
    for entry in manifest.files:
        cached = _reuse_cached(entry, cache_dir, log)
        if cached is not None:
            found[entry["name"]] = cached
    missing = [entry for entry in manifest.files if entry["name"] not in found]
    if missing:
        found.update(_fetch_missing(manifest, missing, cache_dir, log, timeout))
    assets = [found[entry["name"]] for entry in manifest.files]
    total = sum(asset.size for asset in assets)
    log(
        f"pyodide assets: {len(assets)} files verified in {cache_dir} ({human_size(total)}, "
        f"{len(missing)} fetched, {time.monotonic() - start:.2f} s)"
    )
    return assets


def _reuse_cached(entry: Mapping[str, Any], cache_dir: Path, log: Log) -> Asset | None:
    """The cached file if its sha256 is right; a corrupt one is deleted (to be re-fetched)."""
    path = cache_dir / entry["name"]
    if not path.is_file():
        return None
    actual = sha256_file(path)
    if actual == entry["sha256"]:
        return _asset(entry, path)
    log(
        f"pyodide assets: cached {entry['name']} is corrupt (sha256 {actual}, expected "
        f"{entry['sha256']}); deleting it and fetching it again"
    )
    path.unlink()
    return None


def _fetch_missing(
    manifest: Manifest,
    entries: Sequence[Mapping[str, Any]],
    cache_dir: Path,
    log: Log,
    timeout: float,
) -> dict[str, Asset]:
    """Fetch *entries* from their sources; archives are downloaded once for the whole run."""
    fetched: dict[str, Asset] = {}
    failures: dict[str, list[tuple[str, str]]] = {}
    with tempfile.TemporaryDirectory(prefix="pyodide-assets-") as work:
        fetcher = Fetcher(manifest.sources, manifest.path.parent, Path(work), timeout=timeout, log=log)
        for entry in entries:
            errors: list[tuple[str, str]] = []
            for key in entry["sources"]:
                try:
                    fetched[entry["name"]] = _fetch_one(manifest, entry, key, fetcher, cache_dir)
                except SourceError as exc:
                    errors.append((key, str(exc)))
                    continue
                log(f"pyodide assets: fetched {entry['name']} from {fetcher.label(key)} ({human_size(entry['size'])})")
                break
            else:
                failures[entry["name"]] = errors
    if failures:
        raise AssetError(_unfetchable_message(manifest, failures, cache_dir))
    return fetched


def _fetch_one(
    manifest: Manifest,
    entry: Mapping[str, Any],
    key: str,
    fetcher: Fetcher,
    cache_dir: Path,
) -> Asset:
    """Download one file from one source to a temp file, verify it, rename it into place."""
    final = cache_dir / entry["name"]
    fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{entry['name']}.", suffix=".part")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        fetcher.fetch_to(key, entry["name"], tmp)
        actual = sha256_file(tmp)
        if actual != entry["sha256"]:
            raise AssetError(_mismatch_message(manifest, entry, actual, key, final))
        tmp.chmod(0o644)  # mkstemp creates 0600; the site must serve these files
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return _asset(entry, final)


def _mismatch_message(manifest: Manifest, entry: Mapping[str, Any], actual: str, key: str, final: Path) -> str:
    """Error text for a download whose sha256 differs from the pin."""
    pinned_by = "the manifest and the official pyodide-lock.json"
    if entry["kind"] != "wheel":
        pinned_by = f"the manifest {manifest.path}"
    label = manifest.sources[key].get("label", key)
    return (
        f"pyodide assets: {entry['name']} downloaded from {label} "
        f"({describe(manifest.sources[key])}) has sha256 {actual}, expected "
        f"{entry['sha256']} (pinned by {pinned_by}). The download was discarded. "
        f"To fetch again, delete {final} if it exists and {FETCH_HINT}. If it keeps "
        "happening, that source serves a different file: put the right file into "
        f"{final.parent} by hand (it is verified by sha256)."
    )


def _unfetchable_message(manifest: Manifest, failures: Mapping[str, list[tuple[str, str]]], cache_dir: Path) -> str:
    """Error text when every source failed for some files: sources, errors, manual steps."""
    by_name = {entry["name"]: entry for entry in manifest.files}
    tried: dict[str, list[str]] = {}
    for errors in failures.values():
        for key, error in errors:
            if error not in tried.setdefault(key, []):
                tried[key].append(error)
    lines = [f"pyodide assets: could not fetch {len(failures)} file(s) into {cache_dir}."]
    lines.append("Sources tried (in manifest order):")
    for key, errors in tried.items():
        spec = manifest.sources[key]
        lines.append(f"  - {spec.get('label', key)} [{describe(spec)}]:")
        lines.extend(f"      {error}" for error in errors[:5])
        if len(errors) > 5:
            lines.append(f"      ... and {len(errors) - 5} more")
    lines.append(f"To supply the files by hand, copy them into {cache_dir}/ with exactly these names:")
    for name in failures:
        entry = by_name[name]
        lines.append(f"  - {name} ({entry['size']} bytes, sha256 {entry['sha256']})")
    lines.append(
        f"Every file is verified by sha256 against {manifest.path} (wheels also against the "
        "official pyodide-lock.json next to it), so any copy of Pyodide "
        f"{manifest.version} works: the npm package pyodide@{manifest.version} (core files), "
        "the Pyodide release tarball or CDN (everything). Then "
        f"{FETCH_HINT} again."
    )
    return "\n".join(lines)


def copy_assets(assets: Iterable[Asset], dest_dir: Path) -> list[Path]:
    """Hardlink (or copy, across filesystems) each asset into *dest_dir*; return the paths."""
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    return [_link_or_copy(asset.path, dest_dir / asset.name) for asset in assets]


def _link_or_copy(src: Path, dest: Path) -> Path:
    """Atomically place *src* at *dest*, sharing the inode when the filesystem allows."""
    if dest.exists() and os.path.samefile(src, dest):
        return dest
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dest)
    return dest
