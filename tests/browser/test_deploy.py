"""A deploy between two visits: the learner gets the new build whole, keeps their edits, and works offline.

Two builds of a one-lesson course, served in turn from one address as GitHub Pages does
(``Cache-Control: max-age=600``, or ``no-cache``): v1, then v2, which changes a sentence, the
code of a cell and of an exercise, posenc's version (0.2.0) and a runner module (its runner
folder and build version, as a new build of a changed runner gets them). The browser's HTTP
cache stays on: these tests use no Playwright route (a route turns it off). Only loopback
resolves (the suite's ``--host-resolver-rules``), and a request for any other host fails the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from page_fixture import (
    LOAD_TIMEOUT_MS,
    REGISTRATION,
    SETTINGS_FILE,
    expect_new_service_worker,
    expect_service_worker,
    get_code,
    run,
    set_code,
    wait_ready,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from site_project import make_project

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

LESSON_PAGE = "lessons/lesson/"
V1 = {"sentence": "The first version of this sentence.", "cell": "lesson code one", "starter": "y = 0"}
V2 = {"sentence": "The second version of this sentence.", "cell": "lesson code two", "starter": "y = None"}
LESSON = """# Deploys

{sentence}

```pyodide
import posenc
print("posenc", posenc.__version__)
```

```pyodide
label = "{cell}"
print(label)
```

```pyodide exercise="Twice twenty-one"
# --- code ---
# Set y to twice 21.
{starter}
# --- check ---
assert y == 42, "y should be 42"
# --- solution ---
y = 42
```
"""
CHANGED = "changed since you edited it"
RESTORED = "course: Python restored from this browser's snapshot"
KEPT = "course: snapshot kept for the next visit"
RUNNER_MARK = 'document.documentElement.dataset.testRunner = "v2";\n'


def write_project(folder: Path, version: dict[str, str], posenc_version: str, cache: Path) -> Path:
    """A one-lesson course whose posenc is a copy of the repo's with ``posenc_version``."""
    package = folder / "package"
    shutil.copytree(ROOT / "src/posenc", package / "src/posenc", ignore=shutil.ignore_patterns("__pycache__"))
    init = package / "src/posenc/__init__.py"
    init.write_text(init.read_text().replace('__version__ = "0.1.0"', f'__version__ = "{posenc_version}"'))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, package / name)
    return make_project(
        folder,
        LESSON.format(**version),
        package_project=str(package),
        preload=["numpy", "posenc"],
        cache_dir=str(cache),
        execute=False,
    )


def build(project: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"the build failed:\n{done.stdout}\n{done.stderr}"
    return project / "site"


def change_runner(site: Path) -> None:
    """What a build of a changed runner module differs in: its runner folder and build version (and that module)."""
    settings = json.loads((site / SETTINGS_FILE).read_text())
    old_folder, old_version = settings["runner_folder"].rstrip("/"), settings["version"]
    new_digest = hashlib.sha256(old_folder.encode()).hexdigest()[:16]
    new_folder, new_version = f"runner-{new_digest}", old_version[:-8] + new_digest[:8]
    course = site / "assets/course"
    (course / old_folder).rename(course / new_folder)
    (course / f"offline-{old_version}.json").rename(course / f"offline-{new_version}.json")
    enhance = course / new_folder / "js/enhance.js"
    enhance.write_text(RUNNER_MARK + enhance.read_text())
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".json", ".js"} and "/pyodide/" not in path.as_posix():
            text = path.read_text()
            changed = text.replace(old_folder, new_folder).replace(old_version, new_version)
            if changed != text:
                path.write_text(changed)


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, build_cache: Path) -> dict[str, Path]:
    """The two builds, v1 and v2 (see the module's docstring)."""
    v1 = build(write_project(tmp_path_factory.mktemp("v1"), V1, "0.1.0", build_cache))
    v2 = build(write_project(tmp_path_factory.mktemp("v2"), V2, "0.2.0", build_cache))
    change_runner(v2)
    return {"v1": v1, "v2": v2}


