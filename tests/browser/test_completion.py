"""Completion in the cell editor, from Jedi in the Python worker, driven with the keyboard.

On the built lesson page (real Pyodide, every request off 127.0.0.1 blocked): the page's
live names, attributes of live objects and a call's keyword arguments complete, in
CodeMirror's ARIA listbox; Jedi is fetched only with the first completion, never at boot
or for a run; a completion asked for while a cell runs is dropped and the editor keeps
taking keys; and completion works offline once it has been used.  The page also offers
its notebook for download (course_site/notebook.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from caches import wait_until_cached
from page_fixture import (
    LESSON,
    LOAD_TIMEOUT_MS,
    PYODIDE_VERSION,
    Gate,
    expect_service_worker,
    guarded_page,
    run,
    set_code,
    wait_ready,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LISTBOX = ".cm-tooltip-autocomplete [role=listbox]"
INTERACTION_DELAY_MS = 75  # CodeMirror ignores keys that choose or accept this soon after the list opens
JEDI_WHEELS = re.compile(r"/(jedi|parso)-[^/]*\.whl$")


def type_in(page, cell: str, code: str, text: str) -> None:
    """Put ``code`` in ``cell``'s editor, the caret at its end, then type ``text`` with the keyboard."""
    set_code(page, cell, code)
    page.locator(f"{cell} .cm-content").focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def queries_made(page) -> None:
    """Return once CodeMirror has asked for the completions of the keys typed so far.

    CodeMirror asks ``activateOnTypingDelay`` (100 ms) after the last key, 50 ms after Ctrl+Space, from a
    ``setTimeout`` set as it handles the key. A timer that the page sets later, for longer, fires after
    that one (timers fire in the order they fall due), so once it has fired the requests were made, here
    while a cell ran. A learner who types while a cell runs and stops typing after the run ended gets the
    answer to the request made then: that one is new, not a dropped one coming back.
    """
    page.evaluate("() => new Promise((done) => setTimeout(done, 300))")


def labels(page) -> list[str]:
    return page.locator(f"{LISTBOX} [role=option] .cm-completionLabel").all_inner_texts()


def what_the_page_shows(page) -> str:
    """The editor's completion state and each cell's status, for a listbox that never opened."""
    return page.evaluate("""() => {
        const editor = document.activeElement?.closest(".cm-editor");
        const content = editor?.querySelector(".cm-content");
        const lines = [`focused editor: ${editor ? editor.closest(".course-cell")?.id : "none"}, `
            + `aria-expanded=${content?.getAttribute("aria-expanded")}, text ${JSON.stringify(content?.textContent)}`];
        for (const cell of document.querySelectorAll(".course-cell")) {
            const status = cell.querySelector(".course-cell__status")?.textContent.trim();
            lines.push(`${cell.id}: data-state=${cell.dataset.state} status=${JSON.stringify(status)}`);
        }
        return lines.join("\\n");
    }""")


def open_listbox(page):
    """The open listbox, once CodeMirror takes keys for it: it leaves keys that come within its interaction
    delay of the list's opening to the editor (a learner's Enter this soon would be a new line)."""
    listbox = page.locator(LISTBOX)
    try:
        expect(listbox).to_be_visible(timeout=LOAD_TIMEOUT_MS)  # the first one loads Jedi
    except AssertionError as error:
        said = "\n".join(getattr(page, "said", [])[-20:])
        raise AssertionError(f"{error}\n{what_the_page_shows(page)}\nthe console's last lines:\n{said}") from None
    # Seen now, so opened at or before now: the delay has passed once now + delay has.
    seen = listbox.evaluate("(list) => (list.dataset.seenAt ??= String(performance.now()))")
    page.wait_for_function("(at) => performance.now() > at", arg=float(seen) + INTERACTION_DELAY_MS)
    return listbox


@pytest.fixture(scope="module")
def lesson(browser, site_server):
    requests: list[str] = []
    with guarded_page(browser, site_server + LESSON, requests=requests, accept_downloads=True) as (page, _problems):
        page.said = []  # the page's and its workers' console, for a listbox that never opened
        page.on("console", lambda message: page.said.append(message.text))
        wait_ready(page)
        page.requests = requests
        yield page


def test_jedi_loads_with_the_first_completion_not_at_boot_nor_for_a_run(lesson):
    run(lesson, "#cell-1")
    expect(lesson.locator("#cell-1")).to_have_attribute("data-status", "ok")
    assert not [url for url in lesson.requests if JEDI_WHEELS.search(url)], "Jedi was fetched before anyone asked"
    type_in(lesson, "#cell-2", "", "posenc.sinu")
    open_listbox(lesson)
    assert labels(lesson) == ["sinusoidal"]
    fetched = sorted(JEDI_WHEELS.search(url)[1] for url in lesson.requests if JEDI_WHEELS.search(url))
    assert fetched == ["jedi", "parso"]  # once each
    lesson.keyboard.press("Escape")


def test_attributes_and_live_names_complete_and_enter_accepts(lesson):
    run(lesson, "#cell-1")  # defines vocab, encode, ... in the page's namespace
    type_in(lesson, "#cell-2", "", "enc")
    open_listbox(lesson)
    assert "encode" in labels(lesson)  # a function an earlier run defined
    type_in(lesson, "#cell-2", "pe = posenc.sinusoidal(4, 8)\n", "np.zeros_l")
    open_listbox(lesson)
    assert labels(lesson) == ["zeros_like"]
    lesson.keyboard.press("Enter")
    expect(lesson.locator("#cell-2 .cm-content")).to_contain_text("np.zeros_like")
    run(lesson, "#cell-2", "pe = posenc.sinusoidal(4, 8)")
    type_in(lesson, "#cell-2", "pe = posenc.sinusoidal(4, 8)\n", "pe.resh")
    open_listbox(lesson)
    assert labels(lesson) == ["reshape"]  # pe is a live ndarray
    lesson.keyboard.press("Escape")
    expect(lesson.locator(LISTBOX)).to_have_count(0)


