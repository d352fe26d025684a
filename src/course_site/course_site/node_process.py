"""The build's Node process, ``node node/build_python.mjs``: found, started with a page's request on its
stdin, and read one JSON message at a time against the clock (Python's start, then the page's time)."""

from __future__ import annotations

import json
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import SettingsError

NODE_SCRIPT = Path(__file__).with_name("node") / "build_python.mjs"  # the cell runner with the build as its host
NODE_MIN_VERSION = 18
STARTUP_TIMEOUT = 180  # seconds for Pyodide to start under Node on a busy machine (not the author's limit)
NODE_HINT = (
    "install Node.js {min}+ (Debian/Ubuntu: `apt-get install nodejs`, or `make node`), "
    "or set `execute: false` under `plugins: - course:` in mkdocs.yml to skip build-time runs"
)


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


class PageClock:
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


class NodeProcess:
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

    def __enter__(self) -> NodeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.stderr.close()


@dataclass(eq=False)
class NodeStopped(Exception):
    """Node stopped before the page's work was done."""

    how: str  # "ended", "timed out", or "exit" (the page's Python called it)
    running: int | None  # the cell that was running
    proving: bool  # whether the exercises were being proved
    ready: bool  # whether Python had started
    status: int = 0  # the exit status, when it ended or exited
    error: str = ""  # what Node reported on stderr, when it ended


def page_messages(request: dict, timeout: int) -> Iterator[dict]:
    """Send ``request`` to a fresh Node process; yield its messages until its ``end``.

    Python has `STARTUP_TIMEOUT` seconds to start; then the cells have ``timeout`` seconds, then the
    exercises too; the runs of a cell's other pre-rendered combinations of inputs (a ``cell`` message
    with a ``key``, to that run's ``done``) are not counted. Raises `NodeStopped` when Node stops first.
    """
    with NodeProcess(request) as process:
        running = None
        ready = proving = False
        deadline = time.monotonic() + STARTUP_TIMEOUT
        variant = None  # (the run id, when it started) of a combination's run under way
        while True:
            message = process.next_message(deadline)
            if message is None:
                status = process.process.wait()
                raise NodeStopped(
                    "ended", running, proving=proving, ready=ready, status=status, error=process.error_text()
                )
            if message == _TIMED_OUT:
                raise NodeStopped("timed out", running, proving=proving, ready=ready)
            kind = message["type"]
            if kind in ("ready", "proving"):
                ready = True
                deadline = time.monotonic() + timeout
            if kind == "proving":
                running, proving = None, True
            elif kind == "cell":
                running = message["number"]
                variant = (message["id"], time.monotonic()) if message["key"] is not None else None
            elif kind == "done" and variant and message["id"] == variant[0]:
                deadline += time.monotonic() - variant[1]
                variant = None
            elif kind == "exit":
                raise NodeStopped("exit", running, proving=proving, ready=ready, status=message["status"])
            elif kind == "end":
                return
            yield message
