"""Quizzes as the plugin renders them: feedback on choosing an option (keyboard only), independent
quizzes, the verdict the Markdown's ``[x]`` gives, and the no-JS view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_fixture import LESSONS, make_fixture_site
from playwright.sync_api import expect

from course_site.fences import QUIZ, scan
from course_site.quiz import parse_quiz, render_quiz

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# The fixture page's two quizzes, as an author writes them; the plugin's HTML replaces the page's forms.
QUIZZES = [
    """\
Which operation mixes information *between* positions?

- [ ] The feed-forward layer
    It is applied to each position **separately**.
- [x] Self-attention
    Each output is a weighted mix of *all* positions' values.
- [ ] Layer normalisation
    It normalises each position's vector on its own.
""",
    """\
What does `np.arange(3).sum()` return?

- [x] `3`
    0 + 1 + 2 = 3.
- [ ] `6`
    That would be `np.arange(4).sum()`.
""",
]
FORM = re.compile(r'<form class="course-quiz" id="quiz-(?P<number>\d+)".*?</form>', re.DOTALL)


def rendered_quiz(number: int) -> str:
    block = scan(f"```quiz\n{QUIZZES[number - 1]}```\n", "fixture/quizzes.md")[0]
    return render_quiz(parse_quiz(block), number)


@pytest.fixture(scope="module")
def fixture_url(built_site, serve, tmp_path_factory):
    folder = make_fixture_site(built_site, tmp_path_factory.mktemp("quiz") / "site")
    page = folder / "fixture" / "index.html"
    html, replaced = FORM.subn(lambda form: rendered_quiz(int(form["number"])), page.read_text())
    assert replaced == len(QUIZZES)
    page.write_text(html)
    return serve(folder) + "fixture/"


def test_quiz_feedback_with_the_keyboard(open_page, fixture_url):
    page = open_page(fixture_url)
    first = page.locator("#quiz-1")
    expect(first).to_have_attribute("data-course-quiz", "ready")
    feedback = first.locator(".course-quiz__feedback")
    expect(feedback).to_be_empty()

    # Tab into the radio group from the element before it, then choose with the keyboard.
    reset = page.locator("#cell-7 .course-cell__button--reset")
    expect(reset).to_be_visible()  # the toolbar is hidden until cell.js has enhanced the cell
    reset.focus()
    seen = []
    for _ in range(6):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.id || document.activeElement.className"))
        if seen[-1].startswith("quiz-1-"):
            break
    assert seen[-1] == "quiz-1-0", seen
    page.keyboard.press("Space")
    expect(page.locator("#quiz-1-0")).to_be_checked()
    expect(feedback).to_contain_text("Not quite.")
    expect(feedback).to_contain_text("It is applied to each position separately.")
    expect(feedback.locator("strong", has_text="separately")).to_have_count(1)  # author HTML kept
    expect(first.locator(".course-quiz__option--incorrect label")).to_have_count(1)

    page.keyboard.press("ArrowDown")
    expect(page.locator("#quiz-1-1")).to_be_checked()
    expect(feedback).to_contain_text("Correct.")
    expect(feedback).to_contain_text("Each output is a weighted mix of all positions' values.")
    expect(feedback).not_to_contain_text("separately")
    expect(feedback).to_have_attribute("data-result", "correct")
    expect(first.locator(".course-quiz__option--correct")).to_have_count(1)
    expect(first.locator(".course-quiz__option--incorrect")).to_have_count(0)
    # Not colour only: a mark and words.
    expect(feedback.locator(".course-quiz__mark")).to_have_text("✓")

    # The explanations were cloned: the details block still has all of them.
    expect(first.locator(".course-quiz__answers .course-quiz__why")).to_have_count(3)

    # The second quiz is independent.
    second = page.locator("#quiz-2")
    expect(second.locator(".course-quiz__feedback")).to_be_empty()
    page.locator("#quiz-2-1").focus()
    page.keyboard.press("Space")
    expect(second.locator(".course-quiz__feedback")).to_contain_text("Not quite.")
    expect(second.locator(".course-quiz__feedback")).to_contain_text("That would be np.arange(4).sum().")
    expect(feedback).to_contain_text("Correct.")


def test_without_javascript_cells_read_as_code_and_output(open_page, fixture_url):
    page = open_page(fixture_url, java_script_enabled=False)
    expect(page.locator(".course-cell__static")).to_have_count(7)
    expect(page.locator(".cm-editor")).to_have_count(0)
    expect(page.locator("#cell-1 .course-cell__static")).to_contain_text('greeting = "hello"')
    expect(page.locator("#cell-1 .course-out--stdout")).to_have_text("hello 0\nhello 1\nhello 2\n")
    expect(page.locator("#cell-3 .course-out--error")).to_contain_text("ZeroDivisionError")
    # No dead buttons: the toolbar waits, hidden, for the script that makes it work.
    expect(page.locator(".course-cell__toolbar").first).to_be_hidden()
    expect(page.locator(".course-cell__button--run")).to_have_count(7)
    expect(page.locator("#cell-1 .course-cell__label")).to_be_hidden()
    expect(page.locator(".course-quiz__answers")).to_have_count(2)


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_option_of_a_lessons_quiz_gets_the_verdict_its_markdown_gives(open_page, site_server, lesson):
    source = (ROOT / f"{lesson.rstrip('/')}.md").read_text(encoding="utf-8")
    quizzes = [parse_quiz(block) for block in scan(source, lesson) if block.lang == QUIZ]
    page = open_page(site_server + lesson)
    for number, quiz in enumerate(quizzes, start=1):
        form = page.locator(f"#quiz-{number}")
        expect(form).to_have_attribute("data-course-quiz", "ready")
        for index, option in enumerate(quiz.options):
            page.locator(f"#quiz-{number}-{index}").check()
            verdict = "Correct." if option.correct else "Not quite."
            expect(form.locator(".course-quiz__verdict strong")).to_have_text(verdict)