class Host:
    """One address that serves v1, then v2 once ``deploy()`` is called (a symlink swapped at once)."""

    def __init__(self, builds: dict[str, Path], folder: Path, serve, cache_control: str) -> None:
        self.builds = builds
        self.link = folder / "served"
        self.link.symlink_to(builds["v1"], target_is_directory=True)
        self.url = serve(self.link, {"Cache-Control": cache_control})

    def deploy(self, version: str = "v2") -> None:
        swap = self.link.with_name("swap")
        swap.symlink_to(self.builds[version], target_is_directory=True)
        os.replace(swap, self.link)


@pytest.fixture(params=["max-age=600", "no-cache"])
def host(request, builds, tmp_path, serve) -> Host:
    return Host(builds, tmp_path, serve, request.param)


@contextmanager
def browser_process(chromium_options, browser, profile: Path, **options) -> Iterator:
    """A new browser process on ``profile`` (with its HTTP cache); fails if a request left 127.0.0.1."""
    context = browser.browser_type.launch_persistent_context(str(profile), **chromium_options, **options)
    external: list[str] = []
    context.on(
        "request",
        lambda request: (
            urlparse(request.url).hostname not in (None, "127.0.0.1")
            and not request.url.startswith(("data:", "blob:"))
            and external.append(request.url)
        ),
    )
    context.console = []  # what the pages and their workers said
    context.on("console", lambda message: context.console.append(message.text))
    context.pending = {}  # the requests of the pages, their workers and the service worker still unanswered
    context.on("request", lambda request: context.pending.setdefault(id(request), request.url))
    for event in ("requestfinished", "requestfailed"):
        context.on(event, lambda request: context.pending.pop(id(request), None))
    try:
        yield context
    finally:
        context.close()
    assert not external, f"requests left 127.0.0.1: {external}"


def open_lesson(context, url: str, page=None):
    page = page or (context.pages[0] if context.pages else context.new_page())
    page.goto(url + LESSON_PAGE)
    return page


SAVE_DATA = "Object.defineProperty(navigator.connection, 'saveData', { get: () => true })"
"""An init script: the browser's Data Saver is on (the page starts no Python until a Run)."""


def expect_build(page, version: str, builds: dict[str, Path]) -> None:
    """The page is ``version``'s, whole: its text, its runner and the settings its worker read."""
    # A page of another build reloads once its worker has read the settings: on a busy machine, seconds.
    sentence = (V1 if version == "v1" else V2)["sentence"]
    expect(page.locator("article")).to_contain_text(sentence, timeout=LOAD_TIMEOUT_MS)
    marked = page.locator('html[data-test-runner="v2"]')
    expect(marked).to_have_count(1 if version == "v2" else 0, timeout=LOAD_TIMEOUT_MS)
    settings = json.loads((builds[version] / SETTINGS_FILE).read_text())
    assert page.locator("script[data-worker]").get_attribute("data-version") == settings["version"]
    loaded = page.evaluate("performance.getEntriesByType('resource').map((entry) => entry.name)")
    runners = {name.split("/assets/course/")[1].split("/")[0] for name in loaded if "/assets/course/runner-" in name}
    assert runners == {settings["runner_folder"].rstrip("/")}, runners


def wait_for_console(context, page, text: str) -> None:
    """Wait until a page or worker of ``context`` has said ``text``; else fail with what they said."""
    if any(text in line for line in context.console):
        return
    try:
        page.wait_for_event("console", lambda message: text in message.text, timeout=LOAD_TIMEOUT_MS)
    except PlaywrightTimeoutError:
        raise AssertionError(f"nothing said {text!r}\n{what_happened(context, page)}") from None


