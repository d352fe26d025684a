"""The course's words in the learner's language: one catalogue per language, keyed by name.

``catalogues/<language>.json`` holds every string the course adds to a page (its buttons,
statuses, notices, verdicts, labels), the page's scripts and the Python worker included.
A value is a string with ``{name}`` placeholders, or, for a string that counts, its CLDR
plural forms (``{"one": "{count} exercise", "other": "{count} exercises"}``), chosen by
``count``.  English is complete and the fallback: a language's file may only translate.

The site's language is Material's ``theme.language`` (``pt-BR`` falls back to ``pt``, then
English); an author overrides or adds any string under ``plugins: - course: strings:``; an
unknown key, or an override that drops a placeholder, fails the build at its line in mkdocs.yml.

Numbers in placeholders are written in the page's language (babel here, ``Intl`` in the page).

>>> en = Strings.for_language("en")
>>> en("exercise.count", solved=1, count=3)
'1 of 3 exercises solved'
>>> Strings.for_language("fr").megabytes(8.8)
'8,8\\u202fMo'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal
from babel.units import format_unit

from .errors import SettingsError

CATALOGUES = Path(__file__).parent / "catalogues"
FALLBACK = "en"
PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
BUILD_ONLY = ("notebook.", "end.")  # written into the pages and notebooks by the build: not sent to the page

Message = str | dict[str, str]
"""A catalogue's value: a string, or its plural forms (``other`` required)."""


def placeholders(message: Message) -> set[str]:
    """The ``{name}`` placeholders of a message (of all its plural forms)."""
    texts = message.values() if isinstance(message, dict) else [message]
    return {name for text in texts for name in _PLACEHOLDER.findall(text)}


@cache
def read_catalogue(language: str) -> dict[str, Message]:
    """``catalogues/<language>.json`` (its keys in the file's order)."""
    return json.loads((CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))


def shipped_languages() -> list[str]:
    """The languages with a catalogue, English first."""
    names = sorted(path.stem for path in CATALOGUES.glob("*.json"))
    return [FALLBACK, *(name for name in names if name != FALLBACK)]


def catalogue_for(language: str) -> tuple[str, dict[str, Message]]:
    """The shipped language that serves ``language`` (``de-CH`` → ``de``, unknown → ``en``) and its
    messages, English filling any key its file lacks."""
    shipped = shipped_languages()
    chosen = next((name for name in _candidates(language) if name in shipped), FALLBACK)
    return chosen, {**read_catalogue(FALLBACK), **read_catalogue(chosen)}


def _candidates(language: str) -> list[str]:
    """``pt-BR`` → ``["pt-BR", "pt_BR", "pt"]``: the exact file, then the base language."""
    return [language, language.replace("-", "_"), re.split(r"[-_]", language)[0]]


@dataclass(frozen=True)
class Strings:
    """The site's catalogue: ``strings(key, **params)`` is one message in its language."""

    language: str  # the page's language, as theme.language names it (``fr``, ``pt-BR``)
    messages: Mapping[str, Message]

    @classmethod
    def for_language(cls, language: str, overrides: Mapping[str, object] | None = None, where=None) -> Strings:
        """The catalogue for ``language`` with the author's ``overrides`` checked and applied.

        ``where(key)`` names an override's place (``mkdocs.yml:12``) in its errors. Raises
        `SettingsError` for an unknown key, a value that is not a string (or plural forms), or an
        override without one of the English message's placeholders (or with one it does not know).
        """
        _, messages = catalogue_for(language)
        where = where or (lambda _: "mkdocs.yml")
        checked = {key: check_override(key, value, where) for key, value in (overrides or {}).items()}
        return cls(language, {**messages, **checked})

    def __call__(self, key: str, /, **params: object) -> str:
        """The message ``key`` with ``params`` in its placeholders (one not given stays ``{name}``, for
        `course_end` to put an element there); a plural message by ``params["count"]``."""
        message = self.messages[key]
        if isinstance(message, dict):
            message = message.get(self.plural_form(params["count"]), message["other"])
        fill = lambda match: self.format(params[match[1]]) if match[1] in params else match[0]  # noqa: E731
        return _PLACEHOLDER.sub(fill, message)

    def plural_form(self, count) -> str:
        """CLDR's plural category of ``count`` in this language (``one``, ``other``, …)."""
        return _locale(self.language).plural_form(abs(count))

    def format(self, value: object) -> str:
        """A number as the language writes it (``1 234,5`` in French); anything else as ``str``."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return str(value)
        return format_decimal(value, locale=_locale(self.language))

    def megabytes(self, size: float) -> str:
        """A size in megabytes, one decimal, as the language writes it (``8.8 MB``, ``8,8 Mo``)."""
        return format_unit(size, "digital-megabyte", length="short", format="#,##0.0", locale=_locale(self.language))

    def page_json(self) -> str:
        """The catalogue for the page's scripts (strings.js): ``{"lang": …, "messages": {…}}``, safe inside
        a ``<script type="application/json">`` (no ``</`` in it)."""
        messages = {key: text for key, text in self.messages.items() if not key.startswith(BUILD_ONLY)}
        text = json.dumps({"lang": self.language, "messages": messages}, ensure_ascii=False, separators=(",", ":"))
        return text.replace("</", "<\\/")

    def page_script(self) -> str:
        """The ``<script type="application/json" id="course-strings">`` that the page's scripts read (strings.js)."""
        return f'<script type="application/json" id="course-strings">{self.page_json()}</script>'


