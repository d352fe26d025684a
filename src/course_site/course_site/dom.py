"""The class names and data attributes that the browser's scripts rely on.

They are listed once, in ``assets/js/contract.json`` (``contract.py``): the scripts read that
file and the build renders its markup with the same names.
"""

from __future__ import annotations

from .contract import CONTRACT

CELL: dict[str, str] = CONTRACT["cell"]
CELL_DATA: dict[str, str] = CONTRACT["cellData"]
INPUTS: dict[str, str] = CONTRACT["inputs"]
QUIZ: dict[str, str] = CONTRACT["quiz"]
QUIZ_DATA: dict[str, str] = CONTRACT["quizData"]
