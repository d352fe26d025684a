"""The plugin's options are documented once, in the author guide's table: each option of config.py, its default."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config import config_options

from course_site.config import CourseConfig

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "authors.md"


def as_documented(option) -> str:
    """An option's default as the table writes it."""
    default = option.default
    if default is None:
        return "unset" if isinstance(option, config_options.Optional) else "required"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if default == "":
        return '`""`'
    return f"`{default}`"


def test_the_author_guides_table_lists_every_option_with_its_default():
    section = GUIDE.read_text().split("### The `course` plugin's options\n")[1].split("\n### ")[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.MULTILINE))
    assert rows == {name: as_documented(option) for name, option in CourseConfig._schema}
