"""Later visits restore Python from a snapshot made in this browser; every way that fails boots normally.

Each visit is a browser profile on disk (``launch_persistent_context``), so a "later visit"
is a new browser process on the same profile, as a learner returning the next day. The worker
says how Python started on the console ("course: Python restored …", "course: Python booted
normally (<why>)", "course: snapshot kept …", "course: no snapshot kept (<why>)").

What is simulated, and how:
- corrupt snapshot, snapshot of another build, corrupt or outdated package files: the page
  overwrites the kept file in the origin private file system (one byte of the snapshot
  changed; a record naming another BUILD_ID; garbage in the package files; a record naming
  another sha256 for posenc's wheel), as a disk error, an older build or a new posenc would
  leave it. The other byte-level damage (garbage, a truncated file, a torn record) is read by
  the same ``snapshot.js`` functions, and ``tests/js/snapshot.test.mjs`` proves each refusal;
- storage full: DevTools' ``Storage.overrideQuotaForOrigin`` gives the origin a 1 MB quota,
  so writing the file throws QuotaExceededError (a denied storage takes the same path: any
  error while opening or writing it is caught, and what was written is deleted);
- private API missing: the test's router serves ``pyodide.asm.js``/``pyodide.js`` with
  ``makeMemorySnapshot`` / ``_loadSnapshot`` renamed, as a Pyodide without them would be.
  Only the test changes these bytes; the site ships the verified files.
- a browser without the origin private file system or its synchronous access handles, where
  the file is held by another tab's worker, or where the snapshot reader's script throws as it
  loads, never answers or never sends its compiled libraries: the test's router puts a prelude
  before each of the Python's workers' scripts (``js/worker/``) that deletes the feature, makes it
  fail, or gives the reader a script of the test's (init scripts reach only the page, not its
  workers); the service worker is kept out, so that every worker script passes the router.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from page_fixture import LESSON, LOAD_TIMEOUT_MS, check_cells_run_like_at_build_time, run
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium(browser, chromium_options):
    """A new browser process for each visit: the session's browser type and the suite's launch options."""
    return browser.browser_type, chromium_options


@pytest.fixture(scope="module")
def kept_profile(chromium, site_server, tmp_path_factory) -> tuple[Path, int]:
    """A profile after one first visit of the lesson (a normal boot, then a snapshot kept), and the
    snapshot's size: made once for the module, copied by each test that starts from it."""
    profile = tmp_path_factory.mktemp("kept") / "profile"
    return profile, first_visit(chromium, site_server + LESSON, profile)


@pytest.fixture
def visited(kept_profile, tmp_path) -> Path:
    """A copy of ``kept_profile``'s profile, this test's own: as a learner's browser after a first visit."""
    profile = tmp_path / "profile"
    shutil.copytree(kept_profile[0], profile, symlinks=True)
    return profile


RESTORED = "course: Python restored from this browser's snapshot"
FROM_KEPT_FILES = re.compile(r"course: (.*) installed from the files kept with the snapshot \((\d+) shared libraries")
PACKAGE_FILES_CORRUPT = re.compile(r"course: kept package files not used \(corrupt: (.*)\)")
KEPT = re.compile(r"course: snapshot kept for the next visit \((\d+) bytes\)")
NORMAL = re.compile(r"course: Python booted normally \((.*)\)")
NOT_KEPT = re.compile(r"course: no snapshot kept \((.*)\)")
MAKING = "course: making a snapshot for the next visit"

