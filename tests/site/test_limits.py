"""The browser's limits on a run are written once (assets/js/limits.json) and the build uses the same."""

from __future__ import annotations

import json
from pathlib import Path

from course_site import limits
from course_site.config import CourseConfig

JS = Path(limits.__file__).parent / "assets" / "js"


def test_plugin_defaults_are_the_browsers_limits():
    defaults = {name: option.default for name, option in CourseConfig._schema}
    written = json.loads((JS / "limits.json").read_text())
    assert (defaults["output_max_lines"], defaults["output_max_chars"], defaults["time_limit"]) == (
        written["maxLines"],
        written["maxChars"],
        written["timeLimitS"],
    )


def test_protocol_takes_its_default_limits_from_the_same_file():
    protocol = (JS / "protocol.js").read_text()
    assert 'import LIMITS from "./limits.json" with { type: "json" };' in protocol
    assert "DEFAULT_LIMITS = Object.freeze({ ...LIMITS })" in protocol
    assert "2000" not in protocol and "200000" not in protocol
