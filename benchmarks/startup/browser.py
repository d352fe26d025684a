"""The browser driver: headless Chromium, one run per page load, timed in the page."""

from __future__ import annotations

import functools
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from . import site_layout as layout
from .built_site import ROOT, SiteInfo
from .server import SiteServer

sys.path.insert(0, str(ROOT / "scripts"))
from chromium_flags import CHROMIUM_ARGS as TEST_ARGS
from chromium_flags import DEAD_PROXY

CHROMIUM_ARGS = [*TEST_ARGS, DEAD_PROXY]
RUN_TIMEOUT_S = 180  # one cold load on a busy 2-core machine, with matplotlib

IN_PAGE_JS = Path(__file__).with_name("in_page.js").read_text()
WORKER_PROBE_PY = Path(__file__).with_name("worker_probe.py").read_text()
STATE = layout.CELL_MARKUP["stateAttribute"]
THROTTLED = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}
"""``--net throttled``: DevTools' network emulation, 20 Mbit/s each way and 40 ms RTT (it reaches the worker)."""
MOBILE = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 0.75e6 / 8}
"""``--net mobile``: a slow mobile link, 1.6 Mbit/s down, 0.75 Mbit/s up, 150 ms RTT (DevTools' "Slow 4G")."""
NETWORKS = {"loopback": None, "throttled": THROTTLED, "mobile": MOBILE}
"""``--net``'s profiles: DevTools' network conditions, or None for none."""
SNAPSHOT_KEPT = """async () => {
    try {
        const root = await navigator.storage.getDirectory();
        const directory = await root.getDirectoryHandle("course-snapshots");
        for await (const name of directory.keys()) if (name.endsWith(".bin")) return true;
    } catch (err) { /* no snapshot yet */ }
    return false;
}"""
"""A condition: the site's worker has kept its snapshot (worker/snapshot.js), for the next visit."""


def keep_boot_line(lines: list[str], message) -> None:
    """Keep the worker's console line saying how Python started."""
    if message.text.startswith("course: Python"):
        lines.append(message.text)


def in_page_script(configs: list[dict]) -> str:
    """The init script (in_page.js) for a tab whose visits follow ``configs``."""
    markup = json.dumps(layout.CELL_MARKUP)
    return IN_PAGE_JS.replace("__CONFIGS__", json.dumps(configs)).replace("__MARKUP__", markup)


def finished_js(cell: str) -> str:
    """A condition: the cell's run is over."""
    return f"() => /^(done|error|stopped)$/.test(document.querySelector('{cell}')?.getAttribute('{STATE}'))"


RESOURCES_JS = """() => ({
  origin: performance.timeOrigin,
  entries: performance.getEntriesByType("resource").map((e) => ({
    name: e.name, initiator: e.initiatorType, start: e.startTime, responseStart: e.responseStart,
    end: e.responseEnd, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
    delivery: e.deliveryType || "", workerStart: e.workerStart,
  })),
})"""


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
        """When this mark was reached, in ms from navigation start (None if it was not)."""
        return self.marks.get(name)

    def summary(self) -> dict:
        """This run as JSON data (``from_summary`` reads it back)."""
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


