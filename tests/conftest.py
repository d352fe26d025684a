"""Shared fixtures: the built site, a loopback server for it, a locked-down Chromium, and the cross-browser
tests' engines (Chromium, Firefox and WebKit).

Browser tests go through `open_page`, which blocks (and records) every request
that leaves 127.0.0.1; a test that caused one fails at teardown.
"""

from __future__ import annotations

import collections
import fcntl
import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlparse

import pytest

from course_site.execute import PageExecutor, RunSettings
from course_site.local_python import LocalPython
from course_site.worker_settings import OutputLimits

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_RECORD = ROOT / ".cache" / "chromium-path"
from chromium_flags import CHROMIUM_ARGS  # noqa: E402  (scripts/, shared with the benchmarks)
from course_python import course_options, stage_python  # noqa: E402  (likewise)

ENGINES = ("chromium", "firefox", "webkit")
"""The names of the cross-browser tests' engines (tests/browser/fixture/engines.py): the ``engine`` fixture's params."""

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}


BROWSER_TESTS = Path(__file__).parent / "browser"
EXPECT_TIMEOUT_MS = 60_000  # every Playwright `expect` without a timeout of its own
PLAYWRIGHT_MISSING = (
    "the browser tests need Playwright, which is not installed: run `make test` (it installs the dev "
    "extras), or `pip install -c requirements/constraints.txt -e '.[dev]'`, then `make browser` for Chromium"
)


def pytest_configure(config: pytest.Config) -> None:
    """Without Playwright the browser tests fail the run, saying how to install it (they never skip).

    (The ``browser`` fixture fails the same way when Chromium is missing.)
    """
    if importlib.util.find_spec("playwright") is not None:
        return
    paths = [Path(arg.split("::")[0]).resolve() for arg in config.args] or [ROOT / "tests"]
    if any(path == BROWSER_TESTS or BROWSER_TESTS in path.parents or path in BROWSER_TESTS.parents for path in paths):
        pytest.exit(PLAYWRIGHT_MISSING, returncode=pytest.ExitCode.USAGE_ERROR)


# Where pytest-xdist's workers (``--dist=loadfile``) take work: a module whole, its module fixtures made
# once, except the cross-browser module, whose engines are units of their own (one engine's tests never
# run beside each other, as before). The queue's order is the suite's, not xdist's (which sorts units by
# their number of tests): WebKit's unit, the longest, first, so that it never ends the run alone; its
# worker builds the site on the way. Meanwhile the other worker takes the modules that need no site
# (unit, lesson and build tests), then the other engines and the longest browser modules, then the rest.
SPLIT_MODULE = "tests/browser/test_engines.py"
ENGINE = re.compile(r"\[(" + "|".join(ENGINES) + r")\b")
LONG_MODULES = ("test_snapshot.py", "test_accessibility.py", "test_deploy.py", "test_phone_and_dark.py")
"""The browser modules that take longest (``--durations=0`` summed by module), queued right after the engines."""


def work_unit(nodeid: str) -> str:
    """The unit of work of the test ``nodeid``: its module, or its module and engine in the cross-browser module."""
    module = nodeid.split("::")[0]
    engine = ENGINE.search(nodeid) if module == SPLIT_MODULE else None
    return module if engine is None else f"{module}[{engine[1]}]"


def queue_place(unit: str, needs_site: bool) -> int:
    """Where ``unit`` goes in the workers' queue (lower first); ``needs_site``: a test of it uses the built site."""
    if unit == f"{SPLIT_MODULE}[webkit]":
        return 0
    if not needs_site:
        return 1
    if unit.startswith(SPLIT_MODULE):
        return 2
    return 3 if unit.rsplit("/", 1)[-1] in LONG_MODULES else 4


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    units = {item: work_unit(item.nodeid) for item in items}
    with_site = {unit for item, unit in units.items() if "built_site" in getattr(item, "fixturenames", ())}
    items.sort(key=lambda item: queue_place(units[item], units[item] in with_site))  # stable: a module's own order


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist=loadfile`` by `work_unit`, in the collection's order (xdist's own loadgroup names groups in
    node ids, which pytest 9 no longer lets a plugin change)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # the units in the order of pytest_collection_modifyitems

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByWorkUnit(config, log)