def what_happened(context, page) -> str:
    """The course's console lines, the requests still unanswered and the service workers, for a failure."""
    said = "\n".join(line for line in context.console if line.startswith("course"))
    pending = "\n".join(sorted(set(context.pending.values()))) or "none"
    return f"the course said:\n{said}\nunanswered requests:\n{pending}\nservice workers: {page.evaluate(REGISTRATION)}"


def first_output(page, cell: str) -> str:
    run(page, cell)
    return page.locator(f"{cell} .course-out").first.text_content().strip()


def expect_v2_in_a_new_process(chromium_options, browser, profile: Path, host: Host, builds) -> None:
    """A new browser process on ``profile``, without a service worker, opens the lesson: it is v2's, and a cell
    runs with v2's posenc."""
    with browser_process(chromium_options, browser, profile, service_workers="block") as context:
        page = open_lesson(context, host.url)
        expect_build(page, "v2", builds)
        assert first_output(page, "#cell-1") == "posenc 0.2.0"


def test_a_returning_learner_gets_the_new_build_keeps_edits_and_works_offline(
    host, builds, browser, chromium_options, tmp_path
):
    profile = tmp_path / "profile"
    my_cell, my_exercise = 'label = "mine"\nprint(label)', "# mine\ny = 21 * 2"
    with browser_process(chromium_options, browser, profile) as context:
        page = open_lesson(context, host.url)
        wait_ready(page)
        expect_build(page, "v1", builds)
        assert first_output(page, "#cell-1") == "posenc 0.1.0"
        set_code(page, "#cell-2", my_cell)
        set_code(page, "#cell-3", my_exercise)
        expect_service_worker(page, re.compile(r"/course-sw\.js\?"))
        wait_for_console(context, page, KEPT)

    host.deploy()
    # A new browser process within max-age: the page, its runner and its Python are v2's.
    with browser_process(chromium_options, browser, profile) as context:
        page = open_lesson(context, host.url)
        wait_ready(page)
        expect_build(page, "v2", builds)
        wait_for_console(context, page, RESTORED)  # the same Pyodide: v1's snapshot restores...
        assert first_output(page, "#cell-1") == "posenc 0.2.0"  # ...with v2's posenc
        for cell, mine, lesson in (("#cell-2", my_cell, V2["cell"]), ("#cell-3", my_exercise, V2["starter"])):
            assert lesson in get_code(page, cell)  # the new code is shown, the edit is offered back
            notice = page.locator(f"{cell} .course-cell__changed")
            expect(notice).to_contain_text(CHANGED)
            notice.get_by_role("button", name="Restore my edit", exact=True).click()
            expect(notice).to_have_count(0)
            assert get_code(page, cell) == mine
        page.reload()  # the restored edits are kept; the notice is gone
        assert get_code(page, "#cell-2") == my_cell
        expect(page.locator(".course-cell__changed")).to_have_count(0)
        page.locator("#cell-2 .course-cell__button--reset").click()  # Reset: the lesson's new code
        assert V2["cell"] in get_code(page, "#cell-2")
        v2_version = json.loads((builds["v2"] / SETTINGS_FILE).read_text())["version"]
        expect_new_service_worker(page, re.compile(re.escape(f"v={v2_version}&")), lambda: what_happened(context, page))
        wait_for_console(context, page, KEPT)  # posenc changed: the snapshot is made again
        # Offline right after the first visit of v2.
        context.set_offline(True)
        page.reload()
        wait_ready(page)
        expect_build(page, "v2", builds)
        assert first_output(page, "#cell-1") == "posenc 0.2.0"
        context.set_offline(False)

    # The remade snapshot holds v2's posenc: the next visit unpacks nothing.
    with browser_process(chromium_options, browser, profile) as context:
        page = open_lesson(context, host.url)
        wait_for_console(context, page, RESTORED)
        wait_for_console(context, page, "course: numpy, posenc installed from the files kept with the snapshot")
        assert first_output(page, "#cell-1") == "posenc 0.2.0"