class Driver:
    """Headless Chromium on the served site: each method is one kind of run (see scenarios.py)."""

    def __init__(
        self,
        browser_type,
        chromium: str,
        server: SiteServer,
        info: SiteInfo,
        read_s: float,
        network: dict | None = None,
        settle_s: float = 0.0,
    ) -> None:
        self.browser_type = browser_type
        self.network = network  # NETWORKS' conditions, or None
        self.chromium = chromium
        self.server = server
        self.info = info
        self.read_s = read_s
        self.settle_s = settle_s  # (f): the new browser process starts this long before the lesson is opened
        self.leaks: list[str] = []
        self.page_errors: list[str] = []
        self.browser = browser_type.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)

    def close(self) -> None:
        self.browser.close()

    # -- plumbing

    def guard(self, context, kind: str) -> None:
        """Record every request of ``context`` that leaves 127.0.0.1."""

        def check(request) -> None:
            url = request.url
            if url.startswith(("data:", "blob:", "about:")):
                return
            if urlsplit(url).hostname != "127.0.0.1":
                self.leaks.append(f"{kind}: request left 127.0.0.1: {url}")

        context.on("request", check)

    def watch_page(self, page, kind: str) -> None:
        """Record the page's uncaught errors and console errors; throttle its network if asked."""
        if self.network:
            page.context.new_cdp_session(page).send("Network.emulateNetworkConditions", self.network)
        page.on("pageerror", lambda error: self.page_errors.append(f"{kind}: {error}"))
        page.on("console", lambda msg: msg.type == "error" and self.page_errors.append(f"{kind}: console: {msg.text}"))

    def lesson_url(self) -> str:
        return self.server.base_url + layout.LESSON

    def collect(self, page, run: Run, context) -> None:
        """Copy the in-page marks and the resource timings into ``run``."""
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
        """Until ``condition`` (a synchronous function: wait_for_function takes a Promise as truthy) holds."""
        page.wait_for_function(condition, polling=200, timeout=timeout_s * 1000)

    def wait_async(self, page, condition: str, timeout_s: float = RUN_TIMEOUT_S) -> None:
        """Until the async ``condition`` resolves to something truthy (``page.evaluate`` awaits it)."""
        deadline = time.monotonic() + timeout_s
        while not page.evaluate(condition):
            if time.monotonic() > deadline:
                raise TimeoutError(f"not true after {timeout_s:.0f} s: {condition[:60]}")
            page.wait_for_timeout(250)

    def cold_run(self, run: Run, configs: list[dict], steps: Callable[[Any, Any], None]) -> Run:
        """``run``: ``steps(page, context)`` in a new browser context; an error ends the run and is kept in it."""
        self.server.take_log()
        context = self.browser.new_context()
        try:
            self.guard(context, run.kind)
            context.add_init_script(in_page_script(configs))
            page = context.new_page()
            self.watch_page(page, run.kind)
            steps(page, context)
        except Exception as exc:
            run.error = f"{type(exc).__name__}: {exc}"
        finally:
            context.close()
            run.served = self.server.take_log()
        return run

    @contextmanager
    def persistent_context(self, profile: str | None = None) -> Iterator[Any]:
        """A browser process with a profile on disk (HTTP disk cache, service workers, Cache Storage):
        ``profile``, or a new one removed after."""
        with tempfile.TemporaryDirectory(prefix="bench-profile-") as fresh:
            context = self.browser_type.launch_persistent_context(
                profile or fresh, executable_path=self.chromium, headless=True, args=CHROMIUM_ARGS
            )
            try:
                yield context
            finally:
                context.close()

    def collect_bare(self, page, run: Run, context) -> None:
        """Wait until the floor's page is done; copy its marks (and those of its worker) into ``run``."""
        self.wait(page, "() => window.__bare && (window.__bare.done || window.__bare.error)")
        bare = page.evaluate("() => window.__bare")
        run.error = run.error or bare["error"]
        self.collect(page, run, context)
        run.marks.update({f"received: {k}": v for k, v in bare["received"].items()})

    # -- runs

    def bare(self, mode: str, font_list: bool = True) -> Run:
        """The floor (bare.html) in a new context: (a) with ``mode="numpy"``, floor_d with ``"matplotlib"``."""
        run = Run(f"bare-{mode}" + ("" if font_list else "-no-font-list"))

        def steps(page, context) -> None:
            page.goto(self.info.bare_url(self.server.base_url, mode, font_list), wait_until="commit")
            self.collect_bare(page, run, context)

        return self.cold_run(run, [{}], steps)

    def lesson_cold(self, cell: str, figure: bool, rerun: bool) -> Run:
        """The lesson in a new context, Run on ``cell`` at load: (b), or (d) and then (e) with ``rerun``."""
        run = Run(f"lesson-{cell.lstrip('#')}")
        target = "figure" if figure else "output"

        def steps(page, context) -> None:
            page.goto(self.lesson_url(), wait_until="commit")
            self.wait(page, f"() => window.__bench && '{target}' in window.__bench.marks")
            self.wait(page, finished_js(cell))
            run.extra["state"] = page.get_attribute(cell, STATE)
            run.extra["status"] = page.inner_text(f"{cell} {layout.CELL_MARKUP['status']}")
            if rerun:
                self.rerun(page, cell)
            self.collect(page, run, context)
            if figure:
                run.extra["probe"] = probe_worker(page)

        return self.cold_run(run, [{"cell": cell, "figure": figure, "click": "load"}], steps)

    def rerun(self, page, cell: str) -> None:
        """(e): Run on ``cell`` again, once it is done; wait for the new figure and the end of the run."""
        page.evaluate(
            """(cell) => {
                window.__bench.watch(cell, "rerun output");
                window.__bench.watch(cell, "rerun figure", true);
                window.__bench.click(cell, "rerun click");
            }""",
            cell,
        )
        self.wait(page, "() => 'rerun figure' in window.__bench.marks", 60)
        self.wait(page, f"() => document.querySelector('{cell}').getAttribute('{STATE}') !== 'running'", 60)

    def warm_profile(self) -> tuple[Run, Run]:
        """(c) then (f): one profile on disk; (f) is a later visit in a new browser process on it,
        once the first visit's worker has kept its snapshot, ``settle_s`` after that process started."""
        first, second = Run("lesson-read-then-run"), Run("lesson-reopened")
        configs = [
            {"cell": layout.TEXT_CELL, "click": round(self.read_s * 1000)},
            {"cell": layout.TEXT_CELL, "click": "load"},
        ]
        with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
            for n, run in enumerate((first, second)):
                self.server.take_log()
                with self.persistent_context(profile) as context:
                    self.guard(context, "warm profile")
                    context.add_init_script(in_page_script(configs[n:]))
                    page = context.pages[0] if context.pages else context.new_page()
                    self.watch_page(page, "warm profile")
                    boots: list[str] = []  # the worker's "course: Python restored …" or "… booted normally (why)"
                    page.on("console", functools.partial(keep_boot_line, boots))
                    try:
                        if run is second and self.settle_s:
                            page.wait_for_timeout(self.settle_s * 1000)
                        page.goto(self.lesson_url(), wait_until="commit")
                        self.wait(page, "() => window.__bench && 'output' in window.__bench.marks")
                        self.wait(page, finished_js(layout.TEXT_CELL))
                        if run is first:
                            run.extra["service_worker"] = settle_service_worker(page)
                            self.wait_async(page, SNAPSHOT_KEPT, 120)
                        run.extra["state"] = page.get_attribute(layout.TEXT_CELL, STATE)
                        run.extra["python_boot"] = boots
                        self.collect(page, run, context)
                    except Exception as exc:
                        run.error = f"{type(exc).__name__}: {exc}"
                    finally:
                        run.served = self.server.take_log()
                if run.error:
                    second.error = second.error or "first visit failed"
                    break
        return first, second

    def bare_warm(self, site_style: bool = False, visits: int = 3) -> list[Run]:
        """The floor's own warm visits: (a) again and again in one fresh persistent profile.

        HTTP cache, no service worker.  ``site_style``: Pyodide loaded the way the site's worker once did.
        """
        kind = "bare-numpy-site-style" if site_style else "bare-numpy"
        runs = [Run(f"{kind}-visit-{n}") for n in range(1, visits + 1)]
        with self.persistent_context() as context:
            self.guard(context, "bare warm profile")
            context.add_init_script(in_page_script([{}]))
            page = context.pages[0] if context.pages else context.new_page()
            for run in runs:
                page.goto(self.info.bare_url(self.server.base_url, "numpy", site_style=site_style), wait_until="commit")
                self.collect_bare(page, run, context)
                run.served = self.server.take_log()
        return runs

    def sizes_check(self, cell: str) -> dict:
        """Chromium's own count (request.sizes()) for one cold run, to check the server's."""
        context = self.browser.new_context()
        finished: list = []
        try:
            context.on("requestfinished", lambda request: finished.append(request))
            context.add_init_script(in_page_script([{"cell": cell, "figure": True, "click": "load"}]))
            page = context.new_page()
            page.goto(self.lesson_url(), wait_until="commit")
            self.wait(page, finished_js(cell))
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


# Runs worker_probe.py in the Python worker, in a fresh namespace: `pyodide` is the
# worker script's top-level binding.
WORKER_PROBE_JS = """(source) => {
  if (typeof pyodide === "undefined" || !pyodide) return { error: "no pyodide binding in the worker" };
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(source, { globals: namespace });
  return JSON.parse(namespace.get("probe")());
}"""


def probe_worker(page) -> dict:
    """Ask the lesson's Python worker about matplotlib's font cache and the heatmap's steps (worker_probe.py)."""
    workers = [w for w in page.workers if any(script in w.url for script in layout.PYTHON_WORKER_SCRIPTS)]
    if not workers:
        return {"error": f"no course worker among {[w.url for w in page.workers]}"}
    try:
        return workers[0].evaluate(WORKER_PROBE_JS, WORKER_PROBE_PY)
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


def find_chromium() -> str:
    """The Chromium that ``make browser`` recorded, else one on the PATH."""
    recorded = ROOT / ".cache" / "chromium-path"
    for candidate in (recorded.read_text().strip() if recorded.exists() else "", "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not found:
        sys.exit("no Chromium: run `make browser`")
    return found
