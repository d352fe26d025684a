"""Run a page's cells at build time in the site's own Pyodide, under Node, and keep their outputs.

The build runs cells in the very Python a learner gets: the Pyodide files, the lock and
the course package's wheel the site publishes (`local_python.stage_local`), the Python
the browser's worker runs (the package ``course_kernel``, called by the same cell runner,
``assets/js/worker/run.js``) and the worker's settings (preloaded packages,
``import_packages``, the module hint, the output limits). So a cell that would fail in the
browser (an API newer than the shipped numpy, a module the site does not ship) fails the
build at its ``file:line``, and the pre-rendered output is what a learner's first Run shows.
A page's cells run in order, in one namespace, in one Node process (``node/build_python.mjs``,
the runner's host at build time), which names each run as it starts and then sends the run's
messages, those the page renders: a page that runs too long fails at the cell that was
running (`node_process` starts Node and keeps the time; `run_errors` turns what fails into an
error at the lesson's line). Results are cached by content (cells, the Node script, the
runner's scripts and its Python, lock, settings), never by where the checkout lives, so an
unchanged rebuild runs nothing, in any clone.

The same process proves a page's exercises (`PageExecutor.prove`): each solution must pass
its check and each starter must fail it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .contract import BRIDGE_MODULE, CONTRACT_FILE, PYTHON_FILES
from .errors import LessonError
from .exercises import Exercise
from .fences import Cell
from .inputs import bindings, default_key, describe, key_text, precomputed_keys
from .local_python import LocalPython
from .node_process import NODE_SCRIPT, NodeStopped, PageClock, page_messages
from .outputs import Output, RunOutputs
from .run_errors import cell_error, node_error, raise_unproven, shipped_versions
from .strings import FALLBACK, catalogue_for
from .worker_settings import OutputLimits

log = logging.getLogger("mkdocs.plugins.course")
FIGURE_SCHEMES = ["default", "slate"]
"""The colour schemes the build draws each figure in: the page shows the one in use."""
ASSETS_JS = CONTRACT_FILE.parent
RUNNER_SCRIPTS = {f"worker/{name}": ASSETS_JS / "worker" / name for name in ("run.js", "output.js", "places.js")} | {
    name: ASSETS_JS / name for name in ("strings.js", "protocol.js")
}
"""The browser's scripts that the build's Node script runs (the cell runner): their code decides the outputs."""


@dataclass(frozen=True)
class RunSettings:
    """The worker's settings that change what a cell does (from the plugin's config)."""

    preload: list[str]
    import_packages: dict[str, list[str]]
    module_hint: str
    limits: OutputLimits
    messages: Mapping[str, object] = field(default_factory=lambda: catalogue_for(FALLBACK)[1])
    """The site's catalogue (strings.py): the runner's words to the learner (verdicts, figure descriptions)."""
    language: str = FALLBACK
    """The catalogue's language (its plural forms and numbers)."""


@dataclass(frozen=True)
class PageWork:
    """What build-time runs do on one page: run its cells (in page order) and prove its exercises."""

    cells: list[Cell]
    exercises: list[Exercise]
    numbers: list[int] = field(default_factory=list)
    """Each cell's number on the page (`lesson_page.page_work`); none given: 1, 2, …"""


@dataclass
class _Job:
    """The part of a page's work that is not cached yet: cells by their number on the page, exercises."""

    path: str
    cells: dict[int, Cell]
    cells_key: str
    exercises: list[Exercise]
    exercises_key: str


