"""The site under test: built when its inputs changed, and what the benchmark reads from the build."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

from course_site.pyodide_manifest import dependency_closure

from . import site_layout as layout

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SITE_DIR = ROOT / ".cache" / "bench-site"
BENCH_FOLDER = "bench"  # where bare.html goes in the served folder
BARE_FILES = ("bare.html", "bare_worker.js")
BUILD_INPUTS = ("mkdocs.yml", "docs", "lessons", "src", "pyodide_assets/manifest.json", "pyodide_assets/*.json")
STAMP = ".bench-inputs"


def build_inputs_fingerprint() -> str:
    """A hash of the path, size and mtime of every file the build reads."""
    digest = hashlib.sha256()
    for pattern in BUILD_INPUTS:
        for top in sorted(ROOT.glob(pattern)):
            files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
            for path in files:
                if "__pycache__" in path.parts or path.suffix == ".pyc":
                    continue
                stat = path.stat()
                digest.update(f"{path.relative_to(ROOT)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def ensure_site(site: Path, rebuild: bool) -> None:
    """Build the site into ``site`` unless an identical build is there already."""
    fingerprint = build_inputs_fingerprint()
    stamp = site / STAMP
    if not rebuild and stamp.exists() and stamp.read_text() == fingerprint:
        print(f"site: up to date in {site}")
        return
    print(f"site: building into {site} …", flush=True)
    started = time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "--site-dir", str(site)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"the site build failed:\n{done.stdout}\n{done.stderr}")
    stamp.write_text(fingerprint)
    print(f"site: built in {time.perf_counter() - started:.1f} s")


def cell_sources(page: str, cell_id: str) -> dict[str, str]:
    """``{"setup": …, "code": …}`` of the cell with this id in a built lesson page."""

    found: dict[str, str] = {}

    class Finder(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            values = dict(attrs)
            if values.get("id") == cell_id:
                found.update(setup=values.get("data-setup") or "", code=values.get("data-code") or "")

    Finder().feed(page)
    if not found.get("code"):
        raise SystemExit(f"benchmark: no cell #{cell_id} with code in the lesson page")
    return found


def install_bare_page(site: Path) -> None:
    """Copy the floor's page and worker into the served folder."""
    folder = site / BENCH_FOLDER
    folder.mkdir(exist_ok=True)
    for name in BARE_FILES:
        shutil.copy2(BENCHMARKS / name, folder / name)


def read_worker_settings(site: Path) -> tuple[str, dict]:
    """The site path and content of the Python worker's settings, under whichever name the build uses."""
    for name in layout.WORKER_SETTINGS:
        path = site / layout.COURSE_FOLDER / name
        if path.exists():
            return f"{layout.COURSE_FOLDER}/{name}", json.loads(path.read_text())
    names = ", ".join(layout.WORKER_SETTINGS)
    raise SystemExit(f"benchmark: no worker settings ({names}) in {site / layout.COURSE_FOLDER}")


@dataclass
class SiteInfo:
    """What the benchmark needs to know about the built site."""

    settings: dict  # the Python worker's settings
    lock: dict
    lock_path: str  # site path of the lock, e.g. assets/course/pyodide-lock-….json
    index_path: str  # site path of the Pyodide folder, e.g. pyodide/v<Pyodide version>/
    figure_cell: dict[str, str]  # FIGURE_CELL's data-setup and data-code, as the lesson page holds them

    @classmethod
    def read(cls, site: Path) -> SiteInfo:
        settings_path, settings = read_worker_settings(site)
        folder = posixpath.dirname(settings_path) + "/"
        lock_path = posixpath.join(folder, settings[layout.SETTINGS_LOCK])
        index = posixpath.normpath(posixpath.join(folder, settings[layout.SETTINGS_PYODIDE_INDEX])) + "/"
        lesson_page = (site / layout.LESSON / "index.html").read_text()
        cell = cell_sources(lesson_page, layout.FIGURE_CELL.lstrip("#"))
        if "plot" not in cell["setup"] + cell["code"]:
            raise SystemExit(f"benchmark: {layout.FIGURE_CELL} draws no figure: set FIGURE_CELL in site_layout.py")
        return cls(settings, json.loads((site / lock_path).read_text()), lock_path, index, cell)

    @property
    def pyodide_version(self) -> str | None:
        """The Pyodide version the site publishes (from ``pyodide_assets/manifest.json``)."""
        return self.settings.get(layout.SETTINGS_PYODIDE_VERSION)

    def closure(self, *names: str) -> set[str]:
        """These lock packages and everything they depend on."""
        return set(dependency_closure(self.lock, names))

    def wheel_paths(self) -> dict[str, str]:
        """Site path of every wheel in the lock -> package name."""
        out = {}
        for name, package in self.lock["packages"].items():
            out[posixpath.normpath(posixpath.join(self.index_path, package["file_name"]))] = name
        return out

    def bare_url(self, base: str, mode: str, font_list: bool = True, site_style: bool = False) -> str:
        """URL of the floor's page (``bare.html``) in this mode."""
        query = {"index": f"/{self.index_path}", "lock": f"/{self.lock_path}", "mode": mode}
        if mode == "matplotlib" and font_list:
            query["fontlist"] = f"/{self.index_path}{layout.FONT_LIST}"
        if mode == "matplotlib":
            query.update(self.figure_cell)
        if site_style:
            query["style"] = "site"
        return f"{base}{BENCH_FOLDER}/bare.html?{urlencode(query)}"