def build_site(dest: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run ``properdocs build --strict`` (the site's builder) into ``dest``; return the finished process."""
    return subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "--site-dir", str(dest), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def benchmarks_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks/`` on ``sys.path``, as its scripts run: its modules import as ``startup.…``, ``wasm_tiers``."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test session's that pytest-xdist's workers share (each has its own basetemp in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (a file), across the session's processes."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course site, built once per test session (by the first of pytest-xdist's workers to need it;
    the others wait for it and read it: no test writes into it)."""
    shared = shared_folder(tmp_path_factory)
    dest, built = shared / "course-site", shared / "course-site.built"
    with held_lock(shared / "course-site.lock"):
        if not built.exists():
            shutil.rmtree(dest, ignore_errors=True)
            done = build_site(dest)
            assert done.returncode == 0, f"the site build failed:\n{done.stdout}\n{done.stderr}"
            built.touch()
    return dest


class _Handler(SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
    }
    extra_headers: ClassVar[dict[str, str]] = {}

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if "/worker-settings.json" in self.path:
            PYTHON_BOOTS.add()
        REQUESTS.answered(self, code)

    def do_GET(self) -> None:
        REQUESTS.arrived(self)
        super().do_GET()

    def handle_one_request(self) -> None:
        # A browser that drops a connection (a page closed mid-download) is no error of the test's.
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _RequestJournal:
    """What this test process's loopback servers were asked, and what they answered: a failed test's
    report lists it, so that a page that waited for a file shows whether the request came, and how it ended."""

    KEPT = 150

    def __init__(self) -> None:
        self.answers: collections.deque[tuple[float, str]] = collections.deque(maxlen=self.KEPT)
        self.open: dict[int, tuple[float, str]] = {}  # handler id -> its request, not answered yet
        self._lock = threading.Lock()

    def arrived(self, handler: SimpleHTTPRequestHandler) -> None:
        with self._lock:
            self.open[id(handler)] = (time.time(), self._request(handler))

    def answered(self, handler: SimpleHTTPRequestHandler, code: int | str) -> None:
        with self._lock:
            self.open.pop(id(handler), None)
            self.answers.append((time.time(), f"{self._request(handler)} {code}"))

    def since(self, start: float) -> list[str]:
        """Answers since ``start`` (time.time()), then the requests not answered; each at its second from ``start``."""
        with self._lock:
            done = [f"{at - start:8.3f} {text}" for at, text in self.answers if at >= start]
            waiting = [f"{at - start:8.3f} {text} (no answer yet)" for at, text in self.open.values()]
        return done + waiting

    @staticmethod
    def _request(handler: SimpleHTTPRequestHandler) -> str:
        return f":{handler.server.server_address[1]} {handler.command} {handler.path}"


REQUESTS = _RequestJournal()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when in ("setup", "call"):
        lines = REQUESTS.since(call.start)
        title = f"requests to loopback servers during {call.when} (seconds from its start, port, request, status)"
        report.sections.append((title, "\n".join(lines) or "(none)"))


class _Counter:
    """A count that the servers' threads add to."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.value += 1


PYTHON_BOOTS = _Counter()
"""Python workers started against this process's loopback servers: each one's boot reads
worker-settings.json, which it always revalidates, so every boot reaches the server once."""
BOOTS_BY_TEST: dict[str, int] = {}


@pytest.fixture(autouse=True)
def _count_python_boots(request: pytest.FixtureRequest) -> Iterator[None]:
    """How many Python workers each test started (the fixtures it set up first included)."""
    before = PYTHON_BOOTS.value
    yield
    request.node.user_properties.append(("python_boots", PYTHON_BOOTS.value - before))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Reports reach the main process from pytest-xdist's workers with their user properties.
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "python_boots":
                BOOTS_BY_TEST[report.nodeid] = value


def pytest_terminal_summary(terminalreporter) -> None:
    booting = {test: n for test, n in BOOTS_BY_TEST.items() if n}
    if not booting:
        return
    terminalreporter.section("Python boots per test")
    terminalreporter.write_line(
        f"{sum(booting.values())} Python boots in {len(booting)} of {len(BOOTS_BY_TEST)} tests; the most:"
    )
    for test, n in sorted(booting.items(), key=lambda item: -item[1])[:15]:
        terminalreporter.write_line(f"{n:4d}  {test}")


@pytest.fixture(scope="session")
def serve():
    """Start a loopback server for a folder; returns its base URL. Stopped at session end."""
    servers: list[ThreadingHTTPServer] = []

    def start(folder: Path, headers: dict[str, str] | None = None) -> str:
        server = start_server(folder, headers)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()


class _Server(ThreadingHTTPServer):
    """socketserver listens with a backlog of 5 connections; a page that boots Python opens more at once
    (Pyodide's files, the wheels, the service worker's offline list), as a host's server takes them."""

    request_queue_size = 128


def start_server(folder: Path, headers: dict[str, str] | None = None) -> ThreadingHTTPServer:
    """A loopback server for ``folder``, serving in a thread of its own."""
    handler = type("Handler", (_Handler,), {"extra_headers": headers or {}})
    server = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def server_that_goes():
    """``start(folder)``: a loopback server's base URL and ``gone()``, which stops it and closes its port.

    After ``gone()`` every request to it is refused, as when a learner's network is down.
    """
    servers: list[ThreadingHTTPServer] = []

    def start(folder: Path) -> tuple[str, Callable[[], None]]:
        server = start_server(folder)
        servers.append(server)

        def gone() -> None:
            server.shutdown()
            server.server_close()

        return f"http://127.0.0.1:{server.server_address[1]}/", gone

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def site_server(built_site: Path, serve) -> str:
    """Base URL of the built site, as a static host such as GitHub Pages serves it."""
    return serve(built_site)


@pytest.fixture(scope="session")
def isolated_site_server(built_site: Path, serve) -> str:
    """Base URL of the built site served cross-origin isolated (COOP/COEP)."""
    return serve(built_site, ISOLATION_HEADERS)


def chromium_path() -> str:
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    if CHROMIUM_RECORD.exists():
        return CHROMIUM_RECORD.read_text().strip()
    return "/usr/bin/chromium"


@pytest.fixture(scope="session")
def chromium_options() -> dict:
    """How the tests launch Chromium (``launch`` or ``launch_persistent_context`` keyword arguments)."""
    return {"executable_path": chromium_path(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (Debian's, or the one `make browser` chose)."""
    from playwright.sync_api import expect, sync_playwright

    # Playwright's `expect` gives up after 5 s by default; after Python work on a loaded 2-core machine
    # a state can take longer to come. A deadline, not a pace: a passing expect returns at once.
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    executable = chromium_path()
    if not Path(executable).exists():
        pytest.fail(f"no Chromium at {executable}: run `make browser` (it installs one and says which)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser) -> Iterator:
    """Open a URL in a fresh context; every request leaving 127.0.0.1 is blocked and fails the test."""
    contexts, external = [], []

    def block_external(route) -> None:
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            external.append(route.request.url)
            route.abort()

    def open_(url: str, **context_options):
        context = browser.new_context(**context_options)
        context.route("**/*", block_external)
        contexts.append(context)
        page = context.new_page()
        page.goto(url)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not external, f"requests left 127.0.0.1: {external}"


# -- the cross-browser tests (tests/browser: test_engines.py, test_language.py), through fixture/engines.py:
# ``engine`` (parametrized by ``ENGINES``, all three unless a module narrows it with
# ``pytest.mark.parametrize("engine", [...], indirect=True)``), its browser ``process`` for the module, and
# a fresh ``tab`` per test. engines.py needs Playwright: ``engine`` imports it, so that without Playwright
# this file still loads and `pytest_configure` says how to install it.


@pytest.fixture(scope="module", params=ENGINES)
def engine(request, browser, chromium_options, tmp_path_factory):
    """The engine under test (an engines.py engine), its tools checked (``make browser`` installs them)."""
    import engines

    name = request.param
    if name in (missing := engines.missing_tools()):
        pytest.fail(f"{name}: no {missing[name]}: run `make browser` (it installs them and says which)")
    if name == "chromium":
        yield engines.Chromium(browser, chromium_options)
        return
    proxy = engines.RecordingProxy()
    display = engines.Display()
    try:
        if name == "firefox":
            yield engines.Firefox(proxy, tmp_path_factory.mktemp("firefox"))
        else:
            yield engines.WebKit(proxy, display)
    finally:
        display.close()
        proxy.close()


@pytest.fixture(scope="module")
def process(engine):
    """The module's browser process of ``engine`` (None for WebKit, which gets one per test)."""
    if engine.name == "webkit":
        yield None
        return
    launched = engine.launch()
    yield launched
    launched.close()


@pytest.fixture
def tab(engine, process):
    """A fresh tab (empty storage); the test fails if a request left 127.0.0.1."""
    owner = process or engine.launch()
    opened = owner.tab()
    try:
        yield opened
    finally:
        owner.close_tab(opened)
        external = owner.take_external()
        if process is None:
            owner.close()
    assert not external, f"requests left 127.0.0.1: {external}"


# -- build-time runs (tests/site): one build cache for the session, the site's Python staged for Node.
# Build-time outputs are cached by content, never by where a project lives, so the many small
# projects the site tests build share one cache: a cell that one test ran is not run again by another.

HINT = "module {name!r} is not available"
LIMITS = OutputLimits(lines=2000, chars=200_000)


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``cache_dir`` of every project the session builds."""
    return tmp_path_factory.mktemp("course-cache")


@pytest.fixture(scope="session")
def local_python(build_cache: Path) -> LocalPython:
    """The course's Python as the site ships it (Pyodide, lock, posenc wheel), staged for Node."""
    return stage_python(build_cache)


@pytest.fixture
def make_executor(local_python: LocalPython, tmp_path: Path):
    """A `PageExecutor` with its own cache (``tmp_path``): ``make_executor(timeout=..., limits=..., python=...)``."""

    def make(timeout: int = 120, limits: OutputLimits = LIMITS, python: LocalPython = local_python) -> PageExecutor:
        settings = RunSettings([], course_options().import_packages, HINT, limits)
        return PageExecutor(tmp_path, python, settings, timeout)

    return make


@pytest.fixture(scope="session")
def node_tests():
    """``check(name)``: run ``tests/js/<name>.test.mjs`` (a page-side module's tests) under Node's test runner."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")

    def check(name: str) -> None:
        done = subprocess.run(
            [node, "--test", f"tests/js/{name}.test.mjs"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.search(r"^# pass [1-9]", done.stdout, re.MULTILINE), done.stdout
        assert re.search(r"^# fail 0$", done.stdout, re.MULTILINE), done.stdout

    return check