REWRITE = """async (kind) => {
    const root = await navigator.storage.getDirectory();
    const directory = await root.getDirectoryHandle("course-snapshots");
    const names = [];
    for await (const name of directory.keys()) names.push(name);
    if (names.length !== 1) throw new Error(`expected one snapshot file, found ${names}`);
    const handle = await directory.getFileHandle(names[0]);
    const file = new Uint8Array(await (await handle.getFile()).arrayBuffer());
    const recordLength = new DataView(file.buffer).getUint32(file.length - 8, true);
    const payloadLength = file.length - 8 - recordLength;
    let bytes = file.slice(0, payloadLength);
    const record = JSON.parse(new TextDecoder().decode(file.slice(payloadLength, file.length - 8)));
    const garbage = (_, i) => (i * 7919) & 255;
    if (kind === "flipped byte") bytes[record.bytes >> 1] ^= 1;
    else if (kind === "package files") bytes.set(bytes.subarray(record.bytes).map(garbage), record.bytes);
    else if (kind === "numpy's files mixed up") {
        const files = record.packages.wheels.find((wheel) => wheel.file_name.includes("numpy")).files;
        const init = files.find(([path]) => path.endsWith("/numpy/__init__.py"));
        const core = files.find(([path]) => path.includes("/numpy/_core/_multiarray_umath."));
        [init[1], core[1]] = [core[1], init[1]];
    }
    else if (kind === "new posenc") {
        record.packages.wheels.find((wheel) => wheel.file_name.includes("posenc")).sha256 = "0".repeat(64);
    }
    else record.build_id = "0".repeat(64);
    const recordText = new TextEncoder().encode(JSON.stringify(record));
    const trailer = new DataView(new ArrayBuffer(8));
    trailer.setUint32(0, recordText.length, true);
    trailer.setUint32(4, 0x31736373, true);
    const parts = [bytes, recordText, trailer];
    const writable = await handle.createWritable();
    await writable.write(new Blob(parts));
    await writable.close();
}"""
"""Rewrite the kept snapshot file (worker/snapshot.js: the snapshot, the package files, their
record, the record's length and a magic number) as a disk error or an older build would leave it."""


DROP_KEPT_COPIES = """async (prefix) => {
    for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
            if (request.url.split("/").pop().startsWith(prefix)) await cache.delete(request);
        }
    }
}"""
"""Delete the offline copies of the files whose name starts with ``prefix``."""


Patch = tuple[str, str, str]  # a Pyodide file's name, a text in it, its replacement


def matches(line: str, pattern: re.Pattern[str] | str) -> re.Match[str] | str | None:
    """The match of ``pattern`` (a pattern searched, or a whole line) in ``line``, or None."""
    return pattern.search(line) if isinstance(pattern, re.Pattern) else (pattern if line == pattern else None)


class Visit:
    """One page of a browser process on a profile; ``lines`` is what the worker said on the console,
    ``requested`` the URLs the page and its workers asked for."""

    def __init__(self, page, requested: list[str]) -> None:
        self.page = page
        self.lines: list[str] = []
        self.requested = requested

    def said(self, pattern: re.Pattern[str] | str) -> re.Match[str] | str | None:
        for line in self.lines:
            if found := matches(line, pattern):
                return found
        return None

    def wait_for(self, pattern: re.Pattern[str] | str) -> re.Match[str] | str:
        """What the worker said that matches ``pattern``: already, or in the console message to come that does."""
        if found := self.said(pattern):
            return found
        try:
            message = self.page.wait_for_event(
                "console", lambda message: matches(message.text, pattern) is not None, timeout=LOAD_TIMEOUT_MS
            )
        except PlaywrightTimeout:
            said = "\n".join(self.lines)
            raise AssertionError(f"the worker never said {pattern!r}; it said:\n{said}") from None
        return matches(message.text, pattern)

    def print_of(self, cell: str, code: str) -> str:
        run(self.page, cell, code)
        return self.page.locator(f"{cell} .course-out").first.text_content().strip()


