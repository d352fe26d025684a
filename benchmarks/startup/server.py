"""A GitHub-Pages-like static server on 127.0.0.1 that logs what it sends (for the byte counts of (g))."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import posixpath
import threading
import time
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

CACHE_CONTROL = "max-age=600"  # what GitHub Pages sends
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml")
CONTENT_TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".py": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
}


@dataclass
class Entry:
    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str
    last_modified: str
    mtime: float


class SiteServer:
    """A GitHub-Pages-like static server on 127.0.0.1 that logs what it sends."""

    def __init__(self, root: Path, gzip_text: bool, cache_control: str = CACHE_CONTROL) -> None:
        self.root = root.resolve()
        self.gzip = gzip_text
        self.cache_control = cache_control
        self.files: dict[Path, Entry] = {}
        self.lock = threading.Lock()
        self.log: list[dict] = []
        if gzip_text:
            self.preload()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.respond(self, body=True)

            def do_HEAD(self) -> None:
                server.respond(self, body=False)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def preload(self) -> None:
        """Read and precompress every file once, before any run."""
        started = time.perf_counter()
        for path in self.root.rglob("*"):
            if path.is_file():
                self.entry(path)
        print(f"server: {len(self.files)} files read and gzipped in {time.perf_counter() - started:.1f} s")

    def entry(self, path: Path) -> Entry:
        with self.lock:
            cached = self.files.get(path)
        stat = path.stat()
        if cached and cached.mtime == stat.st_mtime:
            return cached
        body = path.read_bytes()
        guessed = mimetypes.guess_type(path.name)[0]
        content_type = CONTENT_TYPES.get(path.suffix) or guessed or "application/octet-stream"
        compressible = self.gzip and content_type.startswith(COMPRESSIBLE) and len(body) > 256
        entry = Entry(
            body=body,
            gzipped=gzip.compress(body, compresslevel=6, mtime=0) if compressible else None,
            content_type=content_type,
            etag='"' + hashlib.sha1(body).hexdigest()[:16] + '"',
            last_modified=formatdate(stat.st_mtime, usegmt=True),
            mtime=stat.st_mtime,
        )
        with self.lock:
            self.files[path] = entry
        return entry

    def resolve(self, url_path: str) -> tuple[Path | None, str | None]:
        """File for a URL path, or (None, redirect location) for a folder without '/'."""
        clean = posixpath.normpath(unquote(url_path))
        parts = [p for p in clean.split("/") if p and p not in (".", "..")]
        path = self.root.joinpath(*parts)
        if path.is_dir():
            if not url_path.endswith("/"):
                return None, url_path + "/"
            path = path / "index.html"
        return (path if path.is_file() else None), None

    def respond(self, handler: BaseHTTPRequestHandler, body: bool) -> None:
        started = time.time()
        split = urlsplit(handler.path)
        path, redirect = self.resolve(split.path)
        headers: list[tuple[str, str]] = []
        payload = b""
        encoding = ""
        if redirect:
            status = 301
            headers.append(("Location", redirect))
        elif path is None:
            status = 404
            missing = self.root / "404.html"
            payload = missing.read_bytes() if missing.exists() else b"not found"
            headers.append(("Content-Type", "text/html; charset=utf-8"))
        else:
            entry = self.entry(path)
            gzipped = entry.gzipped is not None and "gzip" in handler.headers.get("Accept-Encoding", "")
            etag = entry.etag[:-1] + '-gzip"' if gzipped else entry.etag  # one tag per representation
            headers += [
                ("Content-Type", entry.content_type),
                ("Cache-Control", self.cache_control),
                ("ETag", etag),
                ("Last-Modified", entry.last_modified),
                ("Access-Control-Allow-Origin", "*"),
            ]
            if entry.gzipped is not None:
                headers.append(("Vary", "Accept-Encoding"))
            if _not_modified(handler, etag, entry.mtime):
                status = 304
            elif gzipped:
                status, payload, encoding = 200, entry.gzipped, "gzip"
                headers.append(("Content-Encoding", "gzip"))
            else:
                status, payload = 200, entry.body
        handler.send_response(status)
        for name, value in headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(payload)))
        header_bytes = sum(len(line) for line in getattr(handler, "_headers_buffer", [])) + 2
        handler.end_headers()
        try:
            if body and payload:
                handler.wfile.write(payload)
            handler.wfile.flush()
            complete = True
        except (BrokenPipeError, ConnectionResetError):
            complete = False
        record = {
            "path": split.path,
            "query": split.query,
            "status": status,
            "body": len(payload) if body else 0,
            "headers": header_bytes,
            "encoding": encoding,
            "dest": handler.headers.get("Sec-Fetch-Dest", ""),
            "service_worker": handler.headers.get("Service-Worker", "") == "script",
            "start": started,
            "end": time.time(),
            "complete": complete,
        }
        with self.lock:
            self.log.append(record)

    def take_log(self) -> list[dict]:
        with self.lock:
            log, self.log = self.log, []
        return log


def _not_modified(handler: BaseHTTPRequestHandler, etag: str, mtime: float) -> bool:
    tags = handler.headers.get("If-None-Match")
    if tags is not None:
        return etag in [tag.strip() for tag in tags.split(",")] or tags.strip() == "*"
    since = handler.headers.get("If-Modified-Since")
    if since:
        try:
            return int(mtime) <= parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False
    return False
