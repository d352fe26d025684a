"""The Python the site ships: the verified Pyodide files, the official lock, the course package's
wheel and the derived bytecode; what each download weighs as served, and which packages a cell needs."""

from __future__ import annotations

import gzip
import json
import logging
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from course_kernel import cell_exec

from . import derived_bytecode, pyodide_fetch, pyodide_manifest
from .contract import PYTHON_FILES
from .errors import SettingsError
from .site_layout import ASSETS, SITE_FOLDER
from .strings import current, s
from .wheel import Wheel, build_wheel

MB = 1e6
SERVED_GZIPPED = (".js", ".mjs", ".json", ".wasm", ".py")
"""File types that GitHub Pages sends gzipped; zips and wheels go as they are (they barely compress)."""
WORKER_FILES = ["js/protocol.js", "js/cache_policy.js", "js/worker/*.js"]  # and PYTHON_FILES, in the runner's py/
"""The Python worker's own files (in the runner folder) that it fetches as it boots."""
log = logging.getLogger("mkdocs.plugins.course")


@dataclass(frozen=True)
class CoursePackage:
    """The course's own Python package, built into a wheel that the browser installs.

    ``project`` holds its ``pyproject.toml``; ``source`` is its import package folder
    (``src/posenc``), whose name is the module that cells import.
    """

    project: Path
    source: Path

    @property
    def module(self) -> str:
        return self.source.name


@dataclass
class ShippedPython:
    """The Python the site ships: verified Pyodide files, the official lock, the course package's wheel."""

    version: str  # Pyodide's, from the manifest
    assets: list[pyodide_fetch.Asset]
    manifest: Path
    wheel: Wheel
    package: CoursePackage
    base_url: str | None  # a CDN serving Pyodide, or None for the self-hosted copy
    import_packages: dict[str, list[str]] = field(default_factory=dict)
    bytecode: derived_bytecode.DerivedBytecode | None = None  # self-hosted only

    @cached_property
    def lock(self) -> dict:
        """The official lock: ``info`` and ``packages``."""
        return json.loads(self.manifest.with_name(pyodide_manifest.LOCK_NAME).read_text())

    def package_bytes(self, package: str) -> int:
        """Bytes a package and its dependencies add, beyond numpy's, from the lock."""

        def closure(name: str) -> set[str]:
            return set(pyodide_manifest.dependency_closure(self.lock, [name]))

        names = closure(package) - (closure("numpy") if package != "numpy" else set())
        sizes = {asset.name: asset.size for asset in self.assets}
        return sum(sizes.get(self.lock["packages"][name]["file_name"], 0) for name in names)

    @property
    def core_bytes(self) -> int:
        """What booting Python downloads: the core files, the derived stdlib in the official one's
        place and the preloaded packages' bytecode."""
        core = sum(asset.size for asset in self.assets if asset.kind == "core")
        if self.bytecode:
            official = next(asset for asset in self.assets if asset.name == derived_bytecode.OFFICIAL)
            core += self.bytecode.stdlib.path.stat().st_size - official.size
            core += self.bytecode.packages.path.stat().st_size if self.bytecode.packages else 0
        return core

    @cached_property
    def build_id(self) -> str:
        """Pyodide's BUILD_ID, read from the verified ``pyodide.js`` (a memory snapshot names it)."""
        script = next(asset.path for asset in self.assets if asset.name == "pyodide.js")
        found = re.search(r'BUILD_ID:"([0-9a-f]{64})"', Path(script).read_text())
        if not found:
            raise SettingsError(f"course: no BUILD_ID in {script}")
        return found[1]

    @property
    def index_path(self) -> str:
        """Where the self-hosted Pyodide files are, from the site's root."""
        return f"pyodide/v{self.version}/"

    @cached_property
    def packages_by_import(self) -> dict[str, str]:
        """Top-level module name -> the lock package that provides it, the course package included."""
        found = {module: name for name, entry in self.lock["packages"].items() for module in entry.get("imports", [])}
        return {**found, self.package.module: self.wheel.name}

    def packages_for(self, code: str) -> list[str]:
        """Lock packages that ``code``'s imports need (the worker starts their downloads early)."""
        return packages_for(code, self.packages_by_import, self.import_packages)

    def boot_files(self) -> list[Path]:
        """The files the Python worker fetches as it boots, before a first output: Pyodide's scripts
        and wasm, the stdlib it boots with, the preloaded packages' bytecode, numpy's wheels and the
        course package's, the worker's own files (the site's lock and settings: a few kB more)."""
        skipped = {derived_bytecode.OFFICIAL} if self.bytecode else set()
        core = [Path(a.path) for a in self.assets if a.kind == "core" and a.name not in skipped]
        derived = [d.path for d in (self.bytecode.stdlib, self.bytecode.packages) if d] if self.bytecode else []
        worker = [path for pattern in WORKER_FILES for path in sorted(ASSETS.glob(pattern))]
        worker += PYTHON_FILES.values()
        return [*core, *derived, *self.wheel_paths("numpy"), self.wheel.path, *worker]

    def wheel_paths(self, package: str, beyond: str | None = None) -> list[Path]:
        """The wheels of ``package`` and its dependencies, but those of ``beyond``'s."""
        closure = set(pyodide_manifest.dependency_closure(self.lock, [package]))
        closure -= set(pyodide_manifest.dependency_closure(self.lock, [beyond])) if beyond else set()
        paths = {asset.name: Path(asset.path) for asset in self.assets}
        return [paths[self.lock["packages"][name]["file_name"]] for name in sorted(closure)]

    @cached_property
    def first_run_served_bytes(self) -> int:
        """Bytes on the wire before a first output (`boot_files`, gzipped where GitHub Pages gzips)."""
        return sum(served_bytes(path) for path in self.boot_files())

    @cached_property
    def matplotlib_served_bytes(self) -> int:
        """What a first figure adds on the wire: matplotlib's wheels beyond numpy's and, with a
        boot stdlib, the official stdlib zip (matplotlib imports modules the boot does not)."""
        official = [Path(a.path) for a in self.assets if a.name == derived_bytecode.OFFICIAL] if self.bytecode else []
        return sum(served_bytes(path) for path in [*self.wheel_paths("matplotlib", "numpy"), *official])

    def download_note(self, code: str) -> str:
        """The note under a cell: what Python downloads and when, measured from the shipped files as served."""
        size = current().megabytes
        if "matplotlib" in self.packages_for(code):
            extra = size(self.matplotlib_served_bytes / MB)
            return s("cell.download_note_matplotlib", size=size(self.first_run_served_bytes / MB), extra=extra)
        return s("cell.download_note", size=size(self.first_run_served_bytes / MB))


