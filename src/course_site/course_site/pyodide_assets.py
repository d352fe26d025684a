"""Self-hosted, pinned and sha256-verified Pyodide assets for the course site.

``pyodide_assets/manifest.json`` pins every file the site ships from Pyodide: the core
runtime (``pyodide.js``, ``pyodide.asm.js``, ``pyodide.asm.wasm``, ``python_stdlib.zip``)
and the wheels of the dependency closure of numpy, matplotlib and jedi. It records each file's
size and sha256 and the sources to try, in order. Wheel pins must equal the official
``pyodide-lock.json`` (committed next to the manifest, itself pinned by sha256).

API (used by the MkDocs plugin):

* :func:`fetch_assets` fills the cache folder, fetching missing or corrupt files;
* :func:`verify_assets` checks the cache without any network;
* :func:`site_lock` returns the ``pyodide-lock.json`` to publish with the site;
* :func:`copy_assets` hardlinks or copies the files into the built site.

CLI: ``python -m course_site.pyodide_assets {fetch,verify,manifest} [--manifest P] ...``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_site._download import CONNECT_TIMEOUT, Fetcher, SourceError, describe

CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
ROOT_PACKAGES = ("numpy", "matplotlib", "jedi")  # jedi: the editor's completion (worker/complete.js)
DEFAULT_MANIFEST = Path("pyodide_assets/manifest.json")
LOCK_NAME = "pyodide-lock.json"
CDN_BASE = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"
MANIFEST_FORMAT = 1
FETCH_HINT = "run `make assets` (or `python -m course_site.pyodide_assets fetch`)"

LOCK_REQUIRED_FIELDS = ("name", "version", "file_name", "sha256")
LOCK_DEFAULT_FIELDS: dict[str, Any] = {
    "install_dir": "site",
    "package_type": "package",
    "imports": [],
    "depends": [],
    "unvendored_tests": False,
}
"""Field set of a lock entry in the pinned lock's format: the required fields plus these defaults."""

Log = Callable[[str], None]


class AssetError(Exception):
    """A Pyodide asset is missing, corrupt, or could not be fetched from any source."""


@dataclass(frozen=True)
class Asset:
    """One verified file in the cache."""

    name: str
    path: Path
    size: int
    sha256: str
    kind: str  # "core" or "wheel"


@dataclass(frozen=True)
class Manifest:
    """A loaded manifest, already checked against the official lock."""

    path: Path
    version: str
    sources: dict[str, dict[str, str]]
    files: list[dict[str, Any]]
    lock: dict[str, Any]


# -- helpers -------------------------------------------------------------------------------


