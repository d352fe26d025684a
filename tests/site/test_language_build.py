"""A course built in French (``theme.language: fr``): the build's words are French, and an author's
``strings:`` override that is wrong fails the build at its line in mkdocs.yml."""

from __future__ import annotations

import json

import yaml
from site_project import EXERCISE_PAGE, build, failing_build, lesson_html, make_project

from course_site.strings import read_catalogue

FRENCH = read_catalogue("fr")


def as_yaml(project, **course) -> None:
    """Rewrite the project's mkdocs.yml as YAML (one option per line), with more ``course`` options."""
    config = json.loads((project / "mkdocs.yml").read_text())
    config["plugins"][0]["course"].update(course)
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))


def test_a_french_course_is_built_in_french(tmp_path):
    project = make_project(tmp_path, EXERCISE_PAGE, language="fr", execute=False)
    as_yaml(project, strings={"cell.run": "Lancer"})
    done = build(project)
    assert done.returncode == 0, done.stderr
    html = lesson_html(project)
    assert '<html lang="fr"' in html
    assert ">Lancer</span>" in html and ">Run</span>" not in html
    assert f">{FRENCH['exercise.show_solution']}</button>" in html
    assert FRENCH["cell.keys"] in html
    catalogue = html.split('<script type="application/json" id="course-strings">')[1].split("</script>")[0]
    sent = json.loads(catalogue)
    assert sent["lang"] == "fr" and sent["messages"]["cell.run"] == "Lancer"
    assert sent["messages"]["exercise.passed"] == FRENCH["exercise.passed"]
    assert not any(key.startswith("notebook.") for key in sent["messages"])  # the build's own words stay there
    notebook = json.loads((project / "site/lessons/lesson.ipynb").read_text())
    text = json.dumps(notebook, ensure_ascii=False)
    assert FRENCH["notebook.exercise"] in text and FRENCH["exercise.passed"] in text


def test_an_unknown_key_fails_the_build_at_its_line(tmp_path):
    project = make_project(tmp_path, "# Leçon\n", language="fr", execute=False)
    as_yaml(project, strings={"cell.run": "Lancer", "cell.rnu": "Lancer"})
    lines = (project / "mkdocs.yml").read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "cell.rnu" in text)
    assert f"mkdocs.yml:{line}: strings: unknown key 'cell.rnu'" in failing_build(project)


def test_an_override_without_a_placeholder_fails_the_build_at_its_line(tmp_path):
    project = make_project(tmp_path, "# Leçon\n", language="fr", execute=False)
    as_yaml(project, strings={"run.done": "Terminé"})
    lines = (project / "mkdocs.yml").read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "run.done" in text)
    stderr = failing_build(project)
    assert f"mkdocs.yml:{line}: strings: 'run.done' lacks the placeholder {{duration}}" in stderr
