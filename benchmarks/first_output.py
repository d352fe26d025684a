"""How long a learner waits for a cell's first output, against the bare Pyodide floor.

Run:  .venv/bin/python benchmarks/first_output.py [--pairs N] [--only ab,d,cf] [--gzip] [--site DIR]

Builds the site into ``.cache/bench-site`` when its inputs changed, serves it on
127.0.0.1 (threaded, in memory, ``Cache-Control: max-age=600`` and ETags like
GitHub Pages; ``--gzip`` also gzips text and wasm when the browser accepts it)
and drives headless Chromium.  Every cold run gets a new browser context (its
own empty HTTP cache, code cache and service-worker registry); the warm visit
uses a persistent profile in a fresh temporary folder.  Nothing may leave
127.0.0.1: a dead proxy and a host-resolver rule block it, and any such request
is reported as an error.  (No ``context.route``: Playwright turns the HTTP cache
off while a route is installed, which would void the warm visit, and it adds a
round trip to every request.)

Each round runs, in alternating order within each pair, so that machine noise
hits both sides alike:

(a)  floor: ``bench/bare.html``, the same Pyodide in a Web Worker, numpy loaded
     and imported; navigation start -> "numpy imported" reaches the page.
(b)  lesson 32, Run on cell 1 clicked as soon as the page has loaded and the
     button exists; navigation start -> first live output node in the cell.
(d)  cell 2 (heatmap) likewise -> live figure ``img``; against its own floor:
     the bare page with numpy + matplotlib + posenc, the font list, ``import
     matplotlib.pyplot``, then cell 2's own code run with ``exec`` and its
     figure saved to PNG.
(e)  in the same page as (d): Run on cell 2 again once it is done -> figure;
     its floor (floor_e): in the floor_d page, cell 2's code run and saved again.
(c)  persistent profile, first visit: Run on cell 1 after 8 s of reading;
     click -> first output.
(f)  the same profile and tab, second visit (warm HTTP cache, service worker if
     registered): navigation start -> first output of cell 1, as in (b).
(g)  bytes by file for (b) and (d), counted by the server (body + headers, as
     sent on the wire; this includes the page, its Web Workers and the
     service worker), cross-checked once against Chromium's own
     ``request.sizes()``; files the cell does not need are flagged.

Diagnostics, once at the end (``--no-diagnostics`` skips them): floor_d without
the font list; the floor's own repeat visits in fresh profiles, plain and with
Pyodide loaded the way the site's worker once did (responses re-wrapped to count
bytes, pyodide.asm.js run from a blob: URL), to see what V8's code caches give;
Chromium's byte count for one cold (d).

Times are taken in the page (``performance.now()``, 0 = navigation start) by an
init script that wraps ``Worker`` to time its messages and watches the cell's
output with a MutationObserver; clicks are made in the page too, so no
Playwright round trip sits inside a measurement.  Ratios are medians of the
per-round ratios.  Results go to ``benchmarks/results/first_output.json``.
This is a report, not a test: it exits 0 unless the benchmark itself broke.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import mimetypes
import os
import posixpath
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
SITE_DIR = ROOT / ".cache" / "bench-site"
RESULTS = HERE / "results" / "first_output.json"
LESSON = "lessons/32-positional-encoding/"
FIGURE_CELL = "#cell-2"  # the heatmap, for (d) and (e)
BENCH_FOLDER = "bench"  # where bare.html goes in the served folder
BARE_FILES = ("bare.html", "bare_worker.js")
BUILD_INPUTS = ("mkdocs.yml", "docs", "lessons", "src", "pyodide_assets/manifest.json", "pyodide_assets/*.json")
STAMP = ".bench-inputs"
FONT_LIST = "matplotlib-fontlist.json"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Nothing but loopback: other names do not resolve, other addresses go to a dead proxy
    # (loopback always bypasses the proxy).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
]
RUN_TIMEOUT_S = 180  # one cold load on a busy 2-core machine, with matplotlib
READ_SECONDS = 8.0

GOALS = {
    "b/a": 1.10,
    "c_s": 0.3,
    "d/floor_d": 1.3,
    "e_ms": 150.0,
    "f/b": 0.5,
}
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


# --------------------------------------------------------------------------- site


def build_inputs_fingerprint() -> str:
    """A hash of the path, size and mtime of every file the build reads."""
    digest = hashlib.sha256()
    for pattern in BUILD_INPUTS:
        for top in sorted(ROOT.glob(pattern)):
            files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
            for path in files:
                if "__pycache__" in path.parts or path.suffix == ".pyc":
                    continue
                stat = path.stat()
                digest.update(f"{path.relative_to(ROOT)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def ensure_site(site: Path, rebuild: bool) -> None:
    """Build the site into ``site`` unless an identical build is there already."""
    fingerprint = build_inputs_fingerprint()
    stamp = site / STAMP
    if not rebuild and stamp.exists() and stamp.read_text() == fingerprint:
        print(f"site: up to date in {site}")
        return
    print(f"site: building into {site} …", flush=True)
    started = time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"mkdocs build failed:\n{done.stdout}\n{done.stderr}")
    stamp.write_text(fingerprint)
    print(f"site: built in {time.perf_counter() - started:.1f} s")


def cell_sources(page: str, cell_id: str) -> dict[str, str]:
    """``{"setup": …, "code": …}`` of the cell with this id in a built lesson page."""

    found: dict[str, str] = {}

    class Finder(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            values = dict(attrs)
            if values.get("id") == cell_id:
                found.update(setup=values.get("data-setup") or "", code=values.get("data-code") or "")

    Finder().feed(page)
    if not found.get("code"):
        raise SystemExit(f"benchmark: no cell #{cell_id} with code in the lesson page")
    return found


def install_bare_page(site: Path) -> None:
    folder = site / BENCH_FOLDER
    folder.mkdir(exist_ok=True)
    for name in BARE_FILES:
        shutil.copy2(HERE / name, folder / name)


@dataclass
class SiteInfo:
    """What the benchmark needs to know about the built site."""

    runtime: dict
    lock: dict
    lock_path: str  # site path of the lock, e.g. assets/course/pyodide-lock-….json
    index_path: str  # site path of the Pyodide folder, e.g. pyodide/v0.27.7/
    figure_cell: dict[str, str]  # FIGURE_CELL's data-setup and data-code, as the lesson page holds them

    @classmethod
    def read(cls, site: Path) -> SiteInfo:
        course = site / "assets" / "course"
        runtime = json.loads((course / "runtime.json").read_text())
        lock_path = f"assets/course/{runtime['lock_file_url']}"
        index = posixpath.normpath(posixpath.join("assets/course/", runtime["pyodide_index_url"])) + "/"
        cell = cell_sources((site / LESSON / "index.html").read_text(), FIGURE_CELL.lstrip("#"))
        return cls(runtime, json.loads((site / lock_path).read_text()), lock_path, index, cell)

    def closure(self, *names: str) -> set[str]:
        packages = self.lock["packages"]
        found: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo.extend(packages[name]["depends"])
        return found

    def wheel_paths(self) -> dict[str, str]:
        """Site path of every wheel in the lock -> package name."""
        out = {}
        for name, package in self.lock["packages"].items():
            out[posixpath.normpath(posixpath.join(self.index_path, package["file_name"]))] = name
        return out

    def bare_url(self, base: str, mode: str, font_list: bool = True, site_style: bool = False) -> str:
        query = {"index": f"/{self.index_path}", "lock": f"/{self.lock_path}", "mode": mode}
        if mode == "matplotlib" and font_list:
            query["fontlist"] = f"/{self.index_path}{FONT_LIST}"
        if mode == "matplotlib":
            query.update(self.figure_cell)
        if site_style:
            query["style"] = "site"
        return f"{base}{BENCH_FOLDER}/bare.html?{urlencode(query)}"


# --------------------------------------------------------------------------- server


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

    def __init__(self, root: Path, gzip_text: bool) -> None:
        self.root = root.resolve()
        self.gzip = gzip_text
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
                ("Cache-Control", CACHE_CONTROL),
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


# --------------------------------------------------------------------------- the page side

# Runs in every top-level document before its own scripts.  CONFIGS holds one entry
# per visit of the tab (sessionStorage counts them); an entry says which cell to
# watch and when to click its Run button ("load", a delay in ms after load, or null).
INIT_SCRIPT = r"""
(() => {
  if (window.top !== window) return;
  const CONFIGS = __CONFIGS__;
  let visit = 1;
  try {
    visit = Number(sessionStorage.getItem("__bench_visit") || 0) + 1;
    sessionStorage.setItem("__bench_visit", String(visit));
  } catch (err) { /* opaque origin */ }
  const cfg = CONFIGS[Math.min(visit, CONFIGS.length) - 1] || {};
  const B = (window.__bench = { visit, cfg, marks: {}, events: [], outputs: {}, done: [] });
  const mark = (name, t = performance.now()) => {
    if (!(name in B.marks)) B.marks[name] = t;
    B.events.push([Math.round(t), name]);
    return t;
  };
  B.mark = mark;
  document.addEventListener("DOMContentLoaded", () => {
    mark("domcontentloaded");
    B.controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  });
  addEventListener("load", () => mark("load"));

  // Time the Python worker's messages (first progress of each phase, all others).
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      const label = (options && options.name) || String(url);
      mark(`worker created: ${label}`);
      if (!(options && options.name)) return; // the theme's search worker
      this.addEventListener("message", (event) => {
        const m = event.data || {};
        if (m.type === "progress") {
          const names = m.packages && m.packages.length ? " " + m.packages.join(",") : "";
          const name = `worker progress: ${m.phase}${names}`;
          if (!(name in B.marks)) mark(name);
        } else if (m.type === "mark") {
          mark(`bare: ${m.name}`, m.t - performance.timeOrigin);
        } else if (m.type) {
          mark(`worker ${m.type}`);
          if (m.type === "done") B.done.push({ status: m.status, ms: m.ms, totalMs: m.totalMs, t: performance.now() });
        }
      });
    }
    postMessage(message, transfer) {
      if (message && message.type) mark(`page -> worker: ${message.type}`);
      return super.postMessage(message, transfer);
    }
  };

  // Live output of a cell: a .course-out node (or notice) not there when watching began,
  // in an output area that no longer holds the precomputed output.
  const watchers = [];
  B.watch = (cell, name, figure = false) => {
    const selector = `${cell} .course-cell__output ${figure ? "figure img" : ".course-out, .course-cell__notice"}`;
    watchers.push({ cell, name, selector, before: new Set(document.querySelectorAll(selector)) });
    check();
  };
  function check() {
    for (let i = watchers.length - 1; i >= 0; i--) {
      const w = watchers[i];
      const out = document.querySelector(`${w.cell} .course-cell__output`);
      if (!out || out.dataset.precomputed !== "false") continue;
      const node = [...document.querySelectorAll(w.selector)].find((n) => !w.before.has(n));
      if (!node) continue;
      watchers.splice(i, 1);
      mark(w.name);
      B.outputs[w.name] = { className: node.className || node.tagName, text: (node.textContent || "").slice(0, 120) };
      if (node.tagName === "IMG") node.decode().then(() => mark(`${w.name} decoded`), () => {});
    }
  }
  new MutationObserver(() => { if (watchers.length) check(); })
    .observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-precomputed"] });

  B.click = (cell, name) => {
    const button = document.querySelector(`${cell} .course-cell__button--run`);
    mark(name);
    button.click();
  };
  const whenButton = (cell, fn) => {
    const selector = `${cell} .course-cell__button--run`;
    if (document.querySelector(selector)) return fn();
    const observer = new MutationObserver(() => {
      if (!document.querySelector(selector)) return;
      observer.disconnect();
      mark("run button ready");
      fn();
    });
    observer.observe(document, { childList: true, subtree: true });
  };
  if (cfg.cell) {
    B.watch(cfg.cell, "output");
    if (cfg.figure) B.watch(cfg.cell, "figure", true);
    if (cfg.click != null) {
      addEventListener("load", () => {
        const delay = cfg.click === "load" ? 0 : Number(cfg.click);
        const go = () => whenButton(cfg.cell, () => B.click(cfg.cell, "click"));
        if (delay > 0) setTimeout(go, delay);
        else go();
      });
    }
  }
})();
"""

FINISHED_JS = "() => /^(done|error|stopped)$/.test(document.querySelector('CELL')?.dataset.state)"

RESOURCES_JS = """() => ({
  origin: performance.timeOrigin,
  entries: performance.getEntriesByType("resource").map((e) => ({
    name: e.name, initiator: e.initiatorType, start: e.startTime, responseStart: e.responseStart,
    end: e.responseEnd, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
    delivery: e.deliveryType || "", workerStart: e.workerStart,
  })),
})"""

# Asked of the lesson's Python worker once the heatmap's runs are over (so it
# perturbs nothing measured): is matplotlib's font cache the one the site ships,
# what would rebuilding it cost, and where does a re-run of the heatmap spend its
# time?  (`pyodide` is the worker script's top-level binding.)
WORKER_PROBE_JS = """() => {
  if (typeof pyodide === "undefined" || !pyodide) return { error: "no pyodide binding in the worker" };
  return JSON.parse(pyodide.runPython(`
import io, json, os, sys, time
info = {"matplotlib_imported": "matplotlib" in sys.modules}
if info["matplotlib_imported"]:
    from matplotlib import font_manager
    path = os.path.join(os.path.dirname(font_manager.__file__), "fontlist.json")
    info["font_cache_path"] = path
    info["font_cache_exists"] = os.path.exists(path)
    info["font_manager_version"] = font_manager.FontManager.__version__
    if info["font_cache_exists"]:
        with open(path) as f:
            info["font_cache_version"] = json.load(f).get("_version")
    info["ttf_fonts"] = len(font_manager.fontManager.ttflist)
    info["prebuilt_marker"] = getattr(font_manager.fontManager, "_course_prebuilt", None)
    t = time.perf_counter()
    font_manager.FontManager()
    info["font_cache_rebuild_ms"] = round((time.perf_counter() - t) * 1000)

    import numpy as np
    import posenc, posenc.plot
    import matplotlib.pyplot as plt
    steps = {}
    t = time.perf_counter()
    pe = posenc.sinusoidal(64, 128)
    steps["sinusoidal(64, 128)"] = time.perf_counter() - t
    t = time.perf_counter()
    fig = posenc.plot.heatmap(pe)
    steps["posenc.plot.heatmap"] = time.perf_counter() - t
    t = time.perf_counter()
    fig.savefig(io.BytesIO(), format="png", dpi=100)
    steps["savefig png dpi=100 (a fresh figure)"] = time.perf_counter() - t
    t = time.perf_counter()
    fig.canvas.draw()
    steps["canvas.draw() of the same figure again"] = time.perf_counter() - t
    plt.close(fig)
    fig = posenc.plot.heatmap(pe)
    t = time.perf_counter()
    fig.savefig(io.BytesIO(), format="png", dpi=100, bbox_inches="tight")
    steps["savefig png dpi=100 bbox_inches=tight (a fresh figure)"] = time.perf_counter() - t
    plt.close(fig)
    fig = plt.figure(figsize=(8, 3))
    posenc.plot.heatmap(pe, ax=fig.add_subplot())
    t = time.perf_counter()
    fig.savefig(io.BytesIO(), format="png", dpi=100)
    steps["savefig png dpi=100 (a fresh figure without a layout engine)"] = time.perf_counter() - t
    plt.close(fig)
    fig = posenc.plot.heatmap(pe)
    t = time.perf_counter()
    fig.savefig(io.BytesIO(), format="png", dpi=72)
    steps["savefig png dpi=72 (a fresh figure)"] = time.perf_counter() - t
    plt.close(fig)
    t = time.perf_counter()
    len(np.unique(pe.round(8), axis=0))
    steps["np.unique(pe.round(8), axis=0)"] = time.perf_counter() - t
    info["heatmap_steps_ms"] = {k: round(v * 1000, 1) for k, v in steps.items()}
json.dumps(info)
`));
}"""

COURSE_WORKER = "/assets/course/js/worker.js"


@dataclass
class Run:
    """One page load: its in-page marks, resource timings and what the server sent."""

    kind: str
    marks: dict[str, float] = field(default_factory=dict)
    events: list = field(default_factory=list)
    outputs: dict = field(default_factory=dict)
    done: list = field(default_factory=list)
    resources: list[dict] = field(default_factory=list)
    served: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    error: str | None = None

    def mark(self, name: str) -> float | None:
        return self.marks.get(name)

    def summary(self) -> dict:
        return {
            "kind": self.kind,
            "error": self.error,
            "marks": {k: round(v, 1) for k, v in self.marks.items()},
            "outputs": self.outputs,
            "done": self.done,
            "extra": self.extra,
            "events": self.events,
            "resources": self.resources,
            "served": self.served,
        }

    @classmethod
    def from_summary(cls, data: dict) -> Run:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


class Bench:
    def __init__(self, browser_type, chromium: str, server: SiteServer, info: SiteInfo, read_s: float) -> None:
        self.browser_type = browser_type
        self.chromium = chromium
        self.server = server
        self.info = info
        self.read_s = read_s
        self.leaks: list[str] = []
        self.page_errors: list[str] = []
        self.browser = browser_type.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)

    def close(self) -> None:
        self.browser.close()

    # -- plumbing

    def guard(self, context, kind: str) -> None:
        def check(request) -> None:
            url = request.url
            if url.startswith(("data:", "blob:", "about:")):
                return
            if urlsplit(url).hostname != "127.0.0.1":
                self.leaks.append(f"{kind}: request left 127.0.0.1: {url}")

        context.on("request", check)

    def watch_page(self, page, kind: str) -> None:
        page.on("pageerror", lambda error: self.page_errors.append(f"{kind}: {error}"))
        page.on("console", lambda msg: msg.type == "error" and self.page_errors.append(f"{kind}: console: {msg.text}"))

    def lesson_url(self) -> str:
        return self.server.base_url + LESSON

    def collect(self, page, run: Run, context) -> None:
        data = page.evaluate("() => ({bench: window.__bench, origin: performance.timeOrigin})")
        bench = data["bench"]
        run.marks.update(bench["marks"])
        run.events = bench["events"]
        run.outputs = bench["outputs"]
        run.done = bench["done"]
        run.extra["controlled_at_dcl"] = bench.get("controlled")
        run.extra["time_origin"] = data["origin"]
        run.resources = resources(page, context)

    def wait(self, page, condition: str, timeout_s: float = RUN_TIMEOUT_S) -> None:
        page.wait_for_function(condition, polling=200, timeout=timeout_s * 1000)

    # -- runs

    def bare(self, mode: str, font_list: bool = True) -> Run:
        run = Run(f"bare-{mode}" + ("" if font_list else "-no-font-list"))
        self.server.take_log()
        context = self.browser.new_context()
        try:
            self.guard(context, run.kind)
            context.add_init_script(INIT_SCRIPT.replace("__CONFIGS__", "[{}]"))
            page = context.new_page()
            self.watch_page(page, run.kind)
            page.goto(self.info.bare_url(self.server.base_url, mode, font_list), wait_until="commit")
            self.wait(page, "() => window.__bare && (window.__bare.done || window.__bare.error)")
            bare = page.evaluate("() => window.__bare")
            if bare["error"]:
                run.error = bare["error"]
            self.collect(page, run, context)
            run.marks.update({f"received: {k}": v for k, v in bare["received"].items()})
        except Exception as exc:
            run.error = f"{type(exc).__name__}: {exc}"
        finally:
            context.close()
            run.served = self.server.take_log()
        return run

    def lesson_cold(self, cell: str, figure: bool, rerun: bool) -> Run:
        run = Run(f"lesson-{cell.lstrip('#')}")
        self.server.take_log()
        context = self.browser.new_context()
        config = [{"cell": cell, "figure": figure, "click": "load"}]
        target = "figure" if figure else "output"
        try:
            self.guard(context, run.kind)
            context.add_init_script(INIT_SCRIPT.replace("__CONFIGS__", json.dumps(config)))
            page = context.new_page()
            self.watch_page(page, run.kind)
            page.goto(self.lesson_url(), wait_until="commit")
            self.wait(page, f"() => window.__bench && '{target}' in window.__bench.marks")
            self.wait(page, FINISHED_JS.replace("CELL", cell))
            run.extra["state"] = page.eval_on_selector(cell, "(c) => c.dataset.state")
            run.extra["status"] = page.inner_text(f"{cell} .course-cell__status")
            if rerun:
                page.evaluate(
                    """(cell) => {
                        window.__bench.watch(cell, "rerun output");
                        window.__bench.watch(cell, "rerun figure", true);
                        window.__bench.click(cell, "rerun click");
                    }""",
                    cell,
                )
                self.wait(page, "() => 'rerun figure' in window.__bench.marks", 60)
                self.wait(page, f"() => document.querySelector('{cell}').dataset.state !== 'running'", 60)
            self.collect(page, run, context)
            if figure:
                run.extra["probe"] = probe_worker(page)
        except Exception as exc:
            run.error = f"{type(exc).__name__}: {exc}"
        finally:
            context.close()
            run.served = self.server.take_log()
        return run

    def warm_profile(self) -> tuple[Run, Run]:
        """(c) then (f): one persistent profile, two visits of the lesson in one tab."""
        first, second = Run("lesson-read-then-run"), Run("lesson-second-visit")
        configs = [
            {"cell": "#cell-1", "click": round(self.read_s * 1000)},
            {"cell": "#cell-1", "click": "load"},
        ]
        self.server.take_log()
        with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
            context = self.browser_type.launch_persistent_context(
                profile, executable_path=self.chromium, headless=True, args=CHROMIUM_ARGS
            )
            try:
                self.guard(context, "warm profile")
                context.add_init_script(INIT_SCRIPT.replace("__CONFIGS__", json.dumps(configs)))
                page = context.pages[0] if context.pages else context.new_page()
                self.watch_page(page, "warm profile")
                for run in (first, second):
                    try:
                        page.goto(self.lesson_url(), wait_until="commit")
                        self.wait(page, "() => window.__bench && 'output' in window.__bench.marks")
                        self.wait(page, FINISHED_JS.replace("CELL", "#cell-1"))
                        if run is first:
                            run.extra["service_worker"] = settle_service_worker(page)
                        run.extra["state"] = page.eval_on_selector("#cell-1", "(c) => c.dataset.state")
                        self.collect(page, run, context)
                        run.extra["service_workers"] = [w.url for w in context.service_workers]
                    except Exception as exc:
                        run.error = f"{type(exc).__name__}: {exc}"
                    finally:
                        run.served = self.server.take_log()
                    if run.error:
                        second.error = second.error or "first visit failed"
                        break
            finally:
                context.close()
        return first, second

    def bare_warm(self, site_style: bool = False, visits: int = 3) -> list[Run]:
        """The floor's own warm visits: (a) again and again in one fresh persistent profile.

        HTTP cache, no service worker.  ``site_style``: Pyodide loaded the way the site's worker once did.
        """
        kind = "bare-numpy-site-style" if site_style else "bare-numpy"
        runs = [Run(f"{kind}-visit-{n}") for n in range(1, visits + 1)]
        with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
            context = self.browser_type.launch_persistent_context(
                profile, executable_path=self.chromium, headless=True, args=CHROMIUM_ARGS
            )
            try:
                self.guard(context, "bare warm profile")
                context.add_init_script(INIT_SCRIPT.replace("__CONFIGS__", "[{}]"))
                page = context.pages[0] if context.pages else context.new_page()
                for run in runs:
                    page.goto(
                        self.info.bare_url(self.server.base_url, "numpy", site_style=site_style), wait_until="commit"
                    )
                    self.wait(page, "() => window.__bare && (window.__bare.done || window.__bare.error)")
                    bare = page.evaluate("() => window.__bare")
                    run.error = bare["error"]
                    self.collect(page, run, context)
                    run.marks.update({f"received: {k}": v for k, v in bare["received"].items()})
                    run.served = self.server.take_log()
            finally:
                context.close()
        return runs

    def sizes_check(self, cell: str) -> dict:
        """Chromium's own count (request.sizes()) for one cold run, to check the server's."""
        context = self.browser.new_context()
        finished: list = []
        try:
            context.on("requestfinished", lambda request: finished.append(request))
            context.add_init_script(
                INIT_SCRIPT.replace("__CONFIGS__", json.dumps([{"cell": cell, "figure": True, "click": "load"}]))
            )
            page = context.new_page()
            page.goto(self.lesson_url(), wait_until="commit")
            self.wait(page, FINISHED_JS.replace("CELL", cell))
            page.wait_for_timeout(500)
            out: dict[str, int] = defaultdict(int)
            for request in finished:
                if request.url.startswith(("data:", "blob:")):
                    continue
                sizes = request.sizes()
                out[urlsplit(request.url).path] += sizes["responseBodySize"] + sizes["responseHeadersSize"]
            return dict(out)
        finally:
            context.close()
            self.server.take_log()


def resources(page, context) -> list[dict]:
    """Resource timing of the page, its workers and service workers, on the page's clock."""
    page_data = page.evaluate(RESOURCES_JS)
    out = [{**e, "where": "page"} for e in page_data["entries"]]
    workers = [(w, "worker") for w in page.workers] + [(w, "service worker") for w in context.service_workers]
    for worker, where in workers:
        try:
            data = worker.evaluate(RESOURCES_JS)
        except Exception:
            continue
        shift = data["origin"] - page_data["origin"]
        for e in data["entries"]:
            for key in ("start", "responseStart", "end", "workerStart"):
                if e[key]:
                    e[key] += shift
            out.append({**e, "where": where})
    return out


