"""The course on a phone (390 x 844, dark) and on a desktop (1280 x 900, light), in the built site.

Every lesson: no line of code is wider than its editor, each figure shows the
scheme in use with its smallest text at least 9 CSS px tall, and a display equation
too wide for the column scrolls in its box with a shadow at the cut edge (axe audits
every page at both sizes in test_accessibility.py). The navigation: the lessons alone
in the learner's sidebar, each with its exercises' progress, and the last lesson
ending the course.
A quiz keeps its answers hidden until answered, keeps the answer across a reload and
forgets it on Try again. On a phone the cell toolbar is one line; without JavaScript
a cell says what a reader can do.

These are tests of the page, not of Python: but for the exercise solved, Python's wasm is held
(``guarded_page(python=False)``) and the page stays as it is while Python loads.
"""

from __future__ import annotations

import re
from contextlib import suppress
from io import BytesIO

import pytest
from page_fixture import (
    LESSONS,
    LOAD_TIMEOUT_MS,
    guarded_page,
    run,
    set_code,
    wait_for_editor,
)
from PIL import Image, ImageStat
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "color_scheme": "dark"}
DESKTOP = {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"}
SCREENS = {"390-dark": PHONE, "1280-light": DESKTOP}
MIN_TEXT_PX = 9
LAST_LESSON = LESSONS[-1]

# Each editor's lines that reach past its content box (a line wider than the editor, cut or scrolled).
WIDE_LINES = """() => [...document.querySelectorAll(".course-cell .cm-editor")].flatMap((editor) => {
  const scroller = editor.querySelector(".cm-scroller");
  const box = editor.querySelector(".cm-content").getBoundingClientRect();
  const cell = editor.closest(".course-cell").id;
  const wide = [...editor.querySelectorAll(".cm-line")]
    .filter((line) => line.scrollWidth > line.clientWidth + 1 || line.getBoundingClientRect().right > box.right + 1)
    .map((line) => `${cell}: ${line.textContent}`);
  if (scroller.scrollWidth > scroller.clientWidth + 1) wide.push(`${cell}: the editor scrolls sideways`);
  return wide;
})"""

# Each build-time figure as shown: its scheme, its shown width against the PNG's, its smallest text in CSS px.
FIGURES = """() => [...document.querySelectorAll(".course-out--figure img")]
  .filter((img) => img.getClientRects().length > 0)
  .map((img) => ({
    scheme: img.dataset.scheme,
    src: img.getAttribute("src"),
    textPx: Number(img.dataset.textPx) * img.getBoundingClientRect().width / img.naturalWidth,
  }))"""

# The relative luminance (WCAG) of an image's mean colour, drawn on a canvas (the figure is same-origin).
LUMINANCE = """async (src) => {
  const img = new Image();
  img.src = src;
  await img.decode();
  const canvas = document.createElement("canvas");
  [canvas.width, canvas.height] = [img.naturalWidth, img.naturalHeight];
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
  const mean = [0, 0, 0];
  for (let i = 0; i < data.length; i += 4) for (let c = 0; c < 3; c++) mean[c] += data[i + c];
  const linear = mean.map((sum) => {
    const v = sum / (data.length / 4) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
}"""

# Display equations wider than their box: whether they scroll, and the shadow that marks the cut edge.
WIDE_MATH = """() => [...document.querySelectorAll(".course-math")]
  .filter((box) => box.scrollWidth > box.clientWidth + 1)
  .map((box) => ({
    overflow: getComputedStyle(box).overflowX,
    background: getComputedStyle(box).backgroundImage,
    attachment: getComputedStyle(box).backgroundAttachment,
    focusable: box.tabIndex >= 0,
  }))"""

WIDE_MATH_MARKED = """() => document.fonts.status === "loaded" && [...document.querySelectorAll(".course-math")]
  .every((box) => box.scrollWidth <= box.clientWidth + 1 || box.tabIndex >= 0)"""

# Where an editor's long line wraps: the left edges (px) of its text's start, of its first non-blank
# character and of its continuation (the second visual line), and one column's width.
WRAPPED = """(line) => {
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  const at = (offset) => {
    for (const node of nodes) {
      if (offset < node.length) {
        const range = document.createRange();
        range.setStart(node, offset);
        range.setEnd(node, offset + 1);
        return range.getBoundingClientRect();
      }
      offset -= node.length;
    }
    return null;
  };
  const text = line.textContent;
  const firstTop = at(0).top;
  let wrapped = -1;
  for (let i = 0; i < text.length; i++) if (at(i).top > firstTop + 2) { wrapped = i; break; }
  return {
    start: at(0).left,
    code: at(text.search(/\\S/)).left,
    continuation: wrapped < 0 ? null : at(wrapped).left,
    column: at(1).left - at(0).left,
  };
}"""


# A display equation made 900 px wider, in the middle of the view (the header covers none of it).
WIDEN = """(box) => {
  box.querySelector("math").style.paddingRight = "900px";
  box.scrollIntoView({ block: "center" });
}"""

EAGER = "() => document.querySelectorAll('.course-out--figure img').forEach((img) => { img.loading = 'eager'; })"


def every_editor(page) -> None:
    cells = page.locator(".course-cell")
    for i in range(cells.count()):
        wait_for_editor(page, f"#{cells.nth(i).get_attribute('id')}")


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_no_line_of_code_is_wider_than_its_editor(browser, site_server, lesson, screen):
    with guarded_page(browser, site_server + lesson, **SCREENS[screen], python=False) as (page, _):
        every_editor(page)
        assert page.evaluate(WIDE_LINES) == []
        # Exercise tasks are prose above the editor.
        tasks = page.locator(".course-exercise .course-exercise__task")
        assert tasks.count() == page.locator(".course-exercise").count() > 0
        first = page.locator(".course-exercise").first
        task_bottom = first.locator(".course-exercise__task").bounding_box()
        editor_top = first.locator(".cm-editor").bounding_box()
        assert task_bottom["y"] + task_bottom["height"] <= editor_top["y"]


@pytest.mark.parametrize("indent", [0, 8])
def test_a_wrapped_line_continues_under_its_own_indent_and_four_columns(browser, site_server, indent):
    """At 390 px a long line wraps; its continuation starts ``indent + 4`` columns from the line's start."""
    with guarded_page(browser, site_server + LESSONS[0], **PHONE, python=False) as (page, _):
        long_line = " " * indent + "total = " + " + ".join(f"value_{i}" for i in range(30))
        set_code(page, "#cell-1", f"if True:\n{long_line}" if indent else long_line)
        target = "#cell-1 .cm-line" + (":nth-child(2)" if indent else "")
        edges = page.locator(target).evaluate(WRAPPED)
        assert edges["continuation"] is not None, "the line did not wrap at 390 px"
        assert edges["code"] - edges["start"] == pytest.approx(indent * edges["column"], abs=1)
        hang = (edges["continuation"] - edges["start"]) / edges["column"]
        assert hang == pytest.approx(indent + 4, abs=0.2)


@pytest.mark.parametrize("lesson", LESSONS)
def test_figures_on_a_phone_in_the_dark_are_dark_and_legible(browser, site_server, lesson):
    with guarded_page(browser, site_server + lesson, **PHONE, python=False) as (page, _):
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
        page.evaluate(EAGER)
        figures = page.evaluate(FIGURES)
        assert figures, f"{lesson} shows no figure"
        for figure in figures:
            assert figure["scheme"] == "slate", figure
            assert figure["textPx"] >= MIN_TEXT_PX, f"text {figure['textPx']:.1f} px tall at 390 px: {figure['src']}"
            assert page.evaluate(LUMINANCE, figure["src"]) < 0.2, figure["src"]

        # Switching the palette switches the figures.
        page.locator("form[data-md-component='palette'] label:visible").first.click()
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
        light = page.evaluate(FIGURES)
        assert [figure["scheme"] for figure in light] == ["default"] * len(figures)
        assert page.evaluate(LUMINANCE, light[0]["src"]) > 0.5


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_wide_equation_scrolls_in_its_box_with_a_shadow_at_the_cut(browser, site_server, lesson):
    with guarded_page(browser, site_server + lesson, **PHONE, python=False) as (page, _):
        expect(page.locator(".course-math").first).to_be_attached()
        width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], "the page scrolls sideways at 390 px"
        # scroll_regions.js marks a box once its ResizeObserver has seen it (after the page's module ran,
        # and again when the math font arrives): wait for that, then say which box is wrong, if one is.
        with suppress(PlaywrightTimeoutError):
            page.wait_for_function(WIDE_MATH_MARKED, timeout=LOAD_TIMEOUT_MS)
        wide = page.evaluate(WIDE_MATH)
        for box in wide:
            assert box["overflow"] == "auto", box
            assert box["background"].count("gradient") == 4 and "local" in box["attachment"], box
            assert box["focusable"], box


