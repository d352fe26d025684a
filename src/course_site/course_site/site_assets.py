"""What the site serves for its cells: Pyodide, the posenc wheel, a lock, scripts, runtime.json.

Layout under the site folder::

    course-sw.js                 the service worker: offline use, cache-first Pyodide
    pyodide/v0.27.7/             verified Pyodide core files and wheels, matplotlib's font list
    assets/course/js|css|vendor|py/   the cell runner
    assets/course/wheels/<hash>/posenc-<version>-py3-none-any.whl
    assets/course/pyodide-lock-<hash>.json   the official lock, trimmed, plus posenc
    assets/course/worker-settings.json   where all of the above is, for the Python worker
    assets/course/figures/<hash>.png   build-time figures of the cells
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import shutil
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from types import ModuleType

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from . import pyodide_assets
from .config import CourseConfig
from .markup import Raw, tag
from .wheel import Wheel, build_wheel

ASSETS = Path(__file__).parent / "assets"
SITE_FOLDER = "assets/course"
STYLESHEETS = [f"{SITE_FOLDER}/css/course.css", f"{SITE_FOLDER}/math.css"]
ENHANCE = f"{SITE_FOLDER}/js/enhance.js"
WORKER = f"{SITE_FOLDER}/js/worker/main.js"
WORKER_PRESTART = Path(__file__).with_name("worker_prestart.js")
"""Inlined at the top of ``<head>`` on pages with cells: starts the Python worker during parsing."""
FONT_CACHE = "matplotlib-fontlist.json"
"""matplotlib's font list, prebuilt in Pyodide by scripts/matplotlib_font_cache.mjs."""
SERVICE_WORKER = Path(__file__).with_name("service_worker.js")
SERVICE_WORKER_NAME = "course-sw.js"  # at the site root, so that its scope covers every page
PRELOAD = ["numpy", "posenc"]
"""Loaded and imported with Python itself: every lesson uses them; matplotlib waits for an import."""
IMPORT_PACKAGES = {"posenc.plot": ["matplotlib"]}
"""Modules whose import needs a package that a plain import scan does not reveal."""

MB = 1e6
log = logging.getLogger("mkdocs.plugins.course")


@dataclass
class Bundle:
    """Everything prepared in ``on_config`` for the pages and for ``on_post_build``."""

    version: str
    assets: list[pyodide_assets.Asset]
    manifest: Path
    wheel: Wheel
    posenc_package: Path
    base_url: str | None
    time_limit: int

    @cached_property
    def lock(self) -> dict:
        """The official lock: ``info`` and ``packages``."""
        return json.loads(self.manifest.with_name("pyodide-lock.json").read_text())

    def package_bytes(self, package: str) -> int:
        """Bytes a package and its dependencies add, beyond numpy's, from the lock."""

        def closure(name: str) -> set[str]:
            return set(pyodide_assets.dependency_closure(self.lock, [name]))

        names = closure(package) - (closure("numpy") if package != "numpy" else set())
        sizes = {asset.name: asset.size for asset in self.assets}
        return sum(sizes.get(self.lock["packages"][name]["file_name"], 0) for name in names)

    @property
    def core_bytes(self) -> int:
        return sum(asset.size for asset in self.assets if asset.kind == "core")

    @cached_property
    def packages_by_import(self) -> dict[str, str]:
        """Top-level module name -> the lock package that provides it, posenc included."""
        found = {module: name for name, entry in self.lock["packages"].items() for module in entry.get("imports", [])}
        return {**found, "posenc": self.wheel.name}

    def packages_for(self, code: str) -> list[str]:
        """Lock packages that ``code``'s imports need (the worker starts their downloads early)."""
        return packages_for(code, self.packages_by_import)

    @cached_property
    def first_run_bytes(self) -> int:
        """What a first Run downloads: the core, numpy and posenc."""
        return self.core_bytes + self.package_bytes("numpy") + self.wheel.path.stat().st_size

    def download_note(self, code: str) -> str:
        """The note under a cell: what its first Run downloads, measured from the shipped files."""
        first = self.first_run_bytes / MB
        note = f"Python runs in your browser (Pyodide): about {first:.0f} MB on the first Run, cached after"
        if "matplotlib" in self.packages_for(code):
            note += f"; matplotlib adds about {self.package_bytes('matplotlib') / MB:.0f} MB the first time"
        return note + "."


def prepare(config: CourseConfig, root: Path) -> Bundle:
    """Fetch and verify Pyodide (unless a CDN serves it) and build the posenc wheel."""
    manifest = root / config.pyodide_manifest
    try:
        assets = pyodide_assets.fetch_assets(manifest, root / config.pyodide_cache, log=_log)
    except pyodide_assets.AssetError as error:
        raise PluginError(f"course: Pyodide assets: {error}") from None
    project = root / config.posenc_project
    package = project / "src" / "posenc"
    wheel = build_wheel(project, package, root / config.cache_dir)
    version = json.loads(manifest.read_text())["pyodide_version"]
    return Bundle(version, assets, manifest, wheel, package, config.pyodide_base_url, config.time_limit)


@dataclass(frozen=True)
class Runtime:
    """What the pages and ``runtime.json`` tell the browser, fixed once per build."""

    lock_text: str
    config: dict  # runtime.json

    @property
    def lock_name(self) -> str:
        return self.config["lock_file_url"]

    @property
    def version(self) -> str:
        return self.config["version"]


