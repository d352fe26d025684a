"""Run a page's cells at build time in CPython and keep their outputs.

The page's cells run in order in one namespace, in a child process (so a cell
cannot hang or pollute the build), through the same ``cell_exec`` module
that the browser's worker uses. Results are cached by the cells' text, the
posenc source and the runner, so an unchanged rebuild does not run anything.

The child side is ``python -m course_site.execute``: it reads a JSON request on
stdin and writes a JSON reply on stdout.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import LessonError
from .fences import Cell

RUNTIME_DIR = Path(__file__).parent / "assets" / "py"
_FRAME = re.compile(r'File "<(?P<kind>cell|setup) (?P<n>\d+)>", line (?P<line>\d+)')


@dataclass(frozen=True)
class Output:
    """One piece of a cell's output: ``kind`` is stdout, stderr, result, error or figure."""

    kind: str
    text: str = ""
    png: bytes = b""

    def to_json(self) -> dict[str, str]:
        data = {"kind": self.kind, "text": self.text}
        if self.png:
            data["png"] = base64.b64encode(self.png).decode("ascii")
        return data

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Output:
        return cls(data["kind"], data.get("text", ""), base64.b64decode(data.get("png", "")))


class PageRunner:
    """Runs the cells of pages at build time, with a content-addressed cache."""

    def __init__(self, cache_dir: Path, source_dirs: list[Path], timeout: int) -> None:
        """``source_dirs`` are package folders (``src/posenc``) the cells import."""
        self.cache_dir = cache_dir / "outputs"
        self.source_dirs = source_dirs
        self.timeout = timeout
        self._fingerprint = _fingerprint([RUNTIME_DIR, Path(__file__), *source_dirs])

    def run(self, cells: list[Cell]) -> list[list[Output]]:
        """Return each cell's outputs (an empty list for ``execute="false"`` cells).

        Raises `LessonError` at the failing cell's Markdown line, with the traceback.
        """
        # Cells are numbered from 1 in page order, as in the browser: <cell 1>, <cell 2>, ...
        runnable = {n: cell for n, cell in enumerate(cells, start=1) if cell.options.execute}
        if not runnable:
            return [[] for _ in cells]
        key = self._key(list(runnable.values()))
        reply = self._cached(key)
        if reply is None:
            reply = self._spawn(runnable)
            if reply.get("failed") is not None:
                raise _cell_error(runnable, reply["failed"], reply)
            self._store(key, reply)
        outputs = iter([[Output.from_json(o) for o in outs] for outs in reply["outputs"]])
        return [next(outputs) if cell.options.execute else [] for cell in cells]

    def _key(self, cells: list[Cell]) -> str:
        text = json.dumps([self._fingerprint, [(c.setup, c.code) for c in cells]])
        return hashlib.sha256(text.encode()).hexdigest()

    def _cached(self, key: str) -> dict | None:
        path = self.cache_dir / f"{key}.json"
        return json.loads(path.read_text()) if path.exists() else None

    def _store(self, key: str, reply: dict) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_dir / f"{key}.tmp"
        tmp.write_text(json.dumps(reply))
        tmp.replace(self.cache_dir / f"{key}.json")

    def _spawn(self, cells: dict[int, Cell]) -> dict:
        request = {
            "cells": [{"number": n, "code": c.code, "setup": c.setup} for n, c in cells.items()],
            "sys_path": [str(RUNTIME_DIR), *sorted({str(d.parent) for d in self.source_dirs})],
        }
        env = {**os.environ, "MPLBACKEND": "agg", "PYTHONHASHSEED": "0"}
        first = next(iter(cells.values()))
        try:
            done = subprocess.run(
                [sys.executable, "-m", "course_site.execute"],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LessonError(
                first.block.path,
                first.block.line,
                f"the page's cells did not finish within {self.timeout} s at build time "
                "(raise execute_timeout in mkdocs.yml or fix the loop)",
            ) from None
        if done.returncode != 0:
            raise LessonError(first.block.path, first.block.line, "the cell runner crashed", done.stderr)
        return json.loads(done.stdout)


def _fingerprint(paths: list[Path]) -> str:
    """Hash of the runner, the served sources and the interpreter versions."""
    digest = hashlib.sha256(f"{platform.python_version()} {_versions()}".encode())
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in files:
            digest.update(path.as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("numpy", "matplotlib"):
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=none")
    return " ".join(found)


def _cell_error(cells: dict[int, Cell], failed: int, reply: dict) -> LessonError:
    """A `LessonError` at the Markdown line where cell number ``failed`` raised."""
    cell = cells[failed]
    frames = [m for m in _FRAME.finditer(reply["error"]) if int(m["n"]) == failed]
    line = _markdown_line(cells, frames[-1]) if frames else cell.code_line
    traceback = _FRAME.sub(
        lambda m: f'File "{cells[int(m["n"])].block.path}", line {_markdown_line(cells, m)}', reply["error"]
    )
    return LessonError(cell.block.path, line, f"cell {failed} of the page raised", traceback)


def _markdown_line(cells: dict[int, Cell], frame: re.Match[str]) -> int:
    """The Markdown line of a ``File "<cell N>", line L`` traceback frame."""
    cell = cells[int(frame["n"])]
    first = cell.code_line if frame["kind"] == "cell" else cell.setup_line
    return first + int(frame["line"]) - 1


# --- the child process -------------------------------------------------------------------


class _Capture(io.TextIOBase):
    """A text stream that appends what is written to the cell's outputs."""

    def __init__(self, kind: str, sink: Callable[[str, str], None]) -> None:
        self.kind, self.sink = kind, sink

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.sink(self.kind, text)
        return len(text)


def _run_cells(cells: list[dict[str, str]]) -> dict:
    """Run cells in one namespace; stop at the first that raises."""
    from cell_exec import install_input_guard, run_cell

    install_input_guard()
    namespace: dict[str, object] = {"__name__": "__main__"}
    replies: list[list[dict[str, str]]] = []
    for cell in cells:
        n = cell["number"]
        outputs: list[dict[str, str]] = []
        errors: list[str] = []
        replies.append(outputs)

        def emit(kind: str, payload: object, outputs=outputs, errors=errors) -> None:
            if kind == "figure":
                assert isinstance(payload, dict)
                png = base64.b64encode(payload["png"]).decode("ascii")
                outputs.append({"kind": "figure", "text": payload["alt"], "png": png})
                return
            text = str(payload)
            if kind == "error":
                errors.append(text)
            if kind in ("stdout", "stderr") and outputs and outputs[-1]["kind"] == kind:
                outputs[-1]["text"] += text
            else:
                outputs.append({"kind": kind, "text": text})

        sys.stdout, sys.stderr = _Capture("stdout", emit), _Capture("stderr", emit)
        try:
            ok = True
            if cell["setup"].strip():
                ok = run_cell(cell["setup"], namespace, filename=f"<setup {n}>", emit=emit)
            ok = ok and run_cell(cell["code"], namespace, filename=f"<cell {n}>", emit=emit)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        if not ok:
            return {"outputs": replies, "failed": n, "error": "\n".join(errors)}
    return {"outputs": replies}


def main() -> None:
    request = json.load(sys.stdin)
    sys.path[:0] = request["sys_path"]
    reply = _run_cells(request["cells"])
    json.dump(reply, sys.__stdout__)


if __name__ == "__main__":
    main()