@contextmanager
def visit(
    chromium,
    url: str,
    profile: Path,
    *,
    patch: Patch | None = None,
    quota: int = 0,
    missing: str = "",
    prelude: str = "",
    ready: bool = True,
) -> Iterator[Visit]:
    """Open ``url`` in a new browser process on ``profile``; only loopback is reachable.

    chromium: (browser type, launch options), the ``chromium`` fixture.

    patch: (file name, text, replacement) applied to that Pyodide file as served. Only Pyodide's files
      (versioned: always from the network) are patched so: the runner's scripts may come from the
      service worker's copies, and Chromium does not route a worker's worker's requests (the snapshot's
      workers), so a failing snapshot reader is made by a ``prelude`` instead (``in_the_reader``).
    quota: bytes of storage the origin may use (0: the browser's default).
    missing: files whose name starts with this are answered 404 (none if empty); the HTTP
      cache is cleared first (DevTools' ``Network.clearBrowserCache``), or it would answer.
    prelude: JavaScript put before each worker script (``/worker/…js``); no service worker then: the
      profile's registration is deleted first (DevTools' ``Storage.clearDataForOrigin``) and no new one
      is made, or the service worker would serve the scripts from its copies, past this router.
    ready: wait until cell 1 says Python is ready (else only until the page has loaded).
    """
    browser_type, options = chromium
    if prelude:
        options = {**options, "service_workers": "block"}
    context = browser_type.launch_persistent_context(str(profile), **options)
    external: list[str] = []
    requested: list[str] = []

    def guard(route) -> None:
        request_url = route.request.url
        requested.append(request_url)
        if urlparse(request_url).hostname != "127.0.0.1" and not request_url.startswith(("data:", "blob:")):
            external.append(request_url)
            route.abort()
        elif missing and request_url.rsplit("/", 1)[-1].startswith(missing):
            route.fulfill(status=404, body="not here")
        elif prelude and WORKER_SCRIPT.search(urlparse(request_url).path):
            response = route.fetch()
            route.fulfill(response=response, body=prelude + "\n" + response.text())
        elif patch and request_url.endswith("/" + patch[0]):
            response = route.fetch()
            text = response.text()
            assert patch[1] in text, f"{patch[0]} has no {patch[1]!r} to patch"
            route.fulfill(response=response, body=text.replace(patch[1], patch[2]))
        else:
            route.continue_()

    try:
        context.route("**/*", guard)
        page = context.pages[0] if context.pages else context.new_page()
        current = Visit(page, requested)
        page.on("console", lambda message: current.lines.append(message.text))
        if missing:
            context.new_cdp_session(page).send("Network.clearBrowserCache")
        origin = site_root(url).rstrip("/")
        if prelude:  # a service worker the profile registered before would still serve the worker's scripts
            context.new_cdp_session(page).send(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "service_workers"}
            )
        if quota:
            context.new_cdp_session(page).send("Storage.overrideQuotaForOrigin", {"origin": origin, "quotaSize": quota})
        page.goto(url)
        if ready:
            status = page.locator("#cell-1 .course-cell__status")
            expect(status).to_have_text("Python is ready", timeout=LOAD_TIMEOUT_MS)
        yield current
    finally:
        context.close()
    assert not external, f"requests left 127.0.0.1: {external}"


def site_root(url: str) -> str:
    """The site's root URL, with its trailing slash, from a lesson's ``url``."""
    return url.split("lessons/")[0]


WORKER_SCRIPT = re.compile(r"/worker/[^/]+\.js$")
NO_OPFS = "delete StorageManager.prototype.getDirectory;"
NO_SYNC_ACCESS_HANDLES = (
    "delete FileSystemFileHandle.prototype.createSyncAccessHandle; delete self.FileSystemSyncAccessHandle;"
)