@cache
def _locale(language: str) -> Locale:
    """babel's locale for ``language``, or English's when babel does not know it."""
    try:
        return Locale.parse(language, sep="-" if "-" in language else "_")
    except (ValueError, UnknownLocaleError):
        return Locale.parse(FALLBACK)


def check_override(key: str, value: object, where) -> Message:
    """The author's ``value`` for ``key``, checked against the English message (see `Strings.for_language`)."""
    english = read_catalogue(FALLBACK)
    if key not in english:
        near = [name for name in english if name.split(".")[0] == key.split(".")[0]][:5]
        hint = (
            f" (strings of that group: {', '.join(near)})"
            if near
            else " (the keys are in course_site/catalogues/en.json)"
        )
        raise SettingsError(f"{where(key)}: strings: unknown key {key!r}{hint}")
    if isinstance(english[key], dict):
        if not (isinstance(value, dict) and "other" in value and set(value) <= set(PLURAL_FORMS)):
            raise SettingsError(
                f"{where(key)}: strings: {key!r} counts, so it needs plural forms "
                f"({', '.join(PLURAL_FORMS)}; 'other' at least), not {value!r}"
            )
        if not all(isinstance(text, str) for text in value.values()):
            raise SettingsError(f"{where(key)}: strings: {key!r}: every plural form must be a string")
    elif not isinstance(value, str):
        raise SettingsError(f"{where(key)}: strings: {key!r} must be a string, not {value!r}")
    missing, unknown = missing_and_unknown(english[key], value)
    if missing:
        raise SettingsError(
            f"{where(key)}: strings: {key!r} lacks the placeholder {_braced(missing)} of {english[key]!r}"
        )
    if unknown:
        raise SettingsError(f"{where(key)}: strings: {key!r} has {_braced(unknown)}, which {key!r} does not fill")
    return value


def missing_and_unknown(english: Message, message: Message) -> tuple[set[str], set[str]]:
    """The placeholders of ``english`` that ``message`` lacks, and those it has that ``english`` lacks.
    A plural message may leave its count out (``"one": "a single exercise"``)."""
    wanted, found = placeholders(english), placeholders(message)
    if isinstance(english, dict):
        wanted -= {"count"}
    return wanted - found, found - placeholders(english)


def _braced(names: set[str]) -> str:
    return ", ".join(f"{{{name}}}" for name in sorted(names))


def key_lines(config_text: str) -> dict[str, int]:
    """The line of each key under the course plugin's ``strings:`` in mkdocs.yml's text (1-based)."""
    lines = config_text.splitlines()
    start = next((n for n, text in enumerate(lines) if re.match(r"\s+strings:\s*$", text)), None)
    if start is None:
        return {}
    indent = len(lines[start]) - len(lines[start].lstrip())
    found = {"": start + 1}
    for n in range(start + 1, len(lines)):
        text = lines[n]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if len(text) - len(text.lstrip()) <= indent:
            break
        match = re.match(r"\s+[\"']?([\w.-]+)[\"']?\s*:", text)
        if match:
            found.setdefault(match[1], n + 1)
    return found


def parts(message: str, **elements: object) -> list:
    """``message`` split at its ``{name}`` markers, each replaced by ``elements[name]`` (an element to
    put there, such as a link); the text between them as it is."""
    pieces = _PLACEHOLDER.split(message)
    return [elements[piece] if k % 2 else piece for k, piece in enumerate(pieces) if piece]


_current: Strings | None = None


def use(strings: Strings) -> None:
    """Make ``strings`` the build's catalogue (the plugin, once its config is read): what `s` writes."""
    global _current
    _current = strings


def current() -> Strings:
    """The build's catalogue (English until the plugin chose one)."""
    global _current
    if _current is None:
        _current = Strings.for_language(FALLBACK)
    return _current


def s(key: str, /, **params: object) -> str:
    """The message ``key`` of the build's catalogue: ``s("cell.run")``."""
    return current()(key, **params)
