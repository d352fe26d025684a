"""The course's catalogues (course_site/catalogues/): every language has every key, every key is used,
and an author's overrides are checked at their line in mkdocs.yml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel import Locale

from course_site import strings
from course_site.cells import _BUTTONS
from course_site.errors import SettingsError
from course_site.strings import PLURAL_FORMS, Strings, key_lines, missing_and_unknown, read_catalogue

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "src" / "course_site"
ENGLISH = read_catalogue("en")
LANGUAGES = strings.shipped_languages()

# Keys the code names by a pattern rather than in full: (pattern in the code, the keys it makes).
BUILT_KEYS = {
    *(f"cell.{kind}" for kind, _ in _BUTTONS),
    *(f"cell.{kind}_title" for kind, _ in _BUTTONS),
    "figure.x_axis",
    "figure.y_axis",
}


def test_english_french_and_german_are_shipped():
    assert LANGUAGES[0] == "en"
    assert {"en", "fr", "de"} <= set(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_key_in_englishs_order(language):
    assert list(read_catalogue(language)) == list(ENGLISH)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_keeps_englishs_placeholders(language):
    for key, message in read_catalogue(language).items():
        missing, unknown = missing_and_unknown(ENGLISH[key], message)
        assert not missing and not unknown, (language, key, missing, unknown)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_message_that_counts_has_its_languages_plural_forms(language):
    for key, message in read_catalogue(language).items():
        assert isinstance(message, dict) == isinstance(ENGLISH[key], dict), (language, key)
        if isinstance(message, dict):
            categories = {*Locale.parse(language.replace("-", "_")).plural_form.tags, "other"}  # CLDR's
            assert set(message) == categories, (language, key, sorted(message))
            assert set(message) <= set(PLURAL_FORMS)


def test_every_key_is_used_by_the_code():
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for path in [*SOURCES.rglob("*.py"), *SOURCES.rglob("*.js"), *SOURCES.rglob("*.mjs")]
        if "vendor" not in path.parts and path.name != "strings.py"
    )
    quoted = set(re.findall(r"""["']([a-z_]+\.[a-z_]+)["']""", code))
    unused = set(ENGLISH) - quoted - BUILT_KEYS
    assert not unused, sorted(unused)
    asked = set(re.findall(r"""\b(?:t|s|tParts|learnerError|keyed)\((?:[\w.]+, )?["']([a-z_]+\.[a-z_]+)["']""", code))
    unknown = asked - set(ENGLISH)
    assert not unknown, f"keys the code asks for that en.json lacks: {sorted(unknown)}"


def test_numbers_and_sizes_are_written_in_the_pages_language():
    french, english = Strings.for_language("fr"), Strings.for_language("en")
    assert french.megabytes(8.84) == "8,8\u202fMo"  # CLDR's narrow no-break space
    assert english.megabytes(8.84) == "8.8 MB"
    assert french.format(1234.5) == "1\u202f234,5"
    assert french("exercise.count", solved=1, count=1).startswith("1 ")  # "1 … sur 1" in the singular
    assert english("exercise.count", solved=2, count=3) == "2 of 3 exercises solved"


@pytest.mark.parametrize(
    ("language", "served"), [("fr", "fr"), ("fr-CA", "fr"), ("de_AT", "de"), ("pt-BR", "en"), ("xx", "en")]
)
def test_a_regional_language_falls_back_to_its_base_then_english(language, served):
    chosen, messages = strings.catalogue_for(language)
    assert chosen == served
    assert messages["cell.run"] == read_catalogue(served)["cell.run"]


def test_an_author_overrides_a_string_and_a_plural():
    site = Strings.for_language(
        "fr", {"cell.run": "Lancer", "exercise.count": {"one": "{solved}/{count} résolu", "other": "{solved}/{count}"}}
    )
    assert site("cell.run") == "Lancer"
    assert site("exercise.count", solved=0, count=1) == "0/1 résolu"
    assert site("exercise.count", solved=2, count=5) == "2/5"


CONFIG = """\
site_name: Un cours
theme:
  name: material
  language: fr
plugins:
  - course:
      strings:
        cell.run: Lancer
        "cell.nope": Rien
        run.done: Terminé
        exercise.count:
          other: "{count}"
"""


def test_key_lines_finds_each_override_in_mkdocs_yml():
    lines = key_lines(CONFIG)
    assert (lines["cell.run"], lines["cell.nope"], lines["run.done"], lines["exercise.count"]) == (8, 9, 10, 11)


def where(key: str) -> str:
    return f"mkdocs.yml:{key_lines(CONFIG).get(key)}"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"cell.nope": "Rien"}, "mkdocs.yml:9: strings: unknown key 'cell.nope'"),
        ({"run.done": "Terminé"}, "mkdocs.yml:10: strings: 'run.done' lacks the placeholder {duration}"),
        ({"run.done": "Fait en {duration} {when}"}, "mkdocs.yml:10: strings: 'run.done' has {when}"),
        ({"exercise.count": {"other": "{count}"}}, "mkdocs.yml:11: strings: 'exercise.count' lacks the placeholder"),
        ({"exercise.count": "{solved}/{count}"}, "mkdocs.yml:11: strings: 'exercise.count' counts"),
        ({"cell.run": 3}, "mkdocs.yml:8: strings: 'cell.run' must be a string"),
    ],
)
def test_a_wrong_override_fails_at_its_line(overrides, message):
    with pytest.raises(SettingsError) as raised:
        Strings.for_language("fr", overrides, where)
    assert str(raised.value).startswith(message), str(raised.value)


def test_the_page_json_cannot_close_its_script():
    site = Strings.for_language("en", {"cell.run": "</script><b>"})
    assert "</script>" not in site.page_json()