def default_workers() -> int:
    """How many pages run at once: one per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class PageExecutor:
    """Runs the cells of pages at build time in the site's Pyodide, with a content-addressed cache.

    `run_pages` runs many pages at once, up to ``workers`` Node processes, one per page; `run`
    and `prove` then read a page's results from the cache (or raise its error). Each page
    starts Python once, for its cells and then its exercises, as the page's one worker does
    in the browser.
    """

    def __init__(
        self, cache_dir: Path, python: LocalPython, settings: RunSettings, timeout: int, workers: int | None = None
    ) -> None:
        """``python`` is the staged site Python; ``timeout`` the seconds a page's cells may run."""
        self.cache_dir = cache_dir / "outputs"
        self.python = python
        self.settings = settings
        self.timeout = timeout
        self.workers = workers or default_workers()
        self._fingerprint = _fingerprint(python, settings)
        self.versions = shipped_versions(python.lock_text, settings.preload)
        self._failed: dict[str, LessonError] = {}  # a page's error, under the key of the part that failed

    def run_pages(self, pages: list[PageWork]) -> None:
        """Run every page's cells and prove its exercises, ``workers`` pages at a time, into the cache.

        A page's error is kept, not raised: `run` or `prove` raises it when that page is built,
        so that errors come in page order, each at its own ``file:line``.
        """
        jobs = [job for job in map(self._job, pages) if job]
        if not jobs:
            return
        workers = min(self.workers, len(jobs))
        started = time.monotonic()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(self._do, jobs))
        took = time.monotonic() - started
        log.info(f"course: {len(jobs)} page(s) ran in Pyodide in {took:.1f} s, {workers} at a time")

    def run(self, cells: list[Cell], numbers: list[int] | None = None) -> list[list[Output]]:
        """Return each cell's outputs (an empty list for ``execute="false"`` cells).

        Raises `LessonError` at the failing cell's Markdown line, with the traceback.
        """
        runnable = _runnable(cells, numbers)
        if not runnable:
            return [[] for _ in cells]
        reply = self._reply(self._cells_key(runnable), PageWork(cells, [], numbers or []))
        outputs = iter([[Output.from_json(o) for o in outs] for outs in reply["outputs"]])
        return [next(outputs) if cell.options.execute else [] for cell in cells]

    def variants(self, cells: list[Cell], numbers: list[int] | None = None) -> list[dict[str, list[Output]]]:
        """Each cell's outputs for the other combinations of its inputs that the build pre-renders,
        by combination (`inputs.key_text`); empty for a cell without them. Call after `run`."""
        runnable = _runnable(cells, numbers)
        reply = self._cached(self._cells_key(runnable)) if runnable else None
        found = (reply or {}).get("variants", {})
        return [
            {key: [Output.from_json(o) for o in outs] for key, outs in found.get(str(n), {}).items()}
            for n in numbers or range(1, len(cells) + 1)
        ]

    def prove(self, exercises: list[Exercise]) -> None:
        """Prove a page's exercises: each solution passes its check, each starter fails it.

        Each runs in a fresh namespace after its setup. Raises `LessonError` at
        the solution's (or the starter's) first line with the check's message,
        or where the setup or the solution raised, with the traceback.
        """
        if exercises:
            self._reply(self._exercises_key(exercises), PageWork([], exercises))

    def trial(self, cells: dict[int, Cell]) -> list[RunOutputs]:
        """Run ``cells`` (by their number on the page) as the build runs a page's cells, bypassing the cache
        and raising nothing at a cell that raises: each run's outputs, errors included, up to the first run
        that failed (the build stops there). What the browser must show alike (tests/browser/test_one_runner.py).
        """
        request = {"cells": [{"number": n, **_cell_request(c)} for n, c in cells.items()], "exercises": []}
        messages = self._exchange(request, _Job("trial", cells, "", [], ""))
        return [ended[1] for _, ended in _with_runs(messages) if ended]

    def _reply(self, key: str, page: PageWork) -> dict:
        """The cached reply under ``key``, running ``page`` first if there is none; raises its error."""
        if key not in self._failed and self._cached(key) is None:
            self._do(self._job(page))
        if key in self._failed:
            raise self._failed[key]
        return self._cached(key)

    def _job(self, page: PageWork) -> _Job | None:
        """What of ``page`` is neither cached nor failed already; None when nothing is."""
        runnable = _runnable(page.cells, page.numbers)
        cells_key = self._cells_key(runnable) if runnable else ""
        exercises_key = self._exercises_key(page.exercises) if page.exercises else ""
        cells = runnable if runnable and self._pending(cells_key) else {}
        exercises = page.exercises if page.exercises and self._pending(exercises_key) else []
        if not cells and not exercises:
            return None
        path = (next(iter(cells.values())).block.path) if cells else exercises[0].block.path
        return _Job(path, cells, cells_key, exercises, exercises_key)

    def _pending(self, key: str) -> bool:
        return key not in self._failed and self._cached(key) is None

    def _do(self, job: _Job) -> None:
        """Run ``job`` in one Node process; store its replies, or keep its error under its part's key."""
        proving = not job.cells
        try:
            for message in self._page_messages(job):
                proving = proving or message["type"] == "proving"
        except LessonError as error:
            self._failed[job.exercises_key if proving else job.cells_key] = error

    def _page_messages(self, job: _Job) -> Iterator[dict]:
        """Run the job's cells, then prove its exercises; yield each message; raise at the first failure."""
        cells, exercises = job.cells, job.exercises
        log.info(f"course: {job.path}: {_work_text(len(cells), len(exercises))} in Pyodide")
        request = {"cells": [{"number": n, **_cell_request(c)} for n, c in cells.items()]}
        fields = ("setup", "starter", "check", "solution")
        request["exercises"] = [{name: getattr(exercise, name) for name in fields} for exercise in exercises]
        clock = PageClock()
        replies = []
        variants: dict[str, dict[str, list[dict]]] = {}  # cell number -> combination -> outputs
        for message, ended in _with_runs(self._exchange(request, job)):
            clock.note(message["type"])
            yield message
            if ended:
                announced, run = ended
                outputs = self._cell_reply(cells, announced, run)
                if announced["key"] is not None:
                    variants.setdefault(str(announced["number"]), {})[announced["key"]] = outputs
                    continue
                replies.append(outputs)
                if len(replies) == len(cells):
                    self._store(job.cells_key, {"outputs": replies, "variants": variants})
            elif message["type"] == "verdicts":
                raise_unproven(exercises, message["verdicts"])
                self._store(job.exercises_key, {"verdicts": message["verdicts"]})
        log.info(f"course: {job.path}: {clock.summary(len(cells), len(exercises), self.timeout)}")

    def _cell_reply(self, cells: dict[int, Cell], announced: dict, run: RunOutputs) -> list[dict]:
        """The outputs of the run that ``announced`` (a ``cell`` message) named; raises `LessonError` if it raised.

        A run with a ``key`` is one with another combination of the cell's inputs than their defaults.
        """
        outputs = run.kept()
        if not run.ok:
            error = "\n".join(o["text"] for o in outputs if o["kind"] == "error")
            cell = cells[announced["number"]]
            key = tuple(map(int, announced["key"].split(","))) if announced["key"] else default_key(cell.inputs)
            raise cell_error(cells, announced["number"], error, self.versions, describe(cell.inputs, key))
        return outputs

    def _exchange(self, request: dict, job: _Job) -> Iterator[dict]:
        """Send ``request``, with the staged Python and the settings, to a fresh Node process
        (`node_process.page_messages`); yield its messages until it ends; raise `run_errors.node_error`
        if it stops first."""
        python = self.python
        request = {
            **request,
            "index": f"{python.index}/",
            "lock": str(python.lock),
            "stdlib": str(python.stdlib) if python.stdlib else None,
            "bytecode": str(python.bytecode) if python.bytecode else None,
            "font_list": str(python.font_list),
            "python": {name: str(path) for name, path in PYTHON_FILES.items()},
            "bridge": BRIDGE_MODULE,
            "schemes": FIGURE_SCHEMES,
            "preload": self.settings.preload,
            "import_packages": self.settings.import_packages,
            "module_hint": self.settings.module_hint,
            "catalogue": {"lang": self.settings.language, "messages": dict(self.settings.messages)},
            "limits": {"maxLines": self.settings.limits.lines, "maxChars": self.settings.limits.chars},
        }
        try:
            yield from page_messages(request, self.timeout)
        except NodeStopped as stopped:
            raise node_error(stopped, job.cells, job.exercises, self.timeout) from None

    def _cells_key(self, cells: dict[int, Cell]) -> str:
        # A fence's alt text changes its figures' outputs; a cell without one keeps its key.
        return self._key([(n, c.setup, c.code, *_inputs_request(c), *_alt(c)) for n, c in cells.items()])

    def _exercises_key(self, exercises: list[Exercise]) -> str:
        fields = ("setup", "starter", "check", "solution")
        return self._key(["exercises", [{name: getattr(e, name) for name in fields} for e in exercises]])

    def _key(self, content: list) -> str:
        text = json.dumps([self._fingerprint, content])
        return hashlib.sha256(text.encode()).hexdigest()

    def _cached(self, key: str) -> dict | None:
        path = self.cache_dir / f"{key}.json"
        return json.loads(path.read_text()) if path.exists() else None

    def _store(self, key: str, reply: dict) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_dir / f"{key}.{os.getpid()}.{threading.get_ident()}.tmp"  # two builds at once: own files
        tmp.write_text(json.dumps(reply))
        tmp.replace(self.cache_dir / f"{key}.json")