def in_the_reader(prelude: str) -> str:
    """A prelude for the Python worker that starts its snapshot reader (snapshot_reader.js, a module worker)
    with ``prelude`` before it: Chromium does not route a worker's worker's requests, so the router cannot
    put it there itself. The reader's own module is then imported, from its own URL."""
    return f"""if (!self.courseReaderPrelude) {{
    self.courseReaderPrelude = true;
    const Real = self.Worker;
    self.Worker = class extends Real {{
        constructor(url, options) {{
            const href = new URL(String(url), self.location.href).href;
            if (!href.endsWith("/snapshot_reader.js")) {{
                super(url, options);
                return;
            }}
            const source = {json.dumps(prelude)} + "\\nawait import(" + JSON.stringify(href) + ");";
            super(URL.createObjectURL(new Blob([source], {{ type: "text/javascript" }})), options);
        }}
    }};
}}"""


HELD = """FileSystemFileHandle.prototype.createSyncAccessHandle = function () {
    return Promise.reject(new DOMException("held by another tab", "NoModificationAllowedError"));
};"""


def first_visit(chromium, url: str, profile: Path) -> int:
    """A first visit on a new profile: a normal boot, then a snapshot kept; returns its size."""
    with visit(chromium, url, profile) as first:
        assert first.wait_for(NORMAL)[1] == "no snapshot"
        return int(first.wait_for(KEPT)[1])


def rewritten(chromium, url: str, profile: Path, kind: str) -> None:
    """On ``profile``, where a first visit kept a snapshot, rewrite the kept file as ``kind`` (REWRITE), from a
    page of the site that boots no Python (no worker holds the file then)."""
    with visit(chromium, site_root(url) + QUIET_PAGE, profile, ready=False) as quiet:
        quiet.page.evaluate(REWRITE, kind)


QUIET_PAGE = "assets/course/worker-settings.json"
"""A page of the site's origin that starts no Python: its storage and caches, with nothing holding them."""


PROBE = "import os, random, sys; print(random.random(), sys.flags.hash_randomization, os.environ['MPLBACKEND'])"


def test_a_new_browser_process_restores_the_snapshot_and_random_is_fresh(chromium, site_server, kept_profile, visited):
    url = site_server + LESSON
    assert kept_profile[1] > 10_000_000  # the bare interpreter's heap
    printed = []
    for _ in range(2):
        with visit(chromium, url, visited) as later:
            later.wait_for(RESTORED)
            printed.append(later.print_of("#cell-1", PROBE).split())
            assert not later.said(KEPT)  # a restored boot does not make another
    (first_random, *rest), (second_random, *rest_again) = printed
    assert first_random != second_random  # reseeded at each restore
    assert rest == rest_again == ["1", "agg"]


SITE_PACKAGES_PROBE = """
import hashlib, importlib.metadata, pathlib, site
site_packages = pathlib.Path(site.getsitepackages()[0])
digest = hashlib.sha256()
files = sorted(p for p in site_packages.rglob("*") if p.is_file())
for path in files:
    digest.update(str(path).encode() + b"\\0" + path.read_bytes())
installer = (site_packages / "numpy-2.0.2.dist-info" / "INSTALLER").read_text()
import numpy, posenc
print(len(files), digest.hexdigest(), importlib.metadata.version("numpy"), installer, numpy.ones(3).sum())
"""
"""What the preloaded packages put in site-packages (every file's path and bytes), and that they import."""

WHEEL = re.compile(r"/(numpy|posenc)-[^/]*\.whl$")

SHARED_LIBRARIES_PROBE = """
import pathlib, site
print(len(list(pathlib.Path(site.getsitepackages()[0], "numpy").rglob("*.so"))))
"""


def test_a_restore_installs_the_preloaded_packages_from_the_files_kept_with_it(chromium, site_server, tmp_path):
    """Byte for byte the files that unpacking numpy's and posenc's wheels wrote on the first visit."""
    url = site_server + LESSON
    with visit(chromium, url, tmp_path) as first:
        unpacked = first.print_of("#cell-1", SITE_PACKAGES_PROBE)
        first.wait_for(KEPT)
        assert any(WHEEL.search(request) for request in first.requested)
    with visit(chromium, url, tmp_path) as later:
        later.wait_for(RESTORED)
        installed = later.wait_for(FROM_KEPT_FILES)
        assert installed[1] == "numpy, posenc"
        assert later.print_of("#cell-1", SITE_PACKAGES_PROBE) == unpacked
        # numpy's shared libraries, compiled by snapshot_reader.js while Python restored
        assert int(installed[2]) == int(later.print_of("#cell-1", SHARED_LIBRARIES_PROBE)) > 10
        assert not [request for request in later.requested if WHEEL.search(request)]  # no wheel downloaded
    count, _, version, installer, total = unpacked.split()
    assert int(count) > 300 and version == "2.0.2" and installer == "pyodide.loadPackage" and total == "3.0"