def _canonical_name(name: str) -> str:
    """Normalize a package name the way Pyodide keys its lock (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _sha256_file(path: Path) -> str:
    """Hex sha256 of a file."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _mb(size: int) -> str:
    """Human size in decimal units, e.g. ``3.1 MB`` or ``15 kB``."""
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def dependency_closure(lock: Mapping[str, Any], roots: Iterable[str]) -> list[str]:
    """Sorted canonical names of *roots* and everything they depend on in *lock*."""
    packages = lock["packages"]
    seen: set[str] = set()
    todo = [_canonical_name(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise AssetError(f"package {name!r} is not in the Pyodide lock")
        seen.add(name)
        todo.extend(_canonical_name(d) for d in packages[name]["depends"])
    return sorted(seen)


# -- manifest loading ----------------------------------------------------------------------


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
    locked = manifest.lock["packages"].get(_canonical_name(entry["package"]))
    if locked is None or (locked["file_name"], locked["sha256"]) != (
        entry["name"],
        entry["sha256"],
    ):
        raise AssetError(
            f"pyodide assets: {manifest.path} pins {entry['name']} sha256 {entry['sha256']}, "
            f"but the official lock says {locked and (locked['file_name'], locked['sha256'])}. "
            "Regenerate the manifest (see pyodide_assets/README.md)."
        )


# -- verify --------------------------------------------------------------------------------


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
        actual = _sha256_file(path)
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


# -- fetch ---------------------------------------------------------------------------------


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
        f"pyodide assets: {len(assets)} files verified in {cache_dir} ({_mb(total)}, "
        f"{len(missing)} fetched, {time.monotonic() - start:.2f} s)"
    )
    return assets


def _reuse_cached(entry: Mapping[str, Any], cache_dir: Path, log: Log) -> Asset | None:
    """The cached file if its sha256 is right; a corrupt one is deleted (to be re-fetched)."""
    path = cache_dir / entry["name"]
    if not path.is_file():
        return None
    actual = _sha256_file(path)
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
                log(f"pyodide assets: fetched {entry['name']} from {fetcher.label(key)} ({_mb(entry['size'])})")
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
        actual = _sha256_file(tmp)
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


# -- site output ---------------------------------------------------------------------------


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
        key = _canonical_name(entry["name"])
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
    entry["depends"] = [_canonical_name(dep) for dep in entry["depends"]]
    return dict(sorted(entry.items()))


def _check_depends(packages: Mapping[str, Mapping[str, Any]]) -> None:
    """Every dependency of every entry must itself be in the lock."""
    for key, entry in packages.items():
        absent = [dep for dep in entry["depends"] if _canonical_name(dep) not in packages]
        if absent:
            raise ValueError(f"lock entry {key!r} depends on {absent}, which are not shipped")


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


# -- manifest generation -------------------------------------------------------------------


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
    digest = _sha256_file(path)
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


# -- CLI -----------------------------------------------------------------------------------


def _size_report(manifest: Manifest) -> list[str]:
    """Download sizes: core alone, core plus each root package's closure, everything."""
    by_package = {_canonical_name(e["package"]): e["size"] for e in manifest.files if e["kind"] == "wheel"}
    core = sum(e["size"] for e in manifest.files if e["kind"] == "core")
    lines = [f"core: {_mb(core)}"]
    for root in ROOT_PACKAGES:
        if _canonical_name(root) in by_package:
            closure = dependency_closure(manifest.lock, [root])
            size = core + sum(by_package[name] for name in closure)
            lines.append(f"core + {root} and its dependencies: {_mb(size)}")
    lines.append(f"all {len(manifest.files)} files: {_mb(core + sum(by_package.values()))}")
    return lines


def _cmd_fetch(args: argparse.Namespace) -> int:
    """``fetch``: fill the cache."""
    fetch_assets(args.manifest, args.cache, timeout=args.timeout)
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    """``verify``: check the cache offline and print download sizes."""
    assets = verify_assets(args.manifest, args.cache)
    print(f"pyodide assets: {len(assets)} files verified in {args.cache}")
    for line in _size_report(load_manifest(args.manifest)):
        print(f"  {line}")
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    """``manifest``: regenerate the manifest from a lock and folders holding the files."""
    lock = args.lock or args.manifest.parent / LOCK_NAME
    version = json.loads(Path(lock).read_text(encoding="utf-8"))["info"]["version"]
    if args.mirror:
        mirror = pip_mirror(args.mirror, args.mirror_prefix)
    else:
        mirror = known_mirror([args.manifest, Path(lock).parent / DEFAULT_MANIFEST.name], version)
    manifest = write_manifest(
        args.manifest,
        lock,
        args.files or (),
        packages=args.package or ROOT_PACKAGES,
        sources=default_sources(version, mirror),
    )
    print(f"pyodide assets: wrote {args.manifest} ({len(manifest['files'])} files, {version})")
    return 0


def _parser() -> argparse.ArgumentParser:
    """Argument parser for the three sub-commands."""
    parser = argparse.ArgumentParser(prog="python -m course_site.pyodide_assets", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func, text in (
        ("fetch", _cmd_fetch, "fetch missing files into the cache, verify everything"),
        ("verify", _cmd_verify, "verify the cache by sha256, no network"),
        ("manifest", _cmd_manifest, "regenerate manifest.json from a lock and files"),
    ):
        cmd = sub.add_parser(name, help=text, description=text)
        cmd.set_defaults(func=func)
        cmd.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
        cmd.add_argument("--cache", type=Path, help="cache folder (default: <manifest dir>/files)")
    sub.choices["fetch"].add_argument("--timeout", type=float, default=CONNECT_TIMEOUT)
    gen = sub.choices["manifest"]
    gen.add_argument(
        "--lock",
        type=Path,
        help="official pyodide-lock.json to pin and copy (default: the one next to the manifest)",
    )
    gen.add_argument(
        "--files",
        type=Path,
        action="append",
        help="folder holding some of the files (repeatable); others are fetched from the sources",
    )
    gen.add_argument("--package", action="append", help="root package (default numpy, matplotlib)")
    gen.add_argument(
        "--mirror",
        help="pip requirement of a wheel carrying the files (default: the mirror that the manifest, "
        "or the one next to the lock, names for this Pyodide version)",
    )
    gen.add_argument("--mirror-prefix", default="", help="folder of the files inside that wheel")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; prints an :class:`AssetError` and returns 1 on failure."""
    args = _parser().parse_args(argv)
    args.cache = args.cache or args.manifest.parent / "files"
    try:
        return args.func(args)
    except AssetError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
