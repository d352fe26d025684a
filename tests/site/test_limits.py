"""The browser's limits on a run are written once (protocol.js) and the build uses the same."""

from __future__ import annotations

import re

from course_site import limits
from course_site.config import CourseConfig


def test_plugin_defaults_are_the_browsers_limits():
    defaults = {name: option.default for name, option in CourseConfig._schema}
    protocol = limits.PROTOCOL.read_text()
    written = re.search(r"DEFAULT_LIMITS = Object.freeze\(\{(.*?)\}\)", protocol)[1]
    assert written.split(",") == [
        f" maxLines: {defaults['output_max_lines']}",
        f" maxChars: {defaults['output_max_chars']}",
        f" timeLimitS: {defaults['time_limit']} ",
    ]


def test_the_numbers_are_written_once_in_the_browsers_protocol():
    protocol = limits.PROTOCOL.read_text()
    assert len(re.findall(r"\b2000\b", protocol)) == 1 and len(re.findall(r"\b200000\b", protocol)) == 1
    assert (limits.MAX_LINES, limits.MAX_CHARS, limits.TIME_LIMIT_S) == (2000, 200000, 0)