def probe_worker(page) -> dict:
    workers = [w for w in page.workers if COURSE_WORKER in w.url]
    if not workers:
        return {"error": f"no course worker among {[w.url for w in page.workers]}"}
    try:
        return workers[0].evaluate(WORKER_PROBE_JS)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def settle_service_worker(page, timeout_s: float = 20.0) -> dict:
    """Wait until the service worker's caches stop growing; report what they hold."""
    js = """async () => {
        const sw = navigator.serviceWorker;
        const registration = sw ? await sw.getRegistration() : null;
        const caches_ = {};
        for (const name of await caches.keys()) caches_[name] = (await (await caches.open(name)).keys()).length;
        return {
            registered: Boolean(registration),
            active: Boolean(registration && registration.active),
            script: registration && registration.active ? registration.active.scriptURL : null,
            controller: Boolean(sw && sw.controller),
            caches: caches_,
        };
    }"""
    deadline = time.monotonic() + timeout_s
    last, stable_since = None, time.monotonic()
    state = page.evaluate(js)
    while time.monotonic() < deadline:
        state = page.evaluate(js)
        key = json.dumps(state, sort_keys=True)
        if key != last:
            last, stable_since = key, time.monotonic()
        elif time.monotonic() - stable_since > 2.0:
            break
        time.sleep(0.25)
    return state


