"""The Python side of the browser's worker: runs cells and reports to the page.

The worker (``assets/js/worker/boot.js``) writes the package ``course_kernel`` into Pyodide's
file system, imports this module and calls its functions; each run says its colour scheme and
the course's module hint (a ``cell_exec.Session``), so nothing is set between runs.
Output goes to the page through ``_course_host``, the JS module that the worker
registers (``assets/js/worker/output.js``).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import pathlib
import sys
import zipimport
from typing import Any

from _course_host import emit_figure, emit_text, official_stdlib
from pyodide.ffi import to_js

import __main__
from course_kernel import cell_exec, exercise_check, stdlib_finder, strings

os.environ["MPLBACKEND"] = "agg"
cell_exec.install_input_guard()


def keep_zip_directory(archive: str) -> None:
    """Make ``importlib.invalidate_caches()`` keep ``archive``'s directory as ``zipimport`` read it.

    For a zip that does not change while Python runs: Pyodide's standard library. Pyodide's
    ``loadPackage`` calls ``invalidate_caches()`` after every install, and Python 3.12's
    ``zipimport`` then parses the zip's whole central directory again, once for each of its
    packages imported so far (14 or more at boot): 0.1–0.25 s per call in Pyodide 0.27.
    Other zips are read again as before.
    """
    current = zipimport.zipimporter.invalidate_caches
    read_again = getattr(current, "__wrapped__", current)
    kept = frozenset({archive, *getattr(current, "kept", ())})

    @functools.wraps(read_again)
    def invalidate_caches(importer: zipimport.zipimporter) -> None:
        if importer.archive not in kept:
            read_again(importer)

    invalidate_caches.kept = kept
    zipimport.zipimporter.invalidate_caches = invalidate_caches


def stdlib_zip() -> str | None:
    """The zip that the standard library is imported from (Pyodide's ``/lib/python312.zip``), or None."""
    loader = importlib.__spec__.loader  # importlib/__init__.py is not frozen: it comes from there
    return loader.archive if isinstance(loader, zipimport.zipimporter) else None


if archive := stdlib_zip():
    keep_zip_directory(archive)
    keep_zip_directory(stdlib_finder.OFFICIAL_PATH)

#: Imports the modules that the boot stdlib lacks from the official zip (None: booted on that zip).
STDLIB_REST = stdlib_finder.install(official_stdlib)


def stdlib_needed(code: str) -> bool:
    """Whether ``code`` imports a module of the official stdlib zip that is not here yet."""
    return STDLIB_REST is not None and STDLIB_REST.needs(cell_exec.module_references(code))


def provide_stdlib(data: Any) -> None:
    """The official stdlib zip's bytes (a JS ``Uint8Array``), fetched ahead of the imports that need it."""
    if STDLIB_REST is not None:
        STDLIB_REST.provide(data)


def emit(kind: str, payload: Any) -> None:
    """Send one of ``cell_exec``'s outputs to the page: a figure's PNG as bytes, the rest as text."""
    if kind == "figure":
        emit_figure(to_js(payload["png"]), payload["alt"], payload["scheme"], payload["text_px"])
    else:
        emit_text(kind, str(payload))


def session(scheme: str, module_hint: str | None, alt: str = "") -> cell_exec.Session:
    """A run's session: its figures in the page's colour scheme (``default`` or ``slate``; any other
    is ``default``) with the cell's ``alt`` text, and the course's note on a missing module
    (worker-settings.json ``module_hint``)."""
    hint = {"module_hint": module_hint} if module_hint else {}
    return cell_exec.Session(schemes=(scheme,), alt=alt or "", **hint)


def run(
    code: str,
    setup: str,
    filename: str,
    inputs: str = "",
    scheme: str = "default",
    module_hint: str | None = None,
    alt: str = "",
) -> cell_exec.Outcome:
    """Run the bindings of the cell's ``inputs`` and ``setup`` (if any), then ``code``, in the page's
    one namespace, with figures in ``scheme`` and the fence's ``alt`` text; False after an error.

    A cell that awaits at top level gives a coroutine instead, which the worker awaits.
    """
    sources = [(inputs, "<inputs>")] if inputs else []
    sources += [(setup, "<setup>")] if setup else []
    run_in = session(scheme, module_hint, alt)
    return cell_exec.run_cells([*sources, (code, filename)], __main__.__dict__, emit=emit, session=run_in)


def run_exercise(
    code: str, setup: str, check: str, filename: str, scheme: str = "default", module_hint: str | None = None
) -> dict[str, Any]:
    """Run an exercise: ``setup``, ``code``, then its ``check``, in a fresh namespace, as the build proves it.

    Gives ``{"ok": <setup and code ran without an error>, "passed": …, "message": …}``.
    """
    run_cell = functools.partial(cell_exec.run_cell, session=session(scheme, module_hint))
    result = exercise_check.run_exercise(
        setup, code, check, run_cell=run_cell, emit=emit, setup_file="<setup>", code_file=filename
    )
    ran = result.stage == "check"
    return {"ok": ran, "passed": result.passed, "message": result.message}


def use_strings(messages: str) -> None:
    """Write the learner's words (verdicts, figure descriptions) from the page's catalogue (JSON ``messages``)."""
    strings.use(json.loads(messages))


#: Whether a console's source waits for more lines (its ``...`` prompt), decided as Python's own prompt does.
needs_more_input = cell_exec.needs_more_input


def extra_packages(code: str, packages_by_module: Any) -> list[str]:
    """Packages that the modules ``code`` uses need beyond what an import scan shows.

    ``packages_by_module`` maps a module (``posenc.plot``) to package names (``["matplotlib"]``).
    """
    names = cell_exec.module_references(code)
    return sorted({package for name in names for package in packages_by_module.get(name, ())})


def font_list_path() -> pathlib.Path:
    """Where Pyodide's matplotlib keeps its font cache: beside the package."""
    return pathlib.Path(importlib.util.find_spec("matplotlib").origin).with_name("fontlist.json")


def warm_matplotlib(font_list: Any) -> None:
    """Install the site's prebuilt font list (bytes-like with ``to_bytes()``, or None), then import the font manager.

    The font list in Pyodide's matplotlib wheel was made by another matplotlib
    version, so without ours every first import spends seconds rebuilding it.
    """
    if "matplotlib.font_manager" in sys.modules:
        return
    if font_list is not None:
        font_list_path().write_bytes(font_list.to_bytes())
    import matplotlib.font_manager  # noqa: F401