def _with_runs(messages: Iterator[dict]) -> Iterator[tuple[dict, tuple[dict, RunOutputs] | None]]:
    """Each of the Node script's messages, with, at a run's ``done``, that run: its ``cell`` message and its
    outputs (`RunOutputs`, from the messages with its id between the two)."""
    run, announced = RunOutputs(), {}
    for message in messages:
        ended = None
        if message["type"] == "cell":
            run, announced = RunOutputs(), message
        elif announced and message.get("id") == announced["id"]:
            run.add(message)
            ended = (announced, run) if message["type"] == "done" else None
        yield message, ended


def _inputs_request(cell: Cell) -> list:
    """What the Node script needs of a cell's inputs: the defaults' bindings, then each other combination
    to pre-render with its bindings; nothing for a cell without inputs (so its cache key stays)."""
    if not cell.inputs:
        return []
    default = default_key(cell.inputs)
    others = [key for key in precomputed_keys(cell.inputs, cell.options.precompute) if key != default]
    return [bindings(cell.inputs, default), [[key_text(k), bindings(cell.inputs, k)] for k in others]]


def _alt(cell: Cell) -> list[str]:
    return [cell.options.alt] if cell.options.alt else []


def _cell_request(cell: Cell) -> dict:
    request = {"code": cell.code, "setup": cell.setup, "alt": cell.options.alt or ""}
    if cell.inputs:
        inputs, variants = _inputs_request(cell)
        request.update(inputs=inputs, variants=[{"key": key, "inputs": text} for key, text in variants])
    return request