def test_without_a_service_worker_a_cached_page_of_the_old_build_reloads_into_the_new(
    host, builds, browser, chromium_options, tmp_path
):
    """No service worker (blocked): what a deploy meets is the browser's HTTP cache alone. Within
    max-age, a new tab gets v1's page and runner from it, reads v2's settings and reloads into v2."""
    profile = tmp_path / "profile"
    with browser_process(chromium_options, browser, profile, service_workers="block") as context:
        page = open_lesson(context, host.url)
        expect_build(page, "v1", builds)
        wait_ready(page)  # v1's runner is all in the HTTP cache: its modules and its worker's
        host.deploy()
        tab = open_lesson(context, host.url, context.new_page())
        expect_build(tab, "v2", builds)
        page.reload()
        expect_build(page, "v2", builds)
    expect_v2_in_a_new_process(chromium_options, browser, profile, host, builds)


def test_a_cached_page_whose_worker_was_never_kept_reloads_into_the_new_build(
    host, builds, browser, chromium_options, tmp_path
):
    """A first visit with Data Saver on kept v1's page but not its Python worker's files (none
    started), and maybe not all of its scripts (the browser is closed once the page shows, perhaps
    before the modules it imports later are kept). After the deploy, within max-age, what is missing
    cannot load (v1's runner is gone from the host): the page reads the settings itself, reloads into
    v2, and a cell runs."""
    profile = tmp_path / "profile"
    with browser_process(chromium_options, browser, profile, service_workers="block") as context:
        context.add_init_script(SAVE_DATA)  # not a route: the HTTP cache stays on
        page = open_lesson(context, host.url)
        expect_build(page, "v1", builds)
    host.deploy()
    expect_v2_in_a_new_process(chromium_options, browser, profile, host, builds)


def test_a_cached_page_whose_scripts_were_never_kept_reloads_into_the_new_build(
    host, builds, browser, chromium_options, tmp_path
):
    """A first visit with JavaScript off kept v1's page but none of its scripts. After the deploy,
    within max-age, the cached page's own scripts cannot load (v1's runner is gone from the host):
    its inline starter reads the settings, reloads into v2, and a cell runs."""
    profile = tmp_path / "profile"
    with browser_process(
        chromium_options, browser, profile, service_workers="block", java_script_enabled=False
    ) as context:
        page = open_lesson(context, host.url)
        expect(page.locator("article")).to_contain_text(V1["sentence"])
    host.deploy()
    expect_v2_in_a_new_process(chromium_options, browser, profile, host, builds)


def test_an_edit_in_one_tab_reaches_the_other_tab_of_the_lesson(builds, tmp_path, serve, browser):
    """Two tabs of one browser: an edit saved in one shows in the other, whose next key edits that code."""
    url = serve(builds["v1"])
    context = browser.new_context()
    try:
        first, second = context.new_page(), context.new_page()
        for page in (first, second):
            open_lesson(context, url, page)
            get_code(page, "#cell-2")  # its editor is open
        set_code(first, "#cell-2", 'label = "from the first tab"')
        editor = second.locator("#cell-2 .cm-content")
        expect(editor).to_have_text('label = "from the first tab"')
        expect(second.locator("#cell-2 .course-cell__edited")).to_be_visible()
        editor.click()
        second.keyboard.press("ControlOrMeta+End")
        second.keyboard.type("  # and the second")
        expected = 'label = "from the first tab"  # and the second'
        assert get_code(second, "#cell-2") == expected
        expect(first.locator("#cell-2 .cm-content")).to_have_text(expected)
        first.locator("#cell-2 .course-cell__button--reset").click()
        expect(second.locator("#cell-2 .cm-content")).to_contain_text(V1["cell"])
        expect(second.locator("#cell-2 .course-cell__edited")).to_be_hidden()
    finally:
        context.close()
