"""The rest of the standard library, imported from Pyodide's official zip on first use.

The worker boots with the boot stdlib (``python_stdlib-pyc-<hash>.zip``, made by the build's
``compile_bytecode.mjs``): the bytecode of the modules that starting Python, the worker and the
preloaded packages import, and ``course-stdlib-index.json``, every module of the official
``python_stdlib.zip`` with that zip's sha256.  `install` puts a finder at the end of
``sys.meta_path``: a module that the boot stdlib does not hold but the official zip does is
imported from the official zip, which ``fetch`` gives (the worker: kept or downloaded, the
build: read from disk) the first time one is needed, checked by its sha256 and written beside
the boot stdlib.  Other names are left to the next finder (``ModuleNotFoundError``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipimport
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from typing import Any

from course_kernel.strings import t

INDEX = "course-stdlib-index.json"  # compile_bytecode.mjs writes it into the boot stdlib
OFFICIAL_PATH = "/lib/python_stdlib.zip"  # where the official zip is written once fetched

Fetch = Callable[[], Any]  # the official zip's bytes (bytes, or a JS buffer with to_bytes()); raises if it cannot


class StdlibUnavailable(ModuleNotFoundError):
    """A standard-library module outside the boot stdlib, whose official zip could not be had."""


class OfficialStdlibFinder:
    """Finds the modules of the official zip that the boot stdlib lacks; fetches that zip once."""

    def __init__(self, modules: frozenset[str], sha256: str, fetch: Fetch, path: str = OFFICIAL_PATH) -> None:
        self.modules = modules
        self.sha256 = sha256
        self.fetch = fetch
        self.path = path
        self.ready = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        """The module's spec from the official zip, or None when the official zip has no such module."""
        if fullname not in self.modules:
            return None
        self.provide(importing=fullname)
        return _importer(self.path, fullname).find_spec(fullname)

    def provide(self, data: Any = None, importing: str = "?") -> None:
        """Write the official zip (``data``, else fetched now) where imports read it, once.

        Raises `StdlibUnavailable`, naming the module ``importing``, when the zip cannot be had
        or is not the official one.
        """
        if self.ready:
            return
        try:
            data = self.fetch() if data is None else data
        except Exception as error:  # a failed download, offline: JsException, OSError
            raise _unavailable(importing, t("python.stdlib_download", reason=_last_line(error))) from None
        data = data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise _unavailable(importing, t("python.stdlib_mismatch"))
        with open(self.path, "wb") as file:
            file.write(data)
        self.ready = True

    def needs(self, names: Any) -> bool:
        """Whether importing any of ``names`` (dotted) would fetch the official zip now."""
        archive = boot_stdlib()

        def in_boot(name: str) -> bool:
            return archive is not None and _importer(archive, name).find_spec(name) is not None

        return not self.ready and any(
            name in self.modules and name not in sys.modules and not in_boot(name) for name in names
        )


def _importer(archive: str, fullname: str) -> zipimport.zipimporter:
    """A zipimporter for the folder of ``archive`` where ``fullname`` would be."""
    folder = fullname.rpartition(".")[0].replace(".", "/")
    return zipimport.zipimporter(f"{archive}/{folder}/" if folder else archive)


def _unavailable(name: str, why: str) -> StdlibUnavailable:
    return StdlibUnavailable(
        t("python.stdlib_unavailable", name=repr(name), why=why),
        name=name,
    )


def _last_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


def boot_stdlib() -> str | None:
    """The zip the standard library is imported from (``/lib/python312.zip``), or None."""
    loader = getattr(sys.modules["importlib"].__spec__, "loader", None)
    return loader.archive if isinstance(loader, zipimport.zipimporter) else None


def read_index() -> dict | None:
    """The boot stdlib's index (official sha256, modules), or None when Python booted on the official zip."""
    archive = boot_stdlib()
    try:
        return json.loads(zipimport.zipimporter(archive).get_data(INDEX)) if archive else None
    except OSError:
        return None


def install(fetch: Fetch) -> OfficialStdlibFinder | None:
    """Put the finder at the end of ``sys.meta_path`` (once); None when the boot stdlib is the official zip."""
    for finder in sys.meta_path:
        if isinstance(finder, OfficialStdlibFinder):
            return finder
    index = read_index()
    if index is None:
        return None
    finder = OfficialStdlibFinder(frozenset(index["modules"]), index["official_sha256"], fetch)
    sys.meta_path.append(finder)
    return finder