def runtime(bundle: Bundle, site_url: str | None) -> Runtime:
    """The site's trimmed lock (with posenc) and runtime.json; paths are relative to runtime.json."""
    lock = pyodide_assets.site_lock(bundle.manifest, [_posenc_entry(bundle, site_url)])
    lock_text = json.dumps(lock, separators=(",", ":"), sort_keys=True)
    lock_hash = hashlib.sha256(lock_text.encode()).hexdigest()[:16]
    config = {
        "pyodide_index_url": bundle.base_url or f"../../pyodide/v{bundle.version}/",
        "lock_file_url": f"pyodide-lock-{lock_hash}.json",
        "preload_packages": PRELOAD,
        "import_packages": IMPORT_PACKAGES,
        "download_bytes": {
            "core": bundle.core_bytes,
            "numpy": bundle.package_bytes("numpy"),
            "matplotlib": bundle.package_bytes("matplotlib"),
            "posenc": bundle.wheel.path.stat().st_size,
        },
        "time_limit_s": bundle.time_limit,
        "pyodide_version": bundle.version,
        "service_worker": f"../../{SERVICE_WORKER_NAME}",
        "matplotlib_font_cache": f"../../pyodide/v{bundle.version}/{FONT_CACHE}",
        # Names the caches and busts browser caches: changes with Pyodide, posenc, the lock and the runner.
        "version": f"{bundle.version}-{bundle.wheel.sha256[:8]}-{lock_hash[:8]}-{_runner_digest()[:8]}",
    }
    return Runtime(lock_text, config)


def _runner_digest() -> str:
    """sha256 over the runner's files (scripts, styles, Python glue) and the service worker."""
    digest = hashlib.sha256()
    for path in sorted([*ASSETS.rglob("*"), SERVICE_WORKER]):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(ASSETS.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def starter_script(page_url: str, runtime: Runtime) -> str:
    """The inline ``<script>`` that starts the page's Python worker from ``<head>`` (worker_prestart.js)."""
    worker = f"{get_relative_url(WORKER, page_url)}?v={runtime.version}"
    return tag("script", {"data-worker": worker}, Raw(_script_code(WORKER_PRESTART))).html


def _script_code(path: Path) -> str:
    """A script's code without its leading comment (which documents it in the repository)."""
    text = path.read_text()
    if text.startswith("/*"):
        text = text[text.index("*/") + 2 :]
    return text.strip()


def publish(bundle: Bundle, runtime: Runtime, site_dir: Path) -> None:
    """Copy the runner, Pyodide and posenc into ``site_dir`` and write the lock and runtime.json."""
    course = site_dir / SITE_FOLDER
    shutil.copytree(ASSETS, course, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(SERVICE_WORKER, site_dir / SERVICE_WORKER_NAME)
    index = site_dir / "pyodide" / f"v{bundle.version}"
    if bundle.base_url is None:
        pyodide_assets.copy_assets(bundle.assets, index)
    index.mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle.manifest.with_name(FONT_CACHE), index / FONT_CACHE)
    wheel_dir = course / "wheels" / bundle.wheel.sha256[:16]
    wheel_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle.wheel.path, wheel_dir / bundle.wheel.file_name)
    (course / runtime.lock_name).write_text(runtime.lock_text)
    (course / "worker-settings.json").write_text(json.dumps(runtime.config, indent=2))


def figure_path(png: bytes) -> str:
    """Where a build-time figure is published: named by its content, so it caches forever."""
    return f"{SITE_FOLDER}/figures/{hashlib.sha256(png).hexdigest()[:16]}.png"


def publish_figures(figures: dict[str, bytes], site_dir: Path) -> None:
    for path, png in figures.items():
        target = site_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)


def _posenc_entry(bundle: Bundle, site_url: str | None) -> dict:
    """The lock entry that lets ``loadPackagesFromImports`` install posenc from this site."""
    relative = f"{SITE_FOLDER}/wheels/{bundle.wheel.sha256[:16]}/{bundle.wheel.file_name}"
    if bundle.base_url is None:
        file_name = f"../../{relative}"
    elif site_url:
        file_name = site_url.rstrip("/") + "/" + relative
    else:
        raise PluginError("course: pyodide_base_url needs site_url in mkdocs.yml to serve the posenc wheel")
    return {
        "name": bundle.wheel.name,
        "version": bundle.wheel.version,
        "file_name": file_name,
        "install_dir": "site",
        "sha256": bundle.wheel.sha256,
        "package_type": "package",
        "imports": ["posenc"],
        "depends": ["numpy"],
        "unvendored_tests": False,
        "shared_library": False,
    }


def packages_for(code: str, packages_by_import: dict[str, str]) -> list[str]:
    """Packages ``code`` needs: those of the modules it uses, and those `IMPORT_PACKAGES` adds."""
    modules = imported_modules(code)
    found = {packages_by_import[m.split(".")[0]] for m in modules if m.split(".")[0] in packages_by_import}
    found.update(package for m in modules for package in IMPORT_PACKAGES.get(m, []))
    return sorted(found)


def imported_modules(code: str) -> set[str]:
    """The modules ``code`` uses, as the browser's worker sees them (``cell_exec``)."""
    return _cell_exec().module_references(code)


@lru_cache(maxsize=1)
def _cell_exec() -> ModuleType:
    """The runner's Python side, shipped as a file for the browser; loaded from it here too."""
    spec = importlib.util.spec_from_file_location("cell_exec", ASSETS / "py" / "cell_exec.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log(message: str) -> None:
    log.info(message)