def test_an_equation_that_overflows_shows_a_shadow_where_it_is_cut(browser, site_server):
    """A display equation made wider than the column (empty space at its end): its box's right edge
    shows a shadow while the equation goes on past it, and none once scrolled to its end."""
    with guarded_page(browser, site_server + LESSONS[0], **PHONE, python=False) as (page, _):
        box = page.locator(".course-math").first
        box.evaluate(WIDEN)
        expect(box).to_have_attribute("tabindex", "0")  # scroll_regions.js: reachable by keyboard

        def right_edge(px: int = 4) -> Image.Image:
            image = Image.open(BytesIO(box.screenshot())).convert("L")
            width, height = image.size
            return image.crop((width - px, height // 4, width, 3 * height // 4))

        cut = ImageStat.Stat(right_edge()).mean[0]
        box.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
        end = ImageStat.Stat(right_edge()).mean[0]
        assert abs(cut - end) > 8, (cut, end)
        # At the end no trace of the shadow shows: the box's last 32 px (2 em) are the page's background.
        darkest, lightest = right_edge(px=32).getextrema()
        assert lightest - darkest <= 1, (darkest, lightest)


def test_a_focused_equation_that_stops_scrolling_keeps_focus_until_it_is_left(browser, site_server):
    """An equation box focused by Tab that comes to fit (the math font arrives, the window widens)
    keeps its tab stop while it has focus: a browser moves the focus of an element that can no
    longer take it to <body>, and the next Tab would start from the top. It loses it once left."""
    # At 1280 px its equations fit.
    with guarded_page(browser, site_server + LESSONS[0], **DESKTOP, python=False) as (page, _):
        box = page.locator(".course-math").first
        box.evaluate(WIDEN)
        expect(box).to_have_attribute("tabindex", "0")
        box.focus()
        box.evaluate("(box) => { box.querySelector('math').style.paddingRight = ''; }")  # it fits again
        page.wait_for_function(
            "(box) => box.scrollWidth <= box.clientWidth + 1", arg=box.element_handle(), timeout=LOAD_TIMEOUT_MS
        )
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")  # observed
        assert box.evaluate("(box) => document.activeElement === box"), "focus left the equation for <body>"
        expect(box).to_have_attribute("tabindex", "0")
        page.keyboard.press("Tab")
        expect(box).not_to_have_attribute("tabindex", "0")
        assert page.evaluate("() => document.activeElement !== document.body")


def test_the_learners_sidebar_holds_the_lessons_and_the_last_one_ends_the_course(browser, site_server):
    with guarded_page(browser, site_server + LAST_LESSON, **DESKTOP, python=False) as (page, _):
        sidebar = page.locator(".md-sidebar--primary .md-nav__link:visible")
        names = [re.sub(r"\s+", " ", text).strip() for text in sidebar.all_inner_texts()]
        assert names and all(re.match(r"\d+ · ", name) for name in names if name != "Lessons"), names
        assert not any("Writing lessons" in name or "API reference" in name for name in names), names
        expect(page.locator(".md-tabs__link", has_text="For authors and maintainers")).to_be_visible()
        # Each lesson's exercise progress, beside its link.
        progress = page.locator(".md-sidebar--primary .course-nav-progress")
        expect(progress).to_have_count(len(LESSONS), timeout=LOAD_TIMEOUT_MS)  # once enhance.js ran
        expect(progress.first.locator("[aria-hidden='true']")).to_have_text(re.compile(r"^0 / \d+$"))
        # The footer's Next ends the course, where it lists what was covered.
        following = page.locator(".md-footer__link--next")
        expect(following).to_have_attribute("aria-label", "Next: End of the course")
        following.click()
        end = page.locator("section.course-end")
        expect(end.get_by_role("heading", name="End of the course")).to_be_in_viewport()
        expect(end.locator("ul").first.locator("a")).to_have_count(len(LESSONS))
        expect(end.get_by_role("heading", name="Where to go next")).to_be_visible()


def test_the_navigation_and_the_course_end_read_without_javascript(browser, site_server):
    with guarded_page(browser, site_server + LAST_LESSON, java_script_enabled=False, **DESKTOP) as (page, _):
        expect(page.locator(".md-footer__link--next")).to_have_attribute("aria-label", "Next: End of the course")
        expect(page.locator("section.course-end ul").first.locator("a")).to_have_count(len(LESSONS))
        expect(page.locator(".md-sidebar--primary").get_by_text("Writing lessons")).to_be_hidden()
        expect(page.locator(".course-cell__note--static").first).to_contain_text("JavaScript is off")
        expect(page.locator(".course-cell__note:not(.course-cell__note--static)").first).to_be_hidden()
        # The quiz's answers stay readable, in a collapsed block.
        answers = page.locator("details.course-quiz__answers").first
        expect(answers).to_be_visible()
        expect(answers).not_to_have_attribute("open", "")
    with guarded_page(browser, site_server, **DESKTOP, python=False) as (page, _):
        progress = re.compile(r"Your progress: 0 of \d+ exercises solved")
        expect(page.locator(".course-progress")).to_contain_text(progress)


def test_solving_an_exercise_counts_in_the_sidebar(browser, site_server):
    lesson = LESSONS[0]
    with guarded_page(browser, site_server + lesson, **DESKTOP) as (page, _):
        mine = page.locator(".md-sidebar--primary a.md-nav__link[href='./'] .course-nav-progress [aria-hidden='true']")
        expect(mine).to_have_text(re.compile(r"^0 / \d+$"), timeout=LOAD_TIMEOUT_MS)  # once enhance.js ran
        cell = f"#{page.locator('.course-exercise').first.get_attribute('id')}"
        wait_for_editor(page, cell)
        run(page, cell)  # the first check: Show solution appears (the site's rule, after-check)
        page.click(f'{cell} button[data-action="solution"]')
        page.click(f'{cell} button[data-action="use-solution"]')
        run(page, cell)
        expect(page.locator(cell)).to_have_attribute("data-solved", "true", timeout=LOAD_TIMEOUT_MS)
        expect(mine).to_have_text(re.compile(r"^1 / \d+$"))
        total = mine.inner_text().split(" / ")[1]
        expect(mine.locator("xpath=..")).to_contain_text(f"1 of {total} exercises solved")


def test_a_quiz_hides_its_answers_until_answered_and_keeps_the_answer(browser, site_server):
    with guarded_page(browser, site_server + LESSONS[0], **PHONE, python=False) as (page, _):
        quiz = page.locator("form.course-quiz").first
        expect(quiz).to_have_attribute("data-course-quiz", "ready")
        answers = quiz.locator(".course-quiz__answers")
        retry = quiz.get_by_role("button", name="Try again")
        expect(answers).to_be_hidden()
        expect(retry).to_be_hidden()
        quiz.scroll_into_view_if_needed()
        quiz.locator(".course-quiz__option label").first.click()
        expect(quiz.locator(".course-quiz__feedback")).not_to_be_empty()
        expect(answers).to_be_visible()
        expect(retry).to_be_visible()

        page.reload()
        quiz = page.locator("form.course-quiz").first
        expect(quiz).to_have_attribute("data-course-quiz", "ready")
        expect(quiz.locator("input[type=radio]").first).to_be_checked()
        expect(quiz.locator(".course-quiz__feedback")).not_to_be_empty()
        retry = quiz.get_by_role("button", name="Try again")
        retry.focus()
        page.keyboard.press("Enter")
        expect(quiz.locator("input[type=radio]:checked")).to_have_count(0)
        expect(quiz.locator(".course-quiz__feedback")).to_be_empty()
        expect(quiz.locator(".course-quiz__answers")).to_be_hidden()
        page.reload()
        expect(page.locator("form.course-quiz").first.locator("input[type=radio]:checked")).to_have_count(0)


def test_on_a_phone_the_toolbar_is_one_line_and_keeps_its_names(browser, site_server):
    with guarded_page(browser, site_server + LESSONS[0], **PHONE, python=False) as (page, _):
        toolbar = page.locator(".course-cell__toolbar").first
        expect(toolbar).to_be_visible(timeout=LOAD_TIMEOUT_MS)  # once cell.js made the cell live
        boxes = toolbar.locator("button.course-cell__button, .course-cell__status").evaluate_all(
            "(parts) => parts.map((part) => [part.getBoundingClientRect().top, part.getBoundingClientRect().bottom])"
        )
        assert max(top for top, _ in boxes) < min(bottom for _, bottom in boxes), boxes  # one line
        for name in ("Run", "Stop", "Reset", "Copy", "Clear"):
            expect(toolbar.get_by_role("button", name=name, exact=True)).to_have_count(1)
        # The title's notebook link sits right under it.
        title = page.locator("h1").bounding_box()
        link = page.locator(".course-notebook").bounding_box()
        assert link["y"] - (title["y"] + title["height"]) < 24
