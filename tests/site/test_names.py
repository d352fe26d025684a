"""Which names a cell defines (names.py), as the build writes them into each cell for the NameError hint."""

from __future__ import annotations

import doctest

import pytest

from course_site import names
from course_site.names import defined_names


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import numpy as np\nimport os.path\nfrom posenc import rope as r, alibi", ["alibi", "np", "os", "r"]),
        ("a = b = 1\nc, (d, *e) = f\ng: int = 3\nh += 1\nx.y = 2\nz[0] = 3", ["a", "b", "c", "d", "e", "g", "h"]),
        ("def f(p):\n    inner = p\nclass C:\n    attr = 1\nasync def g(): pass", ["C", "f", "g"]),
        ("for i, v in pairs:\n    last = v\nwith open(p) as fh:\n    s = fh.read()", ["fh", "i", "last", "s", "v"]),
        ("if ok:\n    w = 1\nelse:\n    w = 2\ntry:\n    t = 1\nexcept E as err:\n    pass", ["err", "t", "w"]),
        ("[k for k in ks]\n(lambda q: q)(1)\nif (n := 10) > 5: pass", ["n"]),
        ("from posenc import *\nprint(1)", []),
        ("def broken(:\n", []),
    ],
)
def test_defined_names(source: str, expected: list[str]):
    assert defined_names(source) == expected


def test_setup_and_code_both_count():
    assert defined_names("import numpy as np", "pe = np.ones(3)") == ["np", "pe"]


def test_doctests():
    assert doctest.testmod(names).failed == 0
