"""The class names and data attributes that the browser's scripts rely on.

They are listed once, in ``assets/js/dom.json``: the scripts import that file
and the build renders its markup with the same names.
"""

from __future__ import annotations

import json
from pathlib import Path

NAMES = json.loads((Path(__file__).parent / "assets" / "js" / "dom.json").read_text())
CELL: dict[str, str] = NAMES["cell"]
CELL_DATA: dict[str, str] = NAMES["cellData"]
INPUTS: dict[str, str] = NAMES["inputs"]
QUIZ: dict[str, str] = NAMES["quiz"]
QUIZ_DATA: dict[str, str] = NAMES["quizData"]