def _runnable(cells: list[Cell], numbers: list[int] | None = None) -> dict[int, Cell]:
    """The cells that run at build time, by their number on the page (``numbers``; none given: from 1), as
    in the browser: ``<cell 4>``."""
    numbered = zip(numbers or range(1, len(cells) + 1), cells, strict=True)
    return {n: cell for n, cell in numbered if cell.options.execute}


def _work_text(cells: int, exercises: int) -> str:
    proving = f"proving {exercises} exercise(s)"
    if not exercises:
        return f"running {cells} cell(s)"
    return f"running {cells} cell(s), then {proving}" if cells else proving


def _fingerprint(python: LocalPython, settings: RunSettings) -> str:
    """Hash of what decides a cell's output besides its code: the Node script and its Python, the lock, the settings.

    Files are named by their name, never by where the checkout is, so every clone shares keys. The
    derived bytecode is not in it: the same sources compiled ahead, it changes how fast, not what, a cell runs.
    """
    digest = hashlib.sha256(python.lock_text.encode())
    for name, path in sorted({**PYTHON_FILES, **RUNNER_SCRIPTS, NODE_SCRIPT.name: NODE_SCRIPT}.items()):
        digest.update(name.encode() + b"\0" + path.read_bytes())
    run_settings = [settings.preload, settings.import_packages, settings.module_hint, FIGURE_SCHEMES]
    digest.update(json.dumps(run_settings).encode())
    digest.update(json.dumps([settings.language, dict(settings.messages)], sort_keys=True).encode())
    digest.update(f"{settings.limits.lines} {settings.limits.chars}".encode())
    return digest.hexdigest()
