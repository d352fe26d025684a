"""Quizzes: feedback on choosing an option (keyboard only), independent quizzes, no-JS view."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixture"))
from playwright.sync_api import expect
from runner_fixture import make_fixture_site

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fixture_url(built_site, serve, tmp_path_factory):
    folder = make_fixture_site(built_site, tmp_path_factory.mktemp("quiz") / "site")
    return serve(folder) + "fixture/"


def test_quiz_feedback_with_the_keyboard(open_page, fixture_url):
    page = open_page(fixture_url)
    first = page.locator("#quiz-1")
    expect(first).to_have_attribute("data-course-quiz", "ready")
    feedback = first.locator(".course-quiz__feedback")
    expect(feedback).to_be_empty()

    # Tab into the radio group from the element before it, then choose with the keyboard.
    page.locator("#cell-7 .course-cell__button--reset").focus()
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
    expect(page.locator(".course-quiz__answers")).to_have_count(2)