def test_corrupt_package_files_are_not_used_and_the_snapshot_is_replaced(chromium, site_server, visited):
    """Garbage in the kept package files (their other faults, a record that misplaces a wheel among them,
    are tests/js/snapshot.test.mjs's)."""
    url = site_server + LESSON
    rewritten(chromium, url, visited, "package files")
    with visit(chromium, url, visited) as third:
        third.wait_for(RESTORED)  # the snapshot itself is intact
        assert re.fullmatch(r"sha256 [0-9a-f]{64}", third.wait_for(PACKAGE_FILES_CORRUPT)[1])
        assert third.print_of("#cell-1", "import numpy, posenc; print(numpy.arange(4).sum())") == "6"
        assert not third.said(FROM_KEPT_FILES)
        assert len([request for request in third.requested if WHEEL.search(request)]) == 2
    with visit(chromium, url, visited) as fourth:
        assert fourth.wait_for(NORMAL)[1] == "no snapshot"  # deleted, so that a good one is made
        fourth.wait_for(KEPT)


def test_a_restored_python_that_cannot_start_deletes_its_snapshot(chromium, site_server, visited):
    """Kept files that pass their checks but break numpy (a record that mixes up two files' sizes):
    the boot fails, as it would every visit, so the snapshot is deleted and the next visit boots normally."""
    url = site_server + LESSON
    rewritten(chromium, url, visited, "numpy's files mixed up")
    with visit(chromium, url, visited, ready=False) as third:
        third.wait_for(RESTORED)
        third.wait_for("course: the restored Python could not start: snapshot deleted")
        status = third.page.locator("#cell-1 .course-cell__status")
        expect(status).to_have_text("Python could not be loaded", timeout=LOAD_TIMEOUT_MS)
    with visit(chromium, url, visited) as fourth:
        assert fourth.wait_for(NORMAL)[1] == "no snapshot"
        assert fourth.print_of("#cell-1", "import numpy; print(numpy.arange(4).sum())") == "6"


def test_a_kept_package_whose_wheel_changed_is_unpacked_from_the_new_wheel(chromium, site_server, visited):
    """A site update that ships a new posenc wheel: the kept posenc files are not used, numpy's still are."""
    url = site_server + LESSON
    rewritten(chromium, url, visited, "new posenc")
    with visit(chromium, url, visited) as third:
        third.wait_for(RESTORED)
        assert third.wait_for(FROM_KEPT_FILES)[1] == "numpy"
        assert third.print_of("#cell-1", "import posenc; print(posenc.__name__)") == "posenc"
        downloaded = [WHEEL.search(request)[1] for request in third.requested if WHEEL.search(request)]
        assert downloaded == ["posenc"]


def test_every_lesson_cell_runs_as_at_build_time_after_a_restore(chromium, site_server, visited):
    url = site_server + LESSON
    with visit(chromium, url, visited) as later:
        later.wait_for(RESTORED)
        check_cells_run_like_at_build_time(later.page)


def test_a_run_does_not_wait_for_the_snapshot_being_made(chromium, site_server, tmp_path):
    """The snapshot is made in a worker of its own: a Run clicked meanwhile is answered first
    (the making is put off, and taken up again once Python is quiet)."""
    with visit(chromium, site_server + LESSON, tmp_path) as first:
        first.wait_for(MAKING)
        run(first.page, "#cell-1")
        expect(first.page.locator("#cell-1")).to_have_attribute("data-status", "ok")
        said_by_then = list(first.lines)
        first.wait_for(KEPT)
    assert not any(KEPT.search(line) for line in said_by_then), said_by_then