# --------------------------------------------------------------------------- analysis


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def diff(later: float | None, earlier: float | None) -> float | None:
    return None if later is None or earlier is None else later - earlier


def ratio(num: float | None, den: float | None) -> float | None:
    return None if num is None or not den else num / den


def classify(path: str, info: SiteInfo, needed_wheels: set[str], needs_fonts: bool) -> tuple[str, bool]:
    """(category, flagged) for a site path fetched during a run."""
    site_path = path.lstrip("/")
    wheels = info.wheel_paths()
    if site_path in wheels:
        name = wheels[site_path]
        return (f"wheel {name}", name not in needed_wheels)
    if site_path.startswith(info.index_path):
        if site_path.endswith(FONT_LIST):
            return ("matplotlib font list", not needs_fonts)
        return ("Pyodide core", False)
    if site_path == info.lock_path:
        return ("lock", False)
    if site_path.startswith(("assets/course/js/", "assets/course/vendor/", "assets/course/py/", "assets/course/css/")):
        return ("cell runner", False)
    if site_path == "assets/course/runtime.json":
        return ("cell runner", False)
    if site_path.endswith("course-sw.js"):
        return ("service worker", False)
    if site_path.startswith(("search/", "assets/javascripts/workers/")):
        return ("theme search", False)
    return ("page / theme", False)