def test_keyword_arguments_come_first_with_signature_and_docstring_line(lesson):
    type_in(lesson, "#cell-2", "", "posenc.sinusoidal(8, ")
    lesson.keyboard.press("Control+Space")
    open_listbox(lesson)
    assert labels(lesson)[:2] == ["base=", "d_model="]
    first = lesson.locator(f"{LISTBOX} [role=option]").first
    expect(first.locator(".cm-completionDetail")).to_contain_text("sinusoidal(positions")
    expect(lesson.locator(".cm-completionInfo")).to_have_text(
        "Sinusoidal positional encoding, sin/cos interleaved as in the paper."
    )


def test_the_listbox_is_an_aria_combobox_the_keyboard_drives(lesson):
    type_in(lesson, "#cell-2", "import posenc\n", "posenc.rope")  # Jedi reads the import: no run needed
    listbox = open_listbox(lesson)
    editor = lesson.locator("#cell-2 .cm-content")
    expect(editor).to_have_attribute("aria-autocomplete", "list")
    listbox_id = listbox.get_attribute("id")
    expect(editor).to_have_attribute("aria-controls", listbox_id)
    options = listbox.locator("[role=option]")
    assert options.count() >= 2, labels(lesson)
    expect(editor).to_have_attribute("aria-activedescendant", options.nth(0).get_attribute("id"))
    expect(options.nth(0)).to_have_attribute("aria-selected", "true")
    lesson.keyboard.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(editor).to_have_attribute("aria-activedescendant", options.nth(1).get_attribute("id"))
    chosen = labels(lesson)[1]
    lesson.keyboard.press("Enter")
    expect(listbox).to_have_count(0)
    expect(editor).to_have_text(f"import posenc\nposenc.{chosen}", use_inner_text=True)


def test_escape_closes_the_completions_and_then_tab_leaves_the_editor(lesson):
    """The cell's hint, "Escape, then Tab", holds with completions open: one Escape closes them."""
    type_in(lesson, "#cell-2", "import posenc\n", "posenc.sinu")
    open_listbox(lesson)
    lesson.keyboard.press("Escape")
    lesson.keyboard.press("Tab")  # at once: CodeMirror moves focus on a Tab within 2 s of the Escape
    expect(lesson.locator(LISTBOX)).to_have_count(0)
    expect(lesson.locator("#cell-2 .course-cell__button--run")).to_be_focused()
    expect(lesson.locator("#cell-2 .cm-content")).to_have_text("import posenc\nposenc.sinu", use_inner_text=True)


def test_a_completion_asked_while_a_cell_runs_is_dropped_and_the_editor_takes_keys(lesson):
    """Cell 1 runs until the test opens its gate, however long the typing takes on a busy machine."""
    gate = Gate(lesson, "completion")
    gate.run("#cell-1")
    type_in(lesson, "#cell-2", "", "posenc.si")
    lesson.keyboard.press("Control+Space")
    expect(lesson.locator("#cell-2 .cm-content")).to_have_text("posenc.si")  # typed while Python is busy
    queries_made(lesson)
    expect(lesson.locator("#cell-1")).to_have_attribute("data-state", "running")
    gate.open()
    expect(lesson.locator("#cell-1")).to_have_attribute("data-status", "ok", timeout=LOAD_TIMEOUT_MS)
    expect(lesson.locator(LISTBOX)).to_have_count(0)  # the dropped request does not come back later
    lesson.keyboard.press("Control+Space")  # Python is free: asking again answers
    open_listbox(lesson)
    assert labels(lesson) == ["sinusoidal"]
    lesson.keyboard.press("Escape")


def test_completion_works_offline_once_used(browser, site_server):
    with guarded_page(browser, site_server + LESSON) as (page, problems):
        wait_ready(page)
        expect_service_worker(page, re.compile(r"/course-sw\.js\?"))
        type_in(page, "#cell-2", "import posenc\n", "posenc.sinu")
        open_listbox(page)
        cache = f"course-pyodide-{PYODIDE_VERSION}"
        wait_until_cached(page, lambda kept: sum(bool(JEDI_WHEELS.search(p)) for p in kept.get(cache, [])) == 2)
        page.reload()  # now under the service worker, which keeps the runner's files
        wait_ready(page)
        completion_py = "/py/course_kernel/completion.py"
        wait_until_cached(page, lambda kept: any(p.endswith(completion_py) for v in kept.values() for p in v))
        page.context.set_offline(True)
        page.reload()
        wait_ready(page)
        type_in(page, "#cell-2", "import posenc\n", "posenc.sinu")
        open_listbox(page)
        assert labels(page) == ["sinusoidal"]
        page.context.set_offline(False)
        assert not problems


def test_the_lesson_offers_its_notebook_for_download(lesson):
    link = lesson.get_by_role("link", name="Download as notebook (.ipynb)", exact=True)
    link.focus()
    with lesson.expect_download() as download:
        lesson.keyboard.press("Enter")
    assert download.value.suggested_filename == "32-positional-encoding.ipynb"
    assert '"nbformat": 4' in Path(download.value.path()).read_text()