def test_a_corrupt_snapshot_is_refused_and_replaced(chromium, site_server, visited):
    """One byte of the kept snapshot changed: the browser's own sha256 refuses it. (A file of garbage, or
    cut short, and the other ways its bytes can be wrong are refused the same way: tests/js/snapshot.test.mjs.)"""
    url = site_server + LESSON
    rewritten(chromium, url, visited, "flipped byte")
    with visit(chromium, url, visited) as third:
        assert re.fullmatch("corrupt snapshot: sha256 [0-9a-f]{64}", third.wait_for(NORMAL)[1])
        assert third.print_of("#cell-1", "print(6 * 7)") == "42"
        third.wait_for(KEPT)  # the corrupt file was deleted, and a good one made
    with visit(chromium, url, visited) as fourth:
        fourth.wait_for(RESTORED)


def test_a_snapshot_reader_that_fails_leaves_a_normal_boot(chromium, site_server, visited):
    """The kept file is read and hashed by a worker of its own (snapshot_reader.js); when that
    worker cannot start (here its script throws as it loads), Python boots normally."""
    url = site_server + LESSON
    with visit(chromium, url, visited, prelude=in_the_reader("throw 1;")) as second:
        assert second.wait_for(NORMAL)[1].startswith("snapshot reader failed: ")
        assert second.print_of("#cell-1", "print(6 * 7)") == "42"


NEVER_ANSWERS = "await new Promise(() => {});"
"""A reader prelude that never ends: its module never runs, as where a browser leaves the script unanswered."""

KEEPS_ITS_LIBRARIES = """const post = self.postMessage.bind(self);
self.postMessage = (message, transfer) => { if (!message?.libraries) post(message, transfer); };"""
"""A reader prelude that swallows the reader's last message, its compiled libraries (the reader then closes)."""


def test_a_snapshot_reader_that_never_answers_leaves_a_normal_boot(chromium, site_server, visited):
    """Past main.js's READ_MS (20 s) without the reader's answer, the boot goes on without the snapshot,
    where it would otherwise wait for good (a browser can leave a worker's script, or the file, unanswered)."""
    url = site_server + LESSON
    with visit(chromium, url, visited, prelude=in_the_reader(NEVER_ANSWERS)) as second:
        assert second.wait_for(NORMAL)[1] == "snapshot not read: its reader did not answer in 20 s"
        assert second.print_of("#cell-1", "print(6 * 7)") == "42"


def test_a_restore_without_its_compiled_libraries_installs_numpy_all_the_same(chromium, site_server, visited):
    """The reader answered with the file, then its compiled libraries never came: past READ_MS the restore
    installs numpy from the kept files all the same, Pyodide's loader compiling its libraries itself."""
    url = site_server + LESSON
    with visit(chromium, url, visited, prelude=in_the_reader(KEEPS_ITS_LIBRARIES)) as later:
        later.wait_for(RESTORED)
        installed = later.wait_for(FROM_KEPT_FILES)
        assert (installed[1], installed[2]) == ("numpy, posenc", "0")
        assert later.print_of("#cell-1", "import numpy; print(numpy.arange(4).sum())") == "6"


def test_a_snapshot_of_another_build_is_refused(chromium, site_server, visited):
    url = site_server + LESSON
    rewritten(chromium, url, visited, "another build")
    with visit(chromium, url, visited) as third:
        assert third.wait_for(NORMAL)[1] == f"snapshot for build {'0' * 64}"
        assert third.print_of("#cell-1", "print(6 * 7)") == "42"


