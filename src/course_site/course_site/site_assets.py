"""What the site ships for its cells: Pyodide, the course package's wheel, a lock, scripts, settings.

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

Builder-neutral: the MkDocs plugin calls it and turns its errors into MkDocs errors.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import posixpath
import re
import shutil
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from course_kernel import cell_exec

from . import derived_bytecode, pyodide_fetch, pyodide_manifest
from .contract import BRIDGE_MODULE, PUBLISHED_PYTHON_FILES, PYTHON_FILES
from .markup import Raw, tag
from .wheel import Wheel, build_wheel

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
SERVICE_WORKER_POLICY = "./assets/course/js/cache_policy.js"
"""The service worker's import of cache_policy.js, as written in service_worker.js; published from the runner folder."""
WORKER_SETTINGS = "worker-settings.json"
NOT_KEPT_OFFLINE = re.compile(
    r"^(pyodide/|sitemap\.xml|course-sw\.js$|assets/course/offline-|assets/javascripts/lunr/)|\.map$"
)
"""Site files the service worker's install does not keep: Pyodide's (the Python worker keeps what it
fetches), the sitemap, source maps and the search's other languages (unused: the site is in English)."""

MB = 1e6
SERVED_GZIPPED = (".js", ".mjs", ".json", ".wasm", ".py")
"""File types that GitHub Pages sends gzipped; zips and wheels go as they are (they barely compress)."""
WORKER_FILES = ["js/protocol.js", "js/cache_policy.js", "js/worker/*.js"]  # and PYTHON_FILES, in the runner's py/
"""The Python worker's own files (in the runner folder) that it fetches as it boots."""
log = logging.getLogger("mkdocs.plugins.course")


class SettingsError(ValueError):
    """The course's settings cannot work together (for example a CDN without ``site_url``)."""


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
        first = self.first_run_served_bytes / MB
        note = (
            f"Python runs in your browser (Pyodide): about {first:.1f} MB, downloaded as this page opens "
            "(with Data Saver on, at your first Run), then kept for offline use"
        )
        if "matplotlib" in self.packages_for(code):
            note += f"; matplotlib adds about {self.matplotlib_served_bytes / MB:.1f} MB when this cell first runs"
        return note + "."


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
            shipped.manifest, [_package_entry(shipped, site_url, shipped.base_url is None)]
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
        "version": f"{shipped.version}-{shipped.wheel.sha256[:8]}-{lock_hash[:8]}-{_runner_digest()[:8]}",
    }
    return WorkerSettings(lock_text, config)


@lru_cache(maxsize=64)
def _served_bytes(path: Path, size: int, mtime_ns: int) -> int:
    if path.suffix not in SERVED_GZIPPED:
        return size
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))


def served_bytes(path: Path) -> int:
    """The bytes ``path`` takes on the wire from GitHub Pages: gzipped (level 6) if its type is, else its size."""
    stat = path.stat()
    return _served_bytes(path, stat.st_size, stat.st_mtime_ns)


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


def _runner_digest() -> str:
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
    return f"{SITE_FOLDER}/runner-{_runner_digest()[:16]}"


def starter_script(page_url: str, settings: WorkerSettings) -> str:
    """The inline ``<script>`` that starts the page's Python worker from ``<head>`` (worker_prestart.js).

    It carries the page's build (``data-version``): a page whose build is not the settings' reloads (kernel.js).
    """
    worker = f"{_relative_url(settings.runner_files([WORKER])[0], page_url)}?v={settings.version}"
    attributes = {"data-worker": worker, "data-version": settings.version}
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
    _copy_wheel(shipped, site_dir)
    (course / settings.lock_name).write_text(settings.lock_text)
    (course / WORKER_SETTINGS).write_text(json.dumps(settings.config, indent=2))
    (site_dir / offline_list_path(settings.version)).write_text(json.dumps(offline_list(site_dir), indent=0))


def service_worker_code(runner: str) -> str:
    """service_worker.js as published at the site's root: it imports cache_policy.js from the ``runner`` folder."""
    code = SERVICE_WORKER.read_text()
    if SERVICE_WORKER_POLICY not in code:
        raise SettingsError(f"course: {SERVICE_WORKER.name} no longer imports {SERVICE_WORKER_POLICY}")
    return code.replace(SERVICE_WORKER_POLICY, f"./{runner}/js/cache_policy.js")


def offline_list_path(version: str) -> str:
    """Where the build lists what offline use needs (the service worker's install reads it)."""
    return f"{SITE_FOLDER}/offline-{version}.json"


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
    _copy_wheel(shipped, dest)
    lock = pyodide_manifest.site_lock(shipped.manifest, [_package_entry(shipped, None, True)])
    lock_text = json.dumps(lock, separators=(",", ":"), sort_keys=True)
    lock_path = dest / SITE_FOLDER / "pyodide-lock.json"
    lock_path.write_text(lock_text)
    font_list = shipped.manifest.with_name(FONT_CACHE)
    derived = shipped.bytecode
    if derived is None:
        return LocalPython(index, lock_path, lock_text, font_list)
    packages = derived.packages.path if derived.packages else None
    return LocalPython(index, lock_path, lock_text, font_list, derived.stdlib.path, packages)


def _wheel_path(shipped: ShippedPython) -> str:
    """Where the course package's wheel is, from the site's root."""
    return f"{SITE_FOLDER}/wheels/{shipped.wheel.sha256[:16]}/{shipped.wheel.file_name}"


def wheel_url(shipped: ShippedPython, site_url: str | None) -> str:
    """The course package's wheel on the site (a lesson's notebook installs it from there)."""
    return f"{(site_url or '').rstrip('/')}/{_wheel_path(shipped)}"


def _copy_wheel(shipped: ShippedPython, site_dir: Path) -> None:
    target = site_dir / _wheel_path(shipped)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(shipped.wheel.path, target)


def figure_path(png: bytes) -> str:
    """Where a build-time figure is published: named by its content, so it caches forever."""
    return f"{SITE_FOLDER}/figures/{hashlib.sha256(png).hexdigest()[:16]}.png"


def publish_figures(figures: dict[str, bytes], site_dir: Path) -> None:
    for path, png in figures.items():
        target = site_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)


def _package_entry(shipped: ShippedPython, site_url: str | None, self_hosted: bool) -> dict:
    """The lock entry that lets ``loadPackagesFromImports`` install the course package from this site.

    Self-hosted, its ``file_name`` is relative to the site's Pyodide folder; else it is the wheel's URL.
    """
    relative = _wheel_path(shipped)
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
