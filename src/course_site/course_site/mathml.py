"""Math as MathML, made at build time: no script, no font download, no network.

``pymdownx.arithmatex`` (generic mode) wraps TeX in ``<span class="arithmatex">\\(…\\)</span>``
and ``<div class="arithmatex">\\[…\\]</div>``; `to_mathml` replaces each with the
MathML that ``latex2mathml`` writes, which Chromium, Firefox and Safari render
natively.
"""

from __future__ import annotations

import re
from html import unescape

from latex2mathml.converter import convert

_INLINE = re.compile(r'<span class="arithmatex">\\\((?P<tex>.*?)\\\)</span>', re.DOTALL)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(?P<tex>.*?)\\\]</div>', re.DOTALL)


def to_mathml(html: str) -> str:
    """Replace arithmatex's TeX spans and divs in ``html`` by MathML."""
    html = _BLOCK.sub(lambda m: _math(m["tex"], "block"), html)
    return _INLINE.sub(lambda m: _math(m["tex"], "inline"), html)


def _math(tex_html: str, display: str) -> str:
    mathml = convert(unescape(tex_html).strip(), display=display)
    return f'<div class="course-math">{mathml}</div>' if display == "block" else mathml
