"""The Python side of the cell runner, the same in the browser's worker and in the build under Node.

Each host (``assets/js/worker/boot.js`` in the browser, ``node/build_python.mjs`` at build time)
writes the package ``course_kernel`` into Pyodide's file system, registers the JS module
``_course_host`` (the runner's output, ``assets/js/worker/output.js``, and the official stdlib's
bytes), imports this module, and calls it through one runner (``assets/js/worker/run.js``): each
run is one `Payload` (its code, its colour schemes, the course's module hint), so nothing is set
between runs, and a cell's output, traceback and figures are the same for both hosts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
import io
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
    """Send one of ``cell_exec``'s outputs to the host: a figure's PNGs as bytes, the rest as text."""
    if kind == "figure":
        dark = to_js(payload["png_dark"]) if "png_dark" in payload else None
        emit_figure(to_js(payload["png"]), payload["alt"], payload["scheme"], payload["text_px"], dark)
    else:
        emit_text(kind, str(payload))


@dataclasses.dataclass(frozen=True)
class Payload:
    """One run, as the host's runner (``assets/js/worker/run.js``) sends it: the same fields from the page's
    worker and from the build under Node (``contract.json``'s ``run`` message and the host's settings).

    ``schemes``: the colour schemes each figure is drawn in (the page: its own; the build: both);
    ``check``: an exercise's check (None: a cell); ``module_hint``: the course's note on a missing module.
    """

    code: str
    filename: str
    setup: str = ""
    inputs: str = ""
    alt: str = ""
    check: str | None = None
    schemes: tuple[str, ...] = ("default",)
    module_hint: str | None = None

    @classmethod
    def of(cls, payload: Any) -> Payload:
        """The payload from a JS object (a ``JsProxy``) or a mapping; fields it lacks take their defaults."""
        fields = payload.to_py() if hasattr(payload, "to_py") else dict(payload)
        known = {name: fields[name] for name in cls.__dataclass_fields__ if fields.get(name) is not None}
        if "schemes" in known:
            known["schemes"] = tuple(known["schemes"])
        return cls(**known)

    def session(self) -> cell_exec.Session:
        """The run's session: its figures in its schemes (an unknown one is ``default``) with its ``alt`` text,
        and the module hint."""
        hint = {"module_hint": self.module_hint} if self.module_hint else {}
        return cell_exec.Session(schemes=self.schemes, alt=self.alt, **hint)


def hidden_file(filename: str, part: str) -> str:
    """The name in a traceback of a cell's hidden ``part`` (``inputs``, ``setup``), after its code's file:
    ``<cell 3>``'s setup is ``<setup 3>`` (a file without a number: ``<setup>``), the same on the page and
    at build time (this module imports the host's ``_course_host``: its tests are in tests/unit/test_bridge.py).
    """
    number = filename.strip("<>").rpartition(" ")[2]
    return f"<{part} {number}>" if number.isdigit() else f"<{part}>"


def run(payload: Any) -> cell_exec.Outcome:
    """Run a cell (a `Payload`): the bindings of its ``inputs`` and its ``setup`` (if any), then its ``code``,
    in the page's one namespace; False after an error.

    A cell that awaits at top level gives a coroutine instead, which the runner awaits.
    """
    cell = Payload.of(payload)
    sources = [(cell.inputs, hidden_file(cell.filename, "inputs"))] if cell.inputs else []
    sources += [(cell.setup, hidden_file(cell.filename, "setup"))] if cell.setup.strip() else []
    sources.append((cell.code, cell.filename))
    return cell_exec.run_cells(sources, __main__.__dict__, emit=emit, session=cell.session())


def run_exercise(payload: Any) -> dict[str, Any]:
    """Run an exercise (a `Payload` with a ``check``): its setup, code, then check, in a fresh namespace,
    as the build proves it.

    Gives ``{"ok": <setup and code ran without an error>, "passed": …, "message": …}``.
    """
    exercise = Payload.of(payload)
    run_cell = functools.partial(cell_exec.run_cell, session=exercise.session())
    result = exercise_check.run_exercise(
        exercise.setup,
        exercise.code,
        exercise.check or "",
        run_cell=run_cell,
        emit=emit,
        setup_file=hidden_file(exercise.filename, "setup"),
        code_file=exercise.filename,
    )
    return {"ok": result.stage == "check", "passed": result.passed, "message": result.message}


def prove(exercises: str, schemes: Any, module_hint: str | None) -> str:
    """The build's proof of a page's exercises (JSON list of ``setup``, ``starter``, ``check``, ``solution``):
    the check's verdict on each solution and starter, each after the setup in a fresh namespace, as JSON.

    Each verdict: ``{"passed", "message", "raised": "setup" | "solution" | "starter" | "", "error"}``.
    """
    session = Payload("", "", schemes=tuple(schemes), module_hint=module_hint).session()
    verdicts = []
    for n, exercise in enumerate(json.loads(exercises), start=1):
        verdicts.append({variant: _verdict(exercise, variant, n, session) for variant in ("solution", "starter")})
    return json.dumps(verdicts)


def _verdict(exercise: dict[str, str], variant: str, number: int, session: cell_exec.Session) -> dict:
    errors: list[str] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        result = exercise_check.run_exercise(
            exercise["setup"],
            exercise[variant],
            exercise["check"],
            run_cell=functools.partial(cell_exec.run_cell, session=session),
            emit=lambda kind, payload: errors.append(str(payload)) if kind == "error" else None,
            setup_file=f"<exercise {number} setup>",
            code_file=f"<exercise {number} {variant}>",
        )
    raised = {"setup": "setup", "code": variant}.get(result.stage, "")
    return {"passed": result.passed, "message": result.message, "raised": raised, "error": "\n".join(errors)}


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
