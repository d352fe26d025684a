"""The learner's words that Python writes (exercise verdicts, figure descriptions, import notes).

The messages come from the site's catalogue (``course_site/catalogues/<language>.json``, see
``course_site.strings``): the browser's worker hands them over with `use` once the page sent them
(``bridge.use_strings``), the build's Node script at its start.  Where the package sits
beside the plugin (CPython: the tests, the doctests), English is read from there until then.

>>> t("exercise.passed")
'All checks passed.'
>>> t("exercise.undefined", name="period")
'`period` is not defined — did your code define it, and did you run it?'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

_ENGLISH = Path(__file__).resolve().parent.parent / "course_site" / "catalogues" / "en.json"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

_messages: dict[str, object] = json.loads(_ENGLISH.read_text(encoding="utf-8")) if _ENGLISH.is_file() else {}


def use(messages: Mapping[str, object]) -> None:
    """Write every later message from ``messages`` (a catalogue's ``messages``)."""
    global _messages
    _messages = dict(messages)


def t(key: str, /, **params: object) -> str:
    """The message ``key`` with ``params`` in its placeholders (the key itself if the catalogue lacks it).

    Python's own messages have no counts: a plural message takes its ``other`` form.
    """
    message = _messages.get(key, key)
    if isinstance(message, dict):
        message = message.get("other", key)
    return _PLACEHOLDER.sub(lambda match: str(params.get(match[1], match[0])), str(message))