def prepare(
    manifest: Path,
    pyodide_cache: Path,
    package: CoursePackage,
    cache_dir: Path,
    *,
    base_url: str | None,
    import_packages: dict[str, list[str]],
    precompile_for: list[str] | None = None,
    preload: list[str] = (),
) -> ShippedPython:
    """Fetch and verify Pyodide, build the course package's wheel and, with ``precompile_for``
    (the lock packages to pre-compile for; None: none) and a self-hosted Pyodide, the derived
    bytecode (the stdlib's, and that of the ``preload`` packages).

    Raises `pyodide_manifest.AssetError` when a Pyodide file is missing or corrupt and cannot be
    fetched, `derived_bytecode.DerivedError` when the derived bytecode cannot be made.
    """
    assets = pyodide_fetch.fetch_assets(manifest, pyodide_cache, log=_log)
    wheel = build_wheel(package.project, package.source, cache_dir)
    version = json.loads(manifest.read_text())["pyodide_version"]
    bytecode = None
    if precompile_for is not None and base_url is None:
        lock = manifest.with_name(pyodide_manifest.LOCK_NAME)
        bytecode = derived_bytecode.derive(assets, lock, precompile_for, list(preload), cache_dir, package.source)
    return ShippedPython(version, assets, manifest, wheel, package, base_url, import_packages, bytecode)


@lru_cache(maxsize=64)
def _served_bytes(path: Path, size: int, mtime_ns: int) -> int:
    if path.suffix not in SERVED_GZIPPED:
        return size
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))


def served_bytes(path: Path) -> int:
    """The bytes ``path`` takes on the wire from GitHub Pages: gzipped (level 6) if its type is, else its size."""
    stat = path.stat()
    return _served_bytes(path, stat.st_size, stat.st_mtime_ns)


def wheel_path(shipped: ShippedPython) -> str:
    """Where the course package's wheel is, from the site's root."""
    return f"{SITE_FOLDER}/wheels/{shipped.wheel.sha256[:16]}/{shipped.wheel.file_name}"


def wheel_url(shipped: ShippedPython, site_url: str | None) -> str:
    """The course package's wheel on the site (a lesson's notebook installs it from there)."""
    return f"{(site_url or '').rstrip('/')}/{wheel_path(shipped)}"


def package_entry(shipped: ShippedPython, site_url: str | None, self_hosted: bool) -> dict:
    """The lock entry that lets ``loadPackagesFromImports`` install the course package from this site.

    Self-hosted, its ``file_name`` is relative to the site's Pyodide folder; else it is the wheel's URL.
    """
    relative = wheel_path(shipped)
    if self_hosted:
        file_name = f"../../{relative}"
    elif site_url:
        file_name = site_url.rstrip("/") + "/" + relative
    else:
        raise SettingsError(
            f"course: pyodide_base_url needs site_url in mkdocs.yml to serve the {shipped.wheel.name} wheel"
        )
    return {
        "name": shipped.wheel.name,
        "version": shipped.wheel.version,
        "file_name": file_name,
        "install_dir": "site",
        "sha256": shipped.wheel.sha256,
        "package_type": "package",
        "imports": [shipped.package.module],
        "depends": shipped.wheel.requires,
        "unvendored_tests": False,
        "shared_library": False,
    }


def packages_for(code: str, packages_by_import: dict[str, str], import_packages: dict[str, list[str]]) -> list[str]:
    """Packages ``code`` needs: those of the modules it uses, and those ``import_packages`` adds."""
    modules = _imported_modules(code)
    found = {packages_by_import[m.split(".")[0]] for m in modules if m.split(".")[0] in packages_by_import}
    found.update(package for m in modules for package in import_packages.get(m, []))
    return sorted(found)


def _imported_modules(code: str) -> set[str]:
    """The modules ``code`` uses, as the browser's worker sees them."""
    return cell_exec.module_references(code)


def _log(message: str) -> None:
    log.info(message)