def byte_table(run: Run, info: SiteInfo, needed: set[str], needs_fonts: bool) -> dict:
    rows: dict[str, dict] = {}
    origin = run.extra.get("time_origin")
    for record in run.served:
        row = rows.setdefault(
            record["path"],
            {"requests": 0, "bytes": 0, "body": 0, "status": [], "encoding": record["encoding"], "by": set(), "at": []},
        )
        row["requests"] += 1
        if origin and record["status"] == 200:
            row["at"].append(round(record["start"] * 1000 - origin))
        row["bytes"] += record["body"] + record["headers"]
        row["body"] += record["body"]
        row["status"].append(record["status"])
        dest = {"empty": "fetch", "": "?"}.get(record["dest"], record["dest"])
        row["by"].add("service worker script" if record["service_worker"] else dest)
    table = []
    for path, row in rows.items():
        category, flagged = classify(path, info, needed, needs_fonts)
        notes = []
        if flagged:
            notes.append("NOT NEEDED by the cell")
        downloads = sum(1 for s in row["status"] if s == 200)
        if downloads > 1:
            at = ", ".join(f"{t} ms" for t in row["at"])
            notes.append(f"downloaded {downloads} times (at {at}; worker ready at {fmt_ms(run.mark('worker ready'))})")
        table.append(
            {
                "path": path,
                "category": category,
                "requests": row["requests"],
                "bytes": row["bytes"],
                "status": sorted(set(row["status"])),
                "encoding": row["encoding"],
                "by": sorted(row["by"]),
                "at_ms": row["at"],
                "flag": "; ".join(notes),
            }
        )
    table.sort(key=lambda r: -r["bytes"])
    return {
        "files": table,
        "total_bytes": sum(r["bytes"] for r in table),
        "requests": sum(r["requests"] for r in table),
        "flagged": [r for r in table if r["flag"]],
    }


