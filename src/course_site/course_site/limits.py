"""The browser's default limits on a run (output caps, time limit), as the build reads them.

They are written once, in ``assets/js/protocol.js`` (``DEFAULT_LIMITS``); the plugin's
options default to the same numbers, read from that line.
"""

from __future__ import annotations

import re
from pathlib import Path

PROTOCOL = Path(__file__).parent / "assets" / "js" / "protocol.js"
_LINE = re.compile(
    r"DEFAULT_LIMITS = Object\.freeze\(\{ maxLines: (?P<lines>\d+), maxChars: (?P<chars>\d+), "
    r"timeLimitS: (?P<seconds>\d+) \}\)"
)

_found = _LINE.search(PROTOCOL.read_text())
if _found is None:
    raise ImportError(f"{PROTOCOL}: no DEFAULT_LIMITS line of the expected form")
MAX_LINES = int(_found["lines"])
MAX_CHARS = int(_found["chars"])
TIME_LIMIT_S = int(_found["seconds"])
