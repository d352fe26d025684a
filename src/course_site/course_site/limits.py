"""The browser's default limits on a run (output caps, time limit), as the build reads them.

They are written once, in ``assets/js/limits.json``: ``protocol.js`` imports that file
and the plugin's options default to the same numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

DEFAULTS: dict[str, int] = json.loads((Path(__file__).parent / "assets" / "js" / "limits.json").read_text())
MAX_LINES = DEFAULTS["maxLines"]
MAX_CHARS = DEFAULTS["maxChars"]
TIME_LIMIT_S = DEFAULTS["timeLimitS"]
