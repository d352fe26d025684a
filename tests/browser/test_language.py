"""A course in French (``theme.language: fr``): every word the course adds to the page is French.

A scratch course of one lesson (cells, an exercise, a quiz), built by the course's builder, is
worked through as a learner does, in Chromium and Firefox: a run, an error, a Stop that restarts
Python, the exercise's starter (failed) then its solution (passed), the quiz answered wrongly then
rightly, the console, and a cell whose package cannot be downloaded once the server is gone. Then
no text or accessible name of the course's own (everything but the learner's code and Python's
output) holds an English phrase of the course's catalogue that the French one does not share;
Python's own traceback stays as Python writes it. axe-core audits the page in Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import steps
from axe_fixture import audit, report
from site_project import make_project

from course_site.strings import read_catalogue

pytestmark = pytest.mark.browser

PAGE = "lessons/lesson/"
LESSON = """\
# Une leçon en français

Le code ci-dessous s'exécute dans votre navigateur.

```pyodide
print(6 * 7)
```

```pyodide execute="false"
1 / 0
```

```pyodide
x = 1
```

```pyodide exercise="La période d'une paire"
# --- code ---
periode = None
# --- check ---
expect_defined("periode")
assert periode is not None, "Donnez à `periode` la période de la paire 0."
expect_close(periode, 6.283185307179586, name="periode")
# --- solution ---
periode = 6.283185307179586
# --- hint ---
La paire 0 tourne d'un radian par position.
```

```quiz
Combien de positions une séquence de quatre jetons a-t-elle ?

- [ ] Trois.
    Comptez encore : de 0 à 3.
- [x] Quatre.
    Oui : 0, 1, 2 et 3.
```
"""

# Text of the course's own inside these parts of the page (the learner's code and Python's output excluded).
COURSE_TEXT = """() => {
    const skip = ".course-out, .cm-editor, .course-cell__static, pre, code, noscript, .course-console__echo";
    const roots = ".course-cell, .course-quiz, #course-console, .course-console-toggle, .course-notebook";
    const texts = [];
    for (const root of document.querySelectorAll(roots)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
        for (let node = walker.currentNode; node; node = walker.nextNode()) {
            if (node.nodeType === Node.ELEMENT_NODE) {
                if (node.closest(".course-out, noscript")) continue; // the editor's names are the course's
                for (const name of ["aria-label", "title", "alt", "placeholder"]) {
                    if (node.hasAttribute(name)) texts.push(node.getAttribute(name));
                }
            } else if (!node.parentElement.closest(skip) && node.textContent.trim()) {
                texts.push(node.textContent.trim());
            }
        }
    }
    const english = [...document.querySelectorAll("[lang]")].filter((node) => !/^fr\\b/.test(node.lang));
    const otherLang = english.map((node) => node.outerHTML.slice(0, 80));
    return { texts, lang: document.documentElement.lang, otherLang };
}"""


def english_phrases() -> list[str]:
    """The English catalogue's words between its placeholders, but those the French catalogue uses too
    ("Python", "Jupyter", "Ctrl+L")."""
    french = json.dumps(read_catalogue("fr"), ensure_ascii=False)
    phrases = set()
    for message in read_catalogue("en").values():
        for text in message.values() if isinstance(message, dict) else [message]:
            for piece in re.split(r"\{\w+\}", text):
                piece = piece.strip(" :;,.()…·")
                if re.search(r"[A-Za-z]{2}", piece) and piece not in french:
                    phrases.add(piece)
    return sorted(phrases, key=len, reverse=True)


def english_in(texts: list[str]) -> list[tuple[str, str]]:
    """Each (phrase, text) where an English phrase of the catalogue stands as words in a text."""
    found = []
    for phrase in english_phrases():
        pattern = re.compile(rf"(?<![\w]){re.escape(phrase)}(?![\w])")
        found += [(phrase, text) for text in texts if pattern.search(text)]
    return found


@pytest.fixture(scope="module")
def french_site(tmp_path_factory) -> Path:
    """The scratch course, built in French (its cells run at build time, as every course's)."""
    project = make_project(tmp_path_factory.mktemp("french"), LESSON, language="fr", preload=["numpy"])
    shutil.rmtree(project / "site", ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict"], cwd=project, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return project / "site"


def state_is(tab, cell: str, pattern: str, attribute: str = "data-state", timeout_ms: int = steps.RUN_MS) -> str:
    return steps.wait_for(tab, cell, pattern, attribute, timeout_ms=timeout_ms)


@pytest.mark.parametrize("engine", ["chromium", "firefox"], indirect=True)
def test_a_french_course_speaks_french_from_run_to_offline(engine, tab, french_site, server_that_goes):
    url, gone = server_that_goes(french_site)
    tab.goto(url + PAGE)
    state_is(tab, "#cell-1", "^ready$", timeout_ms=steps.WAIT_MS)
    assert steps.wait_for(tab, "#cell-1 .course-cell__status", ".") == "Python est prêt"

    steps.run(tab, "#cell-1")  # a run: "Terminé en …"
    assert steps.wait_for(tab, "#cell-1 .course-cell__status", ".").startswith("Terminé en ")
    steps.run(tab, "#cell-2")  # an error: Python's traceback as Python writes it
    error = steps.wait_for(tab, "#cell-2 .course-out--error", ".")
    assert "ZeroDivisionError: division by zero" in error
    # A Stop that restarts Python (the page is not cross-origin isolated yet): the restart notice.
    steps.run(tab, "#cell-3", "while True:\n    pass", wait=False)
    state_is(tab, "#cell-3", "^running$")
    tab.click("#cell-3 .course-cell__button--stop")
    state_is(tab, "#cell-3", "^stopped$", "data-status")
    steps.wait_for(tab, "#cell-3 .course-cell__notice--stopped", "redémarré")

    # The exercise: the starter fails with Python's verdict in French, the solution passes.
    steps.exercise_starter_then_solution(tab, read_catalogue("fr")["exercise.passed"])
    tab.click('.course-exercise button[data-action="hint"]')
    # The quiz, wrong then right.
    french = read_catalogue("fr")
    steps.quiz_answers(tab, correct=french["quiz.correct"], incorrect=french["quiz.incorrect"])

    # The console, open, with a statement run.
    steps.open_console(tab)
    assert steps.console_send(tab, "6 * 7").strip() == "42"

    # Offline: the server is gone, and a cell needs a package never downloaded.
    gone()
    steps.run(tab, "#cell-1", "import matplotlib")
    notice = steps.wait_for(tab, "#cell-1 .course-out--error", ".")
    assert notice.startswith(read_catalogue("fr")["run.packages_failed"].split("{")[0]), notice

    page = tab.evaluate(COURSE_TEXT)
    assert page["lang"] == "fr"
    assert not page["otherLang"], page["otherLang"]
    assert not english_in(page["texts"]), english_in(page["texts"])
    # The worker's sentence about the download, and its reason, are French too (no English phrase).
    assert not english_in([notice]), english_in([notice])
    if engine.name == "chromium":
        found = [report("the French lesson, worked through", audit(tab.page))]
        assert not any(found), "\n".join(found)
