"""The limits on a run are written once (contract.json); the plugin's defaults and the scripts use them."""

from __future__ import annotations

import re
from pathlib import Path

from course_site import limits
from course_site.config import CourseConfig
from course_site.contract import CONTRACT, CONTRACT_FILE

JS = Path(CONTRACT_FILE).parent


def test_plugin_defaults_are_the_contracts_limits():
    defaults = {name: option.default for name, option in CourseConfig._schema}
    assert CONTRACT["limits"] == {
        "maxLines": defaults["output_max_lines"],
        "maxChars": defaults["output_max_chars"],
        "timeLimitS": defaults["time_limit"],
    }
    assert (limits.MAX_LINES, limits.MAX_CHARS, limits.TIME_LIMIT_S) == (2000, 200000, 0)


def test_no_script_writes_the_numbers_again():
    scripts = {path: path.read_text() for path in JS.rglob("*.js")}
    again = [str(path) for path, text in scripts.items() if re.search(r"(maxLines|maxChars|timeLimitS): \d", text)]
    assert again == []