def timeline(run: Run, names: list[str]) -> list[tuple[str, float | None, float, str]]:
    """Marks and selected resource timings of one run: (name, start or None, end, how it was served)."""
    points: list[tuple[str, float | None, float, str]] = [
        (name, None, t, "") for name, t in run.marks.items() if not name.startswith("received: ")
    ]
    for e in run.resources:
        base = e["name"].split("?")[0].rsplit("/", 1)[-1]
        if e["start"] >= 0 and any(n in base for n in names):  # a service worker may predate the page
            via = served_via(e, run)
            points.append((f"fetched {base} [{e['where']}]", e["start"], e["end"], via))
    return points


def served_via(e: dict, run: Run) -> str:
    """How a response came: "service worker" (its response), "cache" (the HTTP cache) or "" (network).

    A request that the service worker sees but leaves alone has a ``workerStart``
    too; the service worker's own fetch of the same URL tells the two apart.
    """
    if e["where"] != "service worker" and e.get("workerStart"):
        fetched_by_sw = {r["name"] for r in run.resources if r["where"] == "service worker"}
        if e["name"] in fetched_by_sw:
            return "service worker"
    return "cache" if e.get("delivery") == "cache" else ""


def median_marks(runs: list[Run]) -> dict[str, float]:
    names: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for name, t in run.marks.items():
            names[name].append(t)
    return {name: median(ts) for name, ts in names.items() if len(ts) * 2 >= len(runs)}


# --------------------------------------------------------------------------- report


def fmt_s(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms / 1000:.2f} s"


def fmt_ms(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms:.0f} ms"


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("ok" if ok else "MISSED")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5, help="interleaved rounds (default 5, at least 1)")
    parser.add_argument("--gzip", action="store_true", help="gzip text and wasm like GitHub Pages")
    parser.add_argument("--site", type=Path, help="use this built site as it is (no build)")
    parser.add_argument("--rebuild", action="store_true", help="build the site even if it looks up to date")
    parser.add_argument("--read-seconds", type=float, default=READ_SECONDS, help="reading time before (c)'s click")
    parser.add_argument("--no-diagnostics", action="store_true", help="skip the one-off runs at the end")
    parser.add_argument("--json", type=Path, default=RESULTS, help="results file (default benchmarks/results/…)")
    parser.add_argument(
        "--only",
        default="ab,d,cf",
        help="measure only these groups: ab = (a)+(b), d = floor_d+(d)+(e), cf = (c)+(f) (default: all)",
    )
    parser.add_argument("--from-json", type=Path, help="measure nothing: analyse the runs in this results file")
    args = parser.parse_args()
    if args.from_json:
        return reanalyse(args)

    from playwright.sync_api import sync_playwright

    site = args.site.resolve() if args.site else SITE_DIR
    measured = git_state()
    if not args.site:
        ensure_site(site, args.rebuild)
    install_bare_page(site)
    info = SiteInfo.read(site)
    chromium = find_chromium()
    print(f"chromium: {chromium}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; gzip: {args.gzip}")

    rounds: list[dict[str, Run]] = []
    diagnostics: dict[str, Any] = {}
    started = time.perf_counter()
    with SiteServer(site, args.gzip) as server, sync_playwright() as p:
        bench = Bench(p.chromium, chromium, server, info, args.read_seconds)
        try:
            # Warm-up (not counted): the OS file cache, Chromium's shared processes.
            bench.bare("numpy")
            measure = {
                "a": lambda: bench.bare("numpy"),
                "b": lambda: bench.lesson_cold("#cell-1", figure=False, rerun=False),
                "floor_d": lambda: bench.bare("matplotlib"),
                "d": lambda: bench.lesson_cold(FIGURE_CELL, figure=True, rerun=True),
            }
            groups = set(args.only.split(","))
            pairs = [pair for group, pair in (("ab", ("a", "b")), ("d", ("floor_d", "d"))) if group in groups]
            for number in range(1, max(1, args.pairs) + 1):
                runs: dict[str, Run] = {}
                for pair in pairs:
                    for key in pair if number % 2 else pair[::-1]:  # a b, then b a, …
                        runs[key] = measure[key]()
                if "cf" in groups:
                    runs["c"], runs["f"] = bench.warm_profile()
                rounds.append(runs)
                print(round_line(number, runs), flush=True)
            if not args.no_diagnostics:
                diagnostics["floor_d_without_font_list"] = bench.bare("matplotlib", font_list=False)
                for site_style in (False, True, False, True):
                    label = "a_site_style" if site_style else "a"
                    for n, visit in enumerate(bench.bare_warm(site_style)):
                        diagnostics.setdefault(f"{label}_visit_{n + 1}", []).append(visit)
                try:
                    diagnostics["sizes_check_cell_2"] = bench.sizes_check(FIGURE_CELL)
                except Exception as exc:
                    print(f"sizes check failed: {type(exc).__name__}: {exc}")
        finally:
            bench.close()
        leaks, page_errors = bench.leaks, bench.page_errors
    elapsed = time.perf_counter() - started
    args.json.parent.mkdir(parents=True, exist_ok=True)
    raw = {"config": {"git": measured, "site": str(site)}, **raw_data(rounds, diagnostics, leaks, page_errors, elapsed)}
    args.json.write_text(json.dumps(raw, default=_json_default))  # kept if the analysis fails
    report = analyse(rounds, diagnostics, info, leaks, page_errors, args, elapsed)
    report["config"].update(raw["config"])
    args.json.write_text(json.dumps(report, indent=2, default=_json_default))
    print(f"\nresults: {args.json}")
    return 0


