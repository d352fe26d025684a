"""Run a page's cells at build time in the site's own Pyodide, under Node, and keep their outputs.

The build runs cells in the very Python a learner gets: the Pyodide files, the lock and
the course package's wheel the site publishes (`local_python.stage_local`), the Python
the browser's worker runs (``cell_exec.py``, ``exercise_check.py``) and the worker's
settings (preloaded packages, ``import_packages``, the module hint, the output limits).
So a cell that would fail in the browser (an API newer than the shipped numpy, a module
the site does not ship) fails the build at its ``file:line``, and the pre-rendered output
is what a learner's first Run shows. A page's cells run in order, in one namespace, in
one Node process (``node/build_python.mjs`` and its Python half ``node/build_python.py``), which
reports each cell as it starts: a page that runs too long fails at the cell that was
running. Results are cached by content (cells, the Node script and its Python, lock, settings), never by where
the checkout lives, so an unchanged rebuild runs nothing, in any clone.

The same process proves a page's exercises (`PageExecutor.prove`): each solution must pass
its check and each starter must fail it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .contract import BRIDGE, PYTHON_FILES
from .errors import LessonError, SettingsError
from .exercises import Exercise
from .fences import Block, Cell
from .inputs import bindings, default_key, describe, key_text, precomputed_keys
from .local_python import LocalPython
from .worker_settings import OutputLimits

NODE_DIR = Path(__file__).with_name("node")  # the build's Python under Node: build_python.mjs and build_python.py
NODE_SCRIPT = NODE_DIR / "build_python.mjs"
BUILD_PYTHON_FILES = {
    **{name: path for name, path in PYTHON_FILES.items() if name != BRIDGE},  # the worker's, but its bridge
    "course_build_python.py": NODE_DIR / "build_python.py",  # the bridge's part, under Node
}
NODE_MIN_VERSION = 18
STARTUP_TIMEOUT = 180  # seconds for Pyodide to start under Node on a busy machine (not the author's limit)
NODE_HINT = (
    "install Node.js {min}+ (Debian/Ubuntu: `apt-get install nodejs`, or `make node`), "
    "or set `execute: false` under `plugins: - course:` in mkdocs.yml to skip build-time runs"
)
_FRAME = re.compile(r'File "<(?P<kind>cell|setup) (?P<n>\d+)>", line (?P<line>\d+)')
_EXERCISE_FRAME = re.compile(r'File "<exercise (?P<n>\d+) (?P<section>setup|solution|starter)>", line (?P<line>\d+)')
log = logging.getLogger("mkdocs.plugins.course")


@dataclass(frozen=True)
class Output:
    """One piece of a cell's output: ``kind`` is stdout, stderr, result, error, figure,
    or a notice of the output limit: ``capped`` (the limit was reached) or ``dropped`` (how much)."""

    kind: str
    text: str = ""
    png: bytes = b""
    png_dark: bytes = b""  # a figure drawn in the dark (slate) scheme
    text_px: float = 0.0  # a figure's smallest font size, in its PNG's pixels

    @classmethod
    def from_json(cls, data: dict) -> Output:
        png, dark = (base64.b64decode(data.get(key, "")) for key in ("png", "png_dark"))
        return cls(data["kind"], data.get("text", ""), png, dark, float(data.get("text_px", 0.0)))


@dataclass(frozen=True)
class RunSettings:
    """The worker's settings that change what a cell does (from the plugin's config)."""

    preload: list[str]
    import_packages: dict[str, list[str]]
    module_hint: str
    limits: OutputLimits


def find_node() -> str:
    """The ``node`` executable, checked to be recent enough; raises `SettingsError` saying how to get one."""
    node = shutil.which("node")
    if node is None:
        raise SettingsError(
            "course: build-time runs need Node.js (no `node` on PATH): " + NODE_HINT.format(min=NODE_MIN_VERSION)
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    major = re.match(r"v(\d+)", version)
    if not major or int(major[1]) < NODE_MIN_VERSION:
        raise SettingsError(
            f"course: {node} is Node.js {version or '(unknown)'}: " + NODE_HINT.format(min=NODE_MIN_VERSION)
        )
    return node


@dataclass(frozen=True)
class PageWork:
    """What build-time runs do on one page: run its cells (in page order) and prove its exercises."""

    cells: list[Cell]
    exercises: list[Exercise]


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

    def run(self, cells: list[Cell]) -> list[list[Output]]:
        """Return each cell's outputs (an empty list for ``execute="false"`` cells).

        Raises `LessonError` at the failing cell's Markdown line, with the traceback.
        """
        runnable = _runnable(cells)
        if not runnable:
            return [[] for _ in cells]
        reply = self._reply(self._cells_key(runnable), PageWork(cells, []))
        outputs = iter([[Output.from_json(o) for o in outs] for outs in reply["outputs"]])
        return [next(outputs) if cell.options.execute else [] for cell in cells]

    def variants(self, cells: list[Cell]) -> list[dict[str, list[Output]]]:
        """Each cell's outputs for the other combinations of its inputs that the build pre-renders,
        by combination (`inputs.key_text`); empty for a cell without them. Call after `run`."""
        runnable = _runnable(cells)
        reply = self._cached(self._cells_key(runnable)) if runnable else None
        found = (reply or {}).get("variants", {})
        return [
            {key: [Output.from_json(o) for o in outs] for key, outs in found.get(str(n), {}).items()}
            for n, _ in enumerate(cells, start=1)
        ]

    def prove(self, exercises: list[Exercise]) -> None:
        """Prove a page's exercises: each solution passes its check, each starter fails it.

        Each runs in a fresh namespace after its setup. Raises `LessonError` at
        the solution's (or the starter's) first line with the check's message,
        or where the setup or the solution raised, with the traceback.
        """
        if exercises:
            self._reply(self._exercises_key(exercises), PageWork([], exercises))

    def _reply(self, key: str, page: PageWork) -> dict:
        """The cached reply under ``key``, running ``page`` first if there is none; raises its error."""
        if key not in self._failed and self._cached(key) is None:
            self._do(self._job(page))
        if key in self._failed:
            raise self._failed[key]
        return self._cached(key)

    def _job(self, page: PageWork) -> _Job | None:
        """What of ``page`` is neither cached nor failed already; None when nothing is."""
        runnable = _runnable(page.cells)
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
        clock = _PageClock()
        replies = []
        variants: dict[str, dict[str, list[dict]]] = {}  # cell number -> combination -> outputs
        for message in self._exchange(request, job):
            clock.note(message["type"])
            yield message
            if message["type"] == "variant":
                variants.setdefault(str(message["number"]), {})[message["key"]] = self._cell_reply(cells, message)
            elif message["type"] == "cell":
                replies.append(self._cell_reply(cells, message))
                if len(replies) == len(cells):
                    self._store(job.cells_key, {"outputs": replies, "variants": variants})
            elif message["type"] == "verdicts":
                _raise_unproven(exercises, message["verdicts"])
                self._store(job.exercises_key, {"verdicts": message["verdicts"]})
        log.info(f"course: {job.path}: {clock.summary(len(cells), len(exercises), self.timeout)}")

    def _cell_reply(self, cells: dict[int, Cell], message: dict) -> list[dict]:
        """A cell's outputs with the browser's notices; raises `LessonError` if the cell raised.

        A ``variant`` message is a run with another combination of the cell's inputs (``key``).
        """
        outputs = [_with_notice(o, self.settings.limits) for o in message["outputs"]]
        if not message["ok"]:
            error = "\n".join(o["text"] for o in outputs if o["kind"] == "error")
            cell = cells[message["number"]]
            key = tuple(map(int, message["key"].split(","))) if "key" in message else default_key(cell.inputs)
            raise _cell_error(cells, message["number"], error, self.versions, describe(cell.inputs, key))
        return outputs

    def _exchange(self, request: dict, job: _Job) -> Iterator[dict]:
        """Send ``request`` to a fresh Node process (build_python.mjs); yield its messages until it ends.

        Errors before any cell starts point at the page's first cell (or exercise); when the time is
        up, at the cell still running. The cells have ``timeout`` seconds, then the exercises too;
        the runs of a cell's other pre-rendered combinations of inputs are not counted.
        """
        python = self.python
        request = {
            **request,
            "index": f"{python.index}/",
            "lock": str(python.lock),
            "stdlib": str(python.stdlib) if python.stdlib else None,
            "bytecode": str(python.bytecode) if python.bytecode else None,
            "font_list": str(python.font_list),
            "python": {name: str(path) for name, path in BUILD_PYTHON_FILES.items()},
            "preload": self.settings.preload,
            "import_packages": self.settings.import_packages,
            "module_hint": self.settings.module_hint,
            "limits": {"lines": self.settings.limits.lines, "chars": self.settings.limits.chars},
        }
        blocks = {n: c.block for n, c in job.cells.items()}
        first = blocks[min(blocks)] if blocks else job.exercises[0].block
        cells = job.cells or None
        with _NodeProcess(request) as process:
            running = None
            ready = False
            deadline, mark = time.monotonic() + STARTUP_TIMEOUT, time.monotonic()
            while True:
                message = process.next_message(deadline)
                if message is None:
                    raise _ended(process, blocks[running] if running else first, running)
                if message == _TIMED_OUT:
                    raise _timed_out(first, running, cells, self.timeout, ready=ready)
                if message["type"] in ("ready", "proving"):
                    ready = True
                    deadline = time.monotonic() + self.timeout
                if message["type"] == "variant":  # another combination of a cell's inputs: not counted
                    deadline += time.monotonic() - mark
                mark = time.monotonic()
                if message["type"] == "proving":
                    first, running, cells = job.exercises[0].block, None, None
                elif message["type"] == "started":
                    running = message["number"]
                elif message["type"] == "exit":
                    raise _exited(blocks[running] if running else first, running, message["status"])
                elif message["type"] == "done":
                    return
                yield message

    def _cells_key(self, cells: dict[int, Cell]) -> str:
        return self._key([(c.setup, c.code, *_inputs_request(c)) for c in cells.values()])

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


def _inputs_request(cell: Cell) -> list:
    """What the Node script needs of a cell's inputs: the defaults' bindings, then each other combination
    to pre-render with its bindings; nothing for a cell without inputs (so its cache key stays)."""
    if not cell.inputs:
        return []
    default = default_key(cell.inputs)
    others = [key for key in precomputed_keys(cell.inputs, cell.options.precompute) if key != default]
    return [bindings(cell.inputs, default), [[key_text(k), bindings(cell.inputs, k)] for k in others]]


def _cell_request(cell: Cell) -> dict:
    request = {"code": cell.code, "setup": cell.setup}
    if cell.inputs:
        inputs, variants = _inputs_request(cell)
        request.update(inputs=inputs, variants=[{"key": key, "inputs": text} for key, text in variants])
    return request


def _runnable(cells: list[Cell]) -> dict[int, Cell]:
    """The cells that run at build time, by their number on the page (from 1, as in the browser: <cell 1>)."""
    return {n: cell for n, cell in enumerate(cells, start=1) if cell.options.execute}


def _work_text(cells: int, exercises: int) -> str:
    proving = f"proving {exercises} exercise(s)"
    if not exercises:
        return f"running {cells} cell(s)"
    return f"running {cells} cell(s), then {proving}" if cells else proving


class _PageClock:
    """When a page's Node process started, had Python ready, began proving and ended: the log's figures."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.marks = {"ready": self.started, "proving": None}

    def note(self, kind: str) -> None:
        if kind in self.marks:
            self.marks[kind] = time.monotonic()

    def summary(self, cells: int, exercises: int, timeout: int) -> str:
        """``N cell(s) ran in X s (of execute_timeout T s), after S s to start Python; M exercise(s) ...``."""
        now = time.monotonic()
        ready, proving = self.marks["ready"], self.marks["proving"] or now
        parts = []
        if cells:
            parts.append(f"{cells} cell(s) ran in {proving - ready:.1f} s (of execute_timeout {timeout} s)")
        if exercises:
            parts.append(f"{exercises} exercise(s) proved in {now - (proving if cells else ready):.1f} s")
        return ", ".join(parts) + f", after {ready - self.started:.1f} s to start Python"


