"""Build the course package's wheel that the browser installs.

The wheel is the standard PEP 517 build of the course's project (``py3-none-any``,
its own name and version), made with PyPA's ``build`` in the current
environment and cached by the hash of the project's sources.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from build import ProjectBuilder


@dataclass(frozen=True)
class Wheel:
    path: Path
    sha256: str
    name: str  # distribution name, e.g. "posenc"
    version: str
    requires: list[str]  # canonical names of the distributions it needs, extras left out

    @property
    def file_name(self) -> str:
        return self.path.name


def _source_hash(project: Path, package_dir: Path) -> str:
    """Hash of ``pyproject.toml`` and every file of the package."""
    digest = hashlib.sha256((project / "pyproject.toml").read_bytes())
    for path in sorted(p for p in package_dir.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build_wheel(project: Path, package_dir: Path, cache_dir: Path) -> Wheel:
    """Return the wheel of ``project``, building it unless its sources are unchanged."""
    key = _source_hash(project, package_dir)[:16]
    out = cache_dir / "wheels" / key
    found = sorted(out.glob("*.whl")) if out.exists() else []
    if not found:
        with tempfile.TemporaryDirectory() as tmp:
            built = Path(ProjectBuilder(project).build("wheel", tmp))
            out.mkdir(parents=True, exist_ok=True)
            # Whole or not at all: another build may be looking in `out` (hatchling's wheels are reproducible).
            partial = Path(shutil.copy2(built, out / f".{built.name}.{os.getpid()}.part"))
            found = [partial.replace(out / built.name)]
    path = found[0]
    name, version = path.name.split("-")[:2]
    return Wheel(path, hashlib.sha256(path.read_bytes()).hexdigest(), name, version, _requires(path))


def _requires(path: Path) -> list[str]:
    """Canonical names in the wheel's ``Requires-Dist`` lines, except those of extras."""
    with zipfile.ZipFile(path) as wheel:
        metadata = next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
        lines = wheel.read(metadata).decode().splitlines()
    found = [line.removeprefix("Requires-Dist:").strip() for line in lines if line.startswith("Requires-Dist:")]
    names = [re.match(r"[A-Za-z0-9._-]+", spec)[0] for spec in found if "extra ==" not in spec]
    return sorted({re.sub(r"[-_.]+", "-", name).lower() for name in names})