def reanalyse(args: argparse.Namespace) -> int:
    data = json.loads(args.from_json.read_text())
    rounds = [{k: Run.from_summary(v) for k, v in runs.items()} for runs in data["rounds"]]
    diagnostics = {k: _runs_from_json(v) for k, v in data["diagnostics"].items()}
    site = Path(data["config"].get("site") or SITE_DIR)
    args.gzip = data["config"].get("gzip", args.gzip)
    report = analyse(
        rounds, diagnostics, SiteInfo.read(site), data["leaks"], data["page_errors"], args, data["elapsed_s"]
    )
    report["config"].update({k: v for k, v in data["config"].items() if k in ("git", "site")})
    args.json.write_text(json.dumps(report, indent=2, default=_json_default))
    return 0


def git_state() -> dict:
    """The commit measured, and which files of the product differed from it."""

    def git(*command: str) -> str:
        done = subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return {
        "head": git("rev-parse", "HEAD"),
        "dirty": git("status", "--porcelain", "--", "src", "pyodide_assets").splitlines(),
    }


def find_chromium() -> str:
    recorded = ROOT / ".cache" / "chromium-path"
    for candidate in (recorded.read_text().strip() if recorded.exists() else "", "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not found:
        sys.exit("no Chromium: run `make browser`")
    return found


def metrics(runs: dict[str, Run]) -> dict[str, float | None]:
    """The figures of one round, in ms."""
    a, b, c, d, f, floor_d = (runs.get(k) for k in ("a", "b", "c", "d", "f", "floor_d"))
    ok = lambda run: run is not None and not run.error  # noqa: E731
    return {
        "a": a.mark("received: numpy imported") if ok(a) else None,
        "b": b.mark("output") if ok(b) else None,
        "c": diff(c.mark("output"), c.mark("click")) if ok(c) else None,
        "floor_d": floor_d.mark("received: figure drawn to PNG") if ok(floor_d) else None,
        "floor_e": diff(floor_d.mark("received: figure drawn again"), floor_d.mark("received: figure drawn to PNG"))
        if ok(floor_d)
        else None,
        "d": d.mark("figure") if ok(d) else None,
        "e": diff(d.mark("rerun figure"), d.mark("rerun click")) if ok(d) else None,
        "f": f.mark("output") if ok(f) else None,
    }


def round_line(number: int, runs: dict[str, Run]) -> str:
    m = metrics(runs)
    errors = [f"{k}: {r.error}" for k, r in runs.items() if r.error]
    line = (
        f"round {number}: a {fmt_s(m['a'])}  b {fmt_s(m['b'])}  c {fmt_ms(m['c'])}  "
        f"floor_d {fmt_s(m['floor_d'])}  d {fmt_s(m['d'])}  floor_e {fmt_ms(m['floor_e'])}  e {fmt_ms(m['e'])}  "
        f"f {fmt_s(m['f'])}"
    )
    return line + ("".join(f"\n  error {e}" for e in errors) if errors else "")


def analyse(rounds, diagnostics, info: SiteInfo, leaks, page_errors, args, elapsed: float) -> dict:
    per_round = [metrics(r) for r in rounds]
    series = {key: [m[key] for m in per_round] for key in ("a", "b", "c", "floor_d", "d", "floor_e", "e", "f")}
    ratios = {
        "b/a": median([ratio(m["b"], m["a"]) for m in per_round]),
        "d/floor_d": median([ratio(m["d"], m["floor_d"]) for m in per_round]),
        "e/floor_e": median([ratio(m["e"], m["floor_e"]) for m in per_round]),
        "f/b": median([ratio(m["f"], m["b"]) for m in per_round]),
    }
    med = {key: median(values) for key, values in series.items()}
    checks = {
        "b/a": None if ratios["b/a"] is None else ratios["b/a"] <= GOALS["b/a"],
        "c": None if med["c"] is None else med["c"] <= GOALS["c_s"] * 1000,
        "d/floor_d": None if ratios["d/floor_d"] is None else ratios["d/floor_d"] <= GOALS["d/floor_d"],
        "e": None if med["e"] is None else med["e"] <= GOALS["e_ms"],
        "f/b": None if ratios["f/b"] is None else ratios["f/b"] <= GOALS["f/b"],
    }

    first_ok = lambda key: next((r[key] for r in rounds if key in r and not r[key].error), None)  # noqa: E731
    needed_b = info.closure("numpy", "posenc")
    needed_d = info.closure("numpy", "posenc", "matplotlib")
    bytes_b = byte_table(first_ok("b"), info, needed_b, False) if first_ok("b") else None
    bytes_d = byte_table(first_ok("d"), info, needed_d, True) if first_ok("d") else None
    bytes_f = byte_table(first_ok("f"), info, needed_b, False) if first_ok("f") else None
    checks["g"] = None if not (bytes_b and bytes_d) else not (bytes_b["flagged"] or bytes_d["flagged"])
    floors = {
        key: byte_table(first_ok(key), info, info.closure("numpy", "matplotlib"), True) if first_ok(key) else None
        for key in ("a", "floor_d")
    }

    print("\n== First output (medians of", len(rounds), "interleaved rounds; times from navigation start) ==")
    rows = [
        ("(a) floor: bare Pyodide + numpy imported", fmt_s(med["a"]), "", ""),
        (
            "(b) lesson cell 1, Run at load -> output",
            fmt_s(med["b"]),
            f"(b)/(a) = {fmt_ratio(ratios['b/a'])}",
            f"<= {GOALS['b/a']}: {verdict(checks['b/a'])}",
        ),
        (
            "(c) Run after 8 s reading -> output",
            fmt_ms(med["c"]),
            "click -> output",
            f"<= {GOALS['c_s']} s: {verdict(checks['c'])}",
        ),
        ("floor_d: bare + matplotlib + cell 2 to PNG", fmt_s(med["floor_d"]), "", ""),
        (
            "(d) cell 2 heatmap, Run at load -> figure",
            fmt_s(med["d"]),
            f"(d)/floor = {fmt_ratio(ratios['d/floor_d'])}",
            f"<= {GOALS['d/floor_d']}: {verdict(checks['d/floor_d'])}",
        ),
        ("floor_e: cell 2 run again in floor_d", fmt_ms(med["floor_e"]), "", ""),
        (
            "(e) heatmap Run again -> figure",
            fmt_ms(med["e"]),
            f"(e)/floor = {fmt_ratio(ratios['e/floor_e'])}",
            f"<= {GOALS['e_ms']:.0f} ms: {verdict(checks['e'])}",
        ),
        (
            "(f) second visit, warm profile -> output",
            fmt_s(med["f"]),
            f"(f)/(b) = {fmt_ratio(ratios['f/b'])}",
            f"<= {GOALS['f/b']}: {verdict(checks['f/b'])}",
        ),
    ]
    for row in rows:
        print(f"  {row[0]:<44} {row[1]:>9}   {row[2]:<20} {row[3]}")
    print("  samples (ms):")
    for key, values in series.items():
        print(f"    {key:<8} " + " ".join("   n/a" if v is None else f"{v:6.0f}" for v in values))

    for label, table in (("(b) cell 1", bytes_b), ("(d) cell 2", bytes_d), ("(f) second visit, cell 1", bytes_f)):
        print_bytes(label, table)
    for key, table in floors.items():
        if table:
            print(f"  for comparison, floor {key}: {table['total_bytes'] / 1e6:.2f} MB in {table['requests']} requests")
    print(f"  (g) nothing fetched that the cell does not need: {verdict(checks['g'])}")
    sizes = diagnostics.get("sizes_check_cell_2")
    if sizes and bytes_d:
        chromium_total = sum(sizes.values())
        print(
            f"  cross-check, cell 2: Chromium's request.sizes() counts {chromium_total / 1e6:.2f} MB in "
            f"{len(sizes)} files (server: {bytes_d['total_bytes'] / 1e6:.2f} MB in {len(bytes_d['files'])} files)"
        )

    where = where_time_goes(rounds, diagnostics)
    print("\n== Where the time goes (medians, ms from navigation start) ==")
    for title, points in where.items():
        print(f"  {title}")
        for name, t in points:
            print(f"    {t:8.0f}  {name}")

    observations = observe(rounds, diagnostics, info)
    print("\n== Observations ==")
    for line in observations:
        print(f"  - {line}")
    if leaks or page_errors:
        print("\n== Errors ==")
        for line in sorted(set(leaks)) + sorted(set(page_errors)):
            print(f"  {line}")
    print(f"\n({elapsed / 60:.1f} min, load average now {os.getloadavg()[0]:.2f})")

    return {
        "config": {
            "pairs": len(rounds),
            "gzip": args.gzip,
            "read_seconds": args.read_seconds,
            "cpus": os.cpu_count(),
        },
        "goals": GOALS,
        "medians_ms": med,
        "ratios": ratios,
        "checks": checks,
        "samples_ms": series,
        "bytes": {"b": bytes_b, "d": bytes_d, "f": bytes_f, **floors, "chromium_sizes_cell_2": sizes},
        "where": where,
        "observations": observations,
        **raw_data(rounds, diagnostics, leaks, page_errors, elapsed),
    }


def raw_data(rounds, diagnostics, leaks, page_errors, elapsed: float) -> dict:
    """What was measured, as JSON (``--from-json`` reads it back)."""
    return {
        "leaks": sorted(set(leaks)),
        "page_errors": sorted(set(page_errors)),
        "elapsed_s": elapsed,
        "rounds": [{k: r.summary() for k, r in runs.items()} for runs in rounds],
        "diagnostics": {k: _runs_to_json(v) for k, v in diagnostics.items()},
    }


def print_bytes(label: str, table: dict | None) -> None:
    if not table:
        print(f"\n== (g) bytes for {label}: no successful run ==")
        return
    print(f"\n== (g) bytes for {label}: {table['total_bytes'] / 1e6:.2f} MB in {table['requests']} requests ==")
    for row in table["files"]:
        name = row["path"] if len(row["path"]) <= 60 else "…" + row["path"][-59:]
        print(
            f"  {row['bytes']:>10,}  {name:<60} {row['category']:<24} x{row['requests']} {row['status']} "
            f"{row['encoding'] or '-':<4} {','.join(row['by'])}  {row['flag']}"
        )


def where_time_goes(rounds: list[dict[str, Run]], diagnostics: dict) -> dict[str, list[tuple[str, float]]]:
    files = ["pyodide.js", "pyodide.asm", "python_stdlib", "numpy-", "posenc-", "matplotlib", "pyodide-lock"]
    files += ["loader.js", "kernel.js", "cell.js", "codemirror.js", "runtime.json", "bundle."]
    out = {}
    for key, title in (
        ("a", "(a) bare numpy"),
        ("b", "(b) lesson cell 1"),
        ("floor_d", "floor_d bare matplotlib"),
        ("d", "(d) lesson cell 2"),
        ("f", "(f) second visit"),
    ):
        runs = [r[key] for r in rounds if key in r and not r[key].error]
        if not runs:
            continue
        merged: dict[str, list[tuple[float | None, float, str]]] = defaultdict(list)
        for run in runs:
            for name, start, end, via in timeline(run, files):
                merged[name].append((start, end, via))
        points = []
        for name, values in merged.items():
            if len(values) * 2 < len(runs):
                continue
            end = median([v[1] for v in values])
            if values[0][0] is not None:
                vias = [v[2] for v in values if v[2]]
                name += f", from {median([v[0] for v in values]):.0f} ms"
                if vias:
                    name += f" ({len(vias)}/{len(values)} via {vias[0]})"
            points.append((name, end))
        out[title] = sorted(points, key=lambda p: p[1])
    return out


# Mark names (see INIT_SCRIPT and bare.html).
BOOTED = "received: loadPyodide done (packages loaded)"
COURSE = "worker created: course-python"
BARE = "worker created: bare-python"
RUN_SENT = "page -> worker: run"


def observe(rounds: list[dict[str, Run]], diagnostics: dict, info: SiteInfo) -> list[str]:
    """Where the time goes, from the medians of the in-page marks."""
    notes: list[str] = []
    ok = lambda key: [r[key] for r in rounds if key in r and not r[key].error]  # noqa: E731
    a_runs, b_runs, c_runs, d_runs, f_runs, floors = ok("a"), ok("b"), ok("c"), ok("d"), ok("f"), ok("floor_d")
    span = lambda m, end, begin: fmt_ms(diff(m.get(end), m.get(begin)))  # noqa: E731
    if a_runs and b_runs:
        a, b = median_marks(a_runs), median_marks(b_runs)
        notes.append(
            "(b) vs (a), medians: Python worker created at "
            f"{fmt_ms(b.get(COURSE))} vs {fmt_ms(a.get(BARE))} "
            f"(lesson: DOMContentLoaded {fmt_ms(b.get('domcontentloaded'))}, load {fmt_ms(b.get('load'))}, Run button "
            f"and click {fmt_ms(b.get('click'))}); "
            f"worker created -> 'ready' {span(b, 'worker ready', COURSE)} vs the floor's worker created -> "
            f"loadPyodide done {span(a, BOOTED, BARE)}, -> numpy imported {span(a, 'received: numpy imported', BARE)}; "
            "then "
            f"run sent -> 'started' (loading what the cell imports beyond the preloaded packages): "
            f"{span(b, 'worker started', RUN_SENT)}; 'started' -> first output (the cell's Python, with any "
            f"import not done at boot; the floor's `import numpy` takes {span(a, 'received: numpy imported', BOOTED)}"
            f"): {span(b, 'output', 'worker started')}"
        )
        mpl = [r for r in b_runs if any("matplotlib" in s["path"] for s in r.served)]
        fonts = [r for r in b_runs if any(s["path"].endswith(FONT_LIST) for s in r.served)]
        notes.append(
            f"(b): matplotlib wheels fetched in {len(mpl)} of {len(b_runs)} runs, the font list in {len(fonts)}"
        )
        twice = [
            (r.kind, s["path"])
            for r in b_runs + d_runs
            for s in r.served
            if s["status"] == 200 and sum(1 for x in r.served if x["path"] == s["path"] and x["status"] == 200) > 1
        ]
        if twice:
            paths = sorted({p for _, p in twice})
            notes.append(
                f"(b)/(d): downloaded twice in one cold run: {paths} ({len(twice) // 2} times over "
                f"{len(b_runs + d_runs)} runs); the second download starts once the worker is ready, i.e. it is the "
                "service worker's `keep` -> cache.add(); a cold context's in-memory HTTP cache does not keep a "
                "10 MB entry (a persistent profile's disk cache does: see (c), the first visit of one)"
            )
    if c_runs:
        gaps = [diff(r.mark("worker ready"), r.mark("click")) for r in c_runs]
        m = median_marks(c_runs)
        notes.append(
            f"(c): Pyodide ready {fmt_ms(median(gaps))} relative to the click (negative: before it; per run "
            f"{[round(g) if g is not None else None for g in gaps]}); click -> 'started' (package loading) "
            f"{span(m, 'worker started', 'click')}, 'started' -> output (the cell's Python) "
            f"{span(m, 'output', 'worker started')}"
        )
        state = c_runs[0].extra.get("service_worker")
        notes.append(f"after the first visit in a persistent profile, service worker: {state}")
    if d_runs and floors:
        d, fl = median_marks(d_runs), median_marks(floors)
        fetched = sum(1 for r in d_runs if any(s["path"].endswith(FONT_LIST) for s in r.served))
        probe = d_runs[-1].extra.get("probe") or {}
        notes.append(
            f"(d): {FONT_LIST} fetched in {fetched} of {len(d_runs)} runs; in the worker afterwards: "
            f"fontlist.json _version {probe.get('font_cache_version')}, FontManager.__version__ "
            f"{probe.get('font_manager_version')}, {probe.get('ttf_fonts')} ttf fonts, _course_prebuilt marker "
            f"{probe.get('prebuilt_marker')!r}; a rebuild of the font cache "
            f"costs {probe.get('font_cache_rebuild_ms')} ms warm (the matplotlib wheel's own fontlist.json has "
            "_version 390, so matplotlib rebuilds it on first import unless the site's list is written first)"
        )
        if probe.get("error"):
            notes.append(f"(d): worker probe failed: {probe['error']}")
        notes.append(
            f"(d) vs floor_d, medians: Python worker at {fmt_ms(d.get(COURSE))} vs "
            f"{fmt_ms(fl.get(BARE))}; ready (numpy only) "
            f"{fmt_ms(d.get('worker ready'))} vs floor's loadPyodide with numpy + matplotlib "
            f"{fmt_ms(fl.get(BOOTED))}; lesson: run sent -> 'started' "
            f"(matplotlib's 12 wheels fetched and installed only now) {span(d, 'worker started', RUN_SENT)}, "
            f"'started' -> figure {span(d, 'figure', 'worker started')}; floor: import numpy -> pyplot imported "
            f"{span(fl, 'received: matplotlib.pyplot imported', 'received: numpy imported')}, "
            f"-> figure PNG {span(fl, 'received: figure drawn to PNG', 'received: matplotlib.pyplot imported')}"
        )
        no_fonts = diagnostics.get("floor_d_without_font_list")
        if isinstance(no_fonts, Run) and not no_fonts.error:
            imported = "received: matplotlib.pyplot imported"
            notes.append(
                f"floor_d without the font list (1 run): numpy imported -> pyplot imported "
                f"{fmt_ms(diff(no_fonts.mark(imported), no_fonts.mark('received: numpy imported')))} "
                f"(with it, median: {span(fl, imported, 'received: numpy imported')}); "
                f"figure at {fmt_ms(no_fonts.mark('received: figure drawn to PNG'))}"
            )
        reruns = [r.done[1] for r in d_runs if len(r.done) > 1]
        if reruns:
            notes.append(
                f"(e): the worker reports {median([x['ms'] for x in reruns]):.0f} ms of Python for the re-run "
                f"(total {median([x['totalMs'] for x in reruns]):.0f} ms); the same steps timed in the worker: "
                f"{probe.get('heatmap_steps_ms')}"
            )
    if f_runs:
        controlled = sum(1 for r in f_runs if r.extra.get("controlled_at_dcl"))
        own = lambda r: [e for e in r.resources if e["where"] != "service worker"]  # noqa: E731
        via_sw = median([sum(1 for e in own(r) if served_via(e, r) == "service worker") for r in f_runs])
        cached = median([sum(1 for e in own(r) if served_via(e, r) == "cache") for r in f_runs])
        served = median([len(r.served) for r in f_runs])
        revalidated = median([sum(1 for s in r.served if s["status"] == 304) for r in f_runs])
        body = median([sum(s["body"] for s in r.served) for r in f_runs])
        notes.append(
            f"(f): page controlled by the service worker in {controlled} of {len(f_runs)} second visits; "
            f"median per visit: {via_sw:.0f} responses via the service worker, {cached:.0f} from the HTTP cache, "
            f"{served:.0f} requests reached the server ({revalidated:.0f} answered 304), {body / 1e6:.2f} MB of bodies"
        )
        m = median_marks(f_runs)
        b = median_marks(b_runs) if b_runs else {}
        notes.append(
            f"(f): click {fmt_ms(m.get('click'))}, worker created -> ready {span(m, 'worker ready', COURSE)} "
            f"(cold (b): {span(b, 'worker ready', COURSE)}), run sent -> output "
            f"{span(m, 'output', RUN_SENT)} (cold: {span(b, 'output', RUN_SENT)}): "
            "with every byte local, the wait is CPU: compiling the wasm, booting Python, "
            "loading numpy's shared libraries, importing"
        )

    def boot(label: str, visits: tuple[int, ...]) -> str:
        runs = [r for n in visits for r in diagnostics.get(f"{label}_visit_{n}", []) if not r.error]
        return fmt_ms(median([diff(r.mark(BOOTED), r.mark("received: worker running")) for r in runs]))

    def numpy_ready(visits: tuple[int, ...]) -> float | None:
        runs = [r for n in visits for r in diagnostics.get(f"a_visit_{n}", []) if not r.error]
        return median([r.mark("received: numpy imported") for r in runs])

    if diagnostics.get("a_visit_2"):
        first, later = numpy_ready((1,)), numpy_ready((2, 3))
        notes.append(
            f"(f)'s own floor: the bare page's later visits reach 'numpy imported' at {fmt_s(later)} from "
            f"navigation start against {fmt_s(first)} on its first visit, a ratio of {fmt_ratio(ratio(later, first))} "
            f"(the goal for (f)/(b) is {GOALS['f/b']})"
        )
        notes.append(
            "the floor's own repeat visits (fresh persistent profiles, HTTP disk cache, no service worker), "
            f"worker running -> Pyodide + numpy loaded, median: first visit {boot('a', (1,))}, later visits "
            f"{boot('a', (2, 3))} (V8 code caches for the wasm and pyodide.asm.js); loading Pyodide the way the "
            "site's worker once did (responses re-wrapped in a new Response to count bytes, pyodide.asm.js run from a "
            f"blob: URL): first visit {boot('a_site_style', (1,))}, later visits {boot('a_site_style', (2, 3))}"
        )
    outputs = {r["b"].outputs.get("output", {}).get("className") for r in rounds if "b" in r and not r["b"].error}
    if outputs:
        notes.append(f"first live output node in (b): {sorted(o for o in outputs if o)}")
    return notes


def _runs_to_json(value: object) -> object:
    if isinstance(value, Run):
        return value.summary()
    if isinstance(value, list):
        return [_runs_to_json(v) for v in value]
    return value


def _runs_from_json(value: object) -> object:
    if isinstance(value, dict) and "marks" in value and "kind" in value:
        return Run.from_summary(value)
    if isinstance(value, list):
        return [_runs_from_json(v) for v in value]
    return value


def _json_default(value: object) -> object:
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, Run):
        return value.summary()
    raise TypeError(type(value))


if __name__ == "__main__":
    sys.exit(main())