_TIMED_OUT = {"type": "timed out"}


class _NodeProcess:
    """``node node/build_python.mjs`` with a request on its stdin, read one JSON line at a time."""

    def __init__(self, request: dict) -> None:
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [find_node(), str(NODE_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.process.stdin.write(json.dumps(request))
        self.process.stdin.close()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next_message(self, deadline: float) -> dict | None:
        """The next message; None when the process ended, `_TIMED_OUT` past ``deadline``."""
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return _TIMED_OUT
        return None if line is None else json.loads(line)

    def error_text(self) -> str:
        """The error Node reported on stderr, in one line (its last ``...Error: ...`` line), without its stack."""
        self.process.wait()
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        errors = [line for line in lines if re.match(r"^\w*Error\b", line)]
        return (errors or lines or ["no message"])[-1]

    def __enter__(self) -> _NodeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.stderr.close()


def _timed_out(
    first: Block, running: int | None, cells: dict[int, Cell] | None, timeout: int, *, ready: bool
) -> LessonError:
    """The error when time ran out: at the cell that was running, else at the page's first block."""
    if not ready:
        return LessonError(
            first.path, first.line, f"Python (the site's Pyodide under Node) did not start within {STARTUP_TIMEOUT} s"
        )
    if cells is None or running is None:
        return LessonError(
            first.path,
            first.line,
            f"the page's exercises were still running after {timeout} s at build time (an endless loop in a "
            "setup, check, starter or solution?): fix it, or raise `execute_timeout` under `plugins: - course:`",
        )
    cell = cells[running]
    return LessonError(
        cell.block.path,
        cell.code_line,
        f"cell {running} of the page was still running after {timeout} s at build time "
        '(an endless loop, or too much work?): make it faster, mark its fence execute="false", '
        "or raise `execute_timeout` under `plugins: - course:` in mkdocs.yml",
    )


def _exited(block: Block, running: int | None, status: int) -> LessonError:
    where = f"cell {running} of the page" if running else "the page's code"
    return LessonError(
        block.path,
        block.line,
        f"{where} ended Python (exit status {status}, as os._exit does); the browser would restart Python "
        "and lose the page's namespace: raise an exception instead",
    )


def _ended(process: _NodeProcess, block: Block, running: int | None) -> LessonError:
    """The error when Node ended early: at the cell that ran (too much memory, a crash in Pyodide)."""
    status = process.process.wait()
    where = f"while cell {running} of the page ran (too much memory?)" if running else "before any cell ran"
    return LessonError(
        block.path,
        block.line,
        f"the build-time Python (Pyodide under Node) stopped {where}, exit status {status}: {process.error_text()}",
    )


def _with_notice(output: dict, limits: OutputLimits) -> dict:
    """An output of the Node script; the output limit's notices get the browser's text (cell.js)."""
    if output["kind"] == "capped":
        kb = round(limits.chars / 1000)
        return {
            "kind": "capped",
            "text": f"Output limit reached ({limits.lines} lines or {kb} kB per run); the rest is dropped.",
        }
    if output["kind"] == "dropped":
        lines = output["lines"]
        text = (
            f"… {lines:,} line{'' if lines == 1 else 's'} dropped ({output['chars'] / 1e6:.1f} MB of output not shown)."
        )
        return {"kind": "dropped", "text": text}
    return output


def _fingerprint(python: LocalPython, settings: RunSettings) -> str:
    """Hash of what decides a cell's output besides its code: the Node script and its Python, the lock, the settings.

    Files are named by their name, never by where the checkout is, so every clone shares keys. The
    derived bytecode is not in it: the same sources compiled ahead, it changes how fast, not what, a cell runs.
    """
    digest = hashlib.sha256(python.lock_text.encode())
    for name, path in sorted({**BUILD_PYTHON_FILES, NODE_SCRIPT.name: NODE_SCRIPT}.items()):
        digest.update(name.encode() + b"\0" + path.read_bytes())
    digest.update(json.dumps([settings.preload, settings.import_packages, settings.module_hint]).encode())
    digest.update(f"{settings.limits.lines} {settings.limits.chars}".encode())
    return digest.hexdigest()


def shipped_versions(lock_text: str, preload: list[str]) -> str:
    """What a cell runs in, for the author: Pyodide, its Python, numpy, matplotlib and the preloaded packages."""
    lock = json.loads(lock_text)
    packages = lock["packages"]
    names = [name for name in dict.fromkeys(["numpy", "matplotlib", *preload]) if name in packages]
    listed = ", ".join(f"{name} {packages[name]['version']}" for name in names)
    return f"Pyodide {lock['info']['version']} (Python {lock['info']['python']}) with {listed}"


def _cell_error(cells: dict[int, Cell], failed: int, error: str, versions: str, inputs: str = "") -> LessonError:
    """A `LessonError` at the Markdown line where cell number ``failed`` raised.

    The hint says that cells run in the learner's Python: ``versions`` names it; ``inputs``, the
    values of the cell's inputs it ran with.
    """
    cell = cells[failed]
    frames = [m for m in _FRAME.finditer(error) if int(m["n"]) == failed]
    line = _markdown_line(cells, frames[-1]) if frames else cell.code_line
    traceback = _FRAME.sub(lambda m: f'File "{cells[int(m["n"])].block.path}", line {_markdown_line(cells, m)}', error)
    hint = (
        f"Cells run at build time in the Python a learner's browser runs, {versions}: an API newer than "
        "these, or a module the site does not ship, fails here as it would for every learner."
    )
    what = f"cell {failed} of the page raised" + (f" with its inputs {inputs}" if inputs else "")
    return LessonError(cell.block.path, line, what, f"{traceback.rstrip()}\n{hint}")


def _markdown_line(cells: dict[int, Cell], frame: re.Match[str]) -> int:
    """The Markdown line of a ``File "<cell N>", line L`` traceback frame."""
    cell = cells[int(frame["n"])]
    first = cell.code_line if frame["kind"] == "cell" else cell.setup_line
    return first + int(frame["line"]) - 1


def _raise_unproven(exercises: list[Exercise], verdicts: list[dict[str, dict]]) -> None:
    """Raise `LessonError` for the first exercise whose solution fails or whose starter passes."""
    for number, (exercise, verdict) in enumerate(zip(exercises, verdicts, strict=True), start=1):
        solution, starter = verdict["solution"], verdict["starter"]
        name = f'exercise "{exercise.title}"'
        if solution["raised"]:
            raise _exercise_error(exercise, number, solution, f"the {solution['raised']} of {name} raised")
        if not solution["passed"]:
            raise LessonError(
                exercise.path, exercise.solution_line, f"the solution of {name} fails its check: {solution['message']}"
            )
        if starter["passed"]:
            raise LessonError(
                exercise.path,
                exercise.starter_line,
                f"the starter code of {name} already passes its check; it must fail it, "
                "so that the learner has something to do",
            )


def _exercise_error(exercise: Exercise, number: int, verdict: dict, message: str) -> LessonError:
    """A `LessonError` at the Markdown line that raised, with the traceback's frames on Markdown lines."""
    first_lines = {"setup": exercise.setup_line, "solution": exercise.solution_line, "starter": exercise.starter_line}

    def markdown_line(frame: re.Match[str]) -> int:
        return first_lines[frame["section"]] + int(frame["line"]) - 1

    frames = [m for m in _EXERCISE_FRAME.finditer(verdict["error"]) if int(m["n"]) == number]
    line = markdown_line(frames[-1]) if frames else first_lines[verdict["raised"]]
    traceback = _EXERCISE_FRAME.sub(lambda m: f'File "{exercise.path}", line {markdown_line(m)}', verdict["error"])
    return LessonError(exercise.path, line, message, traceback)
