"""Derived bytecode: the boot standard library and the preloaded packages' bytecode.

Pyodide's ``python_stdlib.zip`` and its wheels hold ``.py`` files only, so every boot
compiles each module it imports (``import numpy``: about 0.4 s of 0.9 s).  Two derived zips:

- ``python_stdlib-pyc-<hash>.zip``, the boot stdlib: the ``.pyc`` (no ``.py``) of each module
  that booting Python, the worker's own modules and importing the preloaded packages (numpy,
  the course package) load, and ``course-stdlib-index.json``, every module of the official
  zip with its sha256: the worker's ``stdlib_finder.py`` imports any other module from the
  official zip, fetched on first use (2.3 MB that a first Run does not wait for);
- ``site-packages-pyc-<hash>.zip``: the ``.pyc`` of the preloaded packages' modules (numpy's)
  as ``sys.pycache_prefix`` places them; the worker extracts it before importing them.

``compile_bytecode.mjs`` (beside this module) makes both with Pyodide's own Python in Node,
from the sha256-verified files only; the result depends on its inputs alone, so it is cached
in the build cache under a key over those inputs.

The worker checks each before use (sha256, as SRI): without the boot stdlib it boots from the
official zip, which the site still ships byte-identical; without the packages' it compiles
their ``.py`` as Pyodide does.  Builder-neutral, like `shipped_python`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .contract import PACKAGE, PACKAGE_DIR
from .pyodide_fetch import Asset

SCRIPT = Path(__file__).with_name("compile_bytecode.mjs")
OFFICIAL = "python_stdlib.zip"
# Not in the stdlib zip, or not imported before a first output (matplotlib: a figure's cell
# loads it; jedi: the editor's first request for completions).
FOREIGN_MODULES = {"js", "pyodide", "_course_host", "__main__", "jedi", "matplotlib"}
# numpy's submodules that `import numpy` leaves to first use (numpy 2 loads them lazily) and that a
# lesson's first cells use (numpy.random imports the stdlib's secrets and hmac): in the boot too.
LAZY_SUBMODULES = ["numpy.random", "numpy.linalg"]


class DerivedError(RuntimeError):
    """The derived stdlib could not be made (Node missing, the script failed)."""


@dataclass(frozen=True)
class DerivedZip:
    """A derived zip in the build cache, and the name the site publishes it under."""

    path: Path
    sha256: str
    stem: str  # STDLIB_STEM or PACKAGES_STEM

    @property
    def file_name(self) -> str:
        return f"{self.stem}-{self.sha256[:16]}.zip"


STDLIB_STEM = "python_stdlib-pyc"
PACKAGES_STEM = "site-packages-pyc"


@dataclass(frozen=True)
class DerivedBytecode:
    """The derived stdlib (in the official one's place) and the preloaded packages' bytecode."""

    stdlib: DerivedZip
    packages: DerivedZip | None  # None when nothing from the lock is preloaded


def worker_modules() -> list[str]:
    """Modules that the worker's Python (the package ``course_kernel``, completion.py too) imports, in functions too."""
    return _imported(sorted(PACKAGE_DIR.glob("*.py")), {PACKAGE}, nested=True)


def package_modules(source: Path) -> list[str]:
    """Modules that the package at ``source`` (``src/posenc``) imports when it is imported (module level)."""
    return _imported(sorted(source.rglob("*.py")), {source.name}, nested=False)


def _imported(paths: list[Path], own: set[str], *, nested: bool) -> list[str]:
    """The modules imported by the files at ``paths``, but ``own`` and `FOREIGN_MODULES`."""
    names: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree) if nested else tree.body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return sorted(name for name in names if name.split(".")[0] not in FOREIGN_MODULES | own | {"__future__"})


def derive(
    assets: list[Asset],
    lock: Path,
    packages: list[str],
    preloaded: list[str],
    cache_dir: Path,
    course_package: Path | None = None,
) -> DerivedBytecode:
    """The derived bytecode for these verified ``assets``, made once per set of inputs.

    ``packages``: packages installed while the stdlib's modules are found (numpy, matplotlib);
    ``preloaded``: those imported at boot, whose bytecode ships in the packages' zip (numpy);
    ``course_package``: the course package's source folder, whose imports the boot stdlib holds
    too.  Packages not in the official lock (the course package) are left out of the install.
    Raises `DerivedError` when Node is missing or the script fails.
    """
    official = json.loads(lock.read_text())["packages"]
    packages = [name for name in packages if name in official]
    preloaded = [name for name in preloaded if name in official]
    extra = package_modules(course_package) if course_package else []
    lazy = [name for name in LAZY_SUBMODULES if name.split(".")[0] in preloaded]
    modules = sorted({*worker_modules(), *extra, *lazy})
    by_name = {asset.name: asset for asset in assets}
    key = hashlib.sha256()
    inputs = [SCRIPT.read_bytes(), lock.read_bytes(), *sorted(a.sha256 for a in assets), *packages, "|", *preloaded]
    for part in [*inputs, "|", *modules]:
        key.update(hashlib.sha256(part if isinstance(part, bytes) else part.encode()).digest())
    stems = (STDLIB_STEM, PACKAGES_STEM)
    targets = [cache_dir / "derived" / f"{stem}-input-{key.hexdigest()[:16]}.zip" for stem in stems]
    if not all(target.exists() for target in targets):
        _run_script(Path(by_name[OFFICIAL].path).parent, lock, targets, packages, preloaded, modules)
    stdlib, site_packages = (
        DerivedZip(target, hashlib.sha256(target.read_bytes()).hexdigest(), stem)
        for target, stem in zip(targets, stems, strict=True)
    )
    return DerivedBytecode(stdlib, site_packages if preloaded else None)


def _run_script(
    files: Path, lock: Path, targets: list[Path], packages: list[str], preloaded: list[str], modules: list[str]
) -> None:
    node = shutil.which("node")
    if node is None:
        raise DerivedError(
            "course: the pre-compiled stdlib needs Node.js (`node` on PATH, version 18 or later); "
            "install it, or set `precompile_stdlib: false` in mkdocs.yml"
        )
    partials = []
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
        os.close(fd)
        partials.append(partial)
    command = [node, str(SCRIPT), str(files), str(lock), *partials, ",".join(packages), ",".join(preloaded), *modules]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        for partial in partials:
            Path(partial).unlink(missing_ok=True)
        raise DerivedError(f"course: {SCRIPT.name} failed (exit {done.returncode}): {_python_error(done.stderr)}")
    for partial, target in zip(partials, targets, strict=True):
        os.replace(partial, target)


def _python_error(stderr: str) -> str:
    """The Python exception line of a failed run (Node prints minified Pyodide source around it)."""
    errors = [line.strip() for line in stderr.splitlines() if re.match(r"\s*\w+(Error|Exception)\b: ", line)]
    return errors[-1] if errors else stderr.strip().splitlines()[-1][:300] if stderr.strip() else "no message"