def test_a_snapshot_is_not_restored_onto_the_official_stdlib(chromium, site_server, visited):
    """The snapshot pins the derived stdlib it was made with; on a visit where that file fails
    (a 404, and no offline copy kept) the worker falls back to the official zip, and a restore,
    which starts before the stdlib has arrived, is thrown away for a normal boot."""
    url = site_server + LESSON
    with visit(chromium, site_root(url) + QUIET_PAGE, visited, ready=False) as quiet:
        quiet.page.evaluate(DROP_KEPT_COPIES, "python_stdlib-pyc-")
    with visit(chromium, url, visited, missing="python_stdlib-pyc-") as third:
        assert third.wait_for(NORMAL)[1] == "the derived stdlib failed: snapshot not used"
        assert third.print_of("#cell-1", "import json, email.message; print(6 * 7)") == "42"
        assert not third.said(RESTORED)


def test_full_storage_keeps_no_snapshot_and_python_runs(chromium, site_server, tmp_path):
    url = site_server + LESSON
    with visit(chromium, url, tmp_path, quota=1_000_000) as first:
        assert first.wait_for(NOT_KEPT)[1] == "not stored: QuotaExceededError"
        assert first.print_of("#cell-1", "print(6 * 7)") == "42"
    with visit(chromium, url, tmp_path, quota=1_000_000) as second:
        assert second.wait_for(NORMAL)[1] == "no snapshot"


def test_without_make_memory_snapshot_nothing_is_kept(chromium, site_server, tmp_path):
    url = site_server + LESSON
    patch = ("pyodide.asm.js", "static makeMemorySnapshot(", "static makeMemorySnapshotGone(")
    with visit(chromium, url, tmp_path, patch=patch) as first:
        assert first.wait_for(NOT_KEPT)[1] == "makeMemorySnapshot missing"
        assert first.print_of("#cell-1", "print(6 * 7)") == "42"


def test_a_pyodide_that_ignores_load_snapshot_boots_normally(chromium, site_server, visited):
    url = site_server + LESSON
    patch = ("pyodide.js", "e._loadSnapshot", "e._loadSnapshotGone")
    with visit(chromium, url, visited, patch=patch) as second:
        assert second.wait_for(NORMAL)[1] == "this Pyodide ignores _loadSnapshot"
        assert second.print_of("#cell-1", "print(6 * 7)") == "42"


@pytest.mark.parametrize(
    ("prelude", "reason"),
    [(NO_OPFS, "no origin private file system"), (NO_SYNC_ACCESS_HANDLES, "no synchronous access handles")],
)
def test_without_the_storage_python_boots_normally_and_makes_no_snapshot(
    chromium, site_server, tmp_path, prelude, reason
):
    with visit(chromium, site_server + LESSON, tmp_path, prelude=prelude) as first:
        booted = first.wait_for(NORMAL)[1]
        assert booted == (
            "snapshot storage unavailable: no origin private file system" if prelude == NO_OPFS else "no snapshot"
        )
        assert first.print_of("#cell-1", "print(6 * 7)") == "42"
        assert first.wait_for(NOT_KEPT)[1] == reason
        assert not first.said(MAKING)
        expect(first.page.locator("#cell-1")).to_have_attribute("data-status", "ok")


@pytest.mark.parametrize("prelude", [NO_SYNC_ACCESS_HANDLES, HELD], ids=["no sync access handles", "file held"])
def test_a_kept_snapshot_restores_where_a_sync_access_handle_is_missing_or_fails(
    chromium, site_server, visited, prelude
):
    """Read as a File instead: a browser without sync access handles, or a file another tab's worker holds
    (the snapshot reader reads the file: the prelude is put before its script too)."""
    url = site_server + LESSON
    with visit(chromium, url, visited, prelude=prelude + "\n" + in_the_reader(prelude)) as later:
        later.wait_for(RESTORED)
        assert later.print_of("#cell-1", "import numpy; print(numpy.arange(4).sum())") == "6"
