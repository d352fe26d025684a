"""Math as MathML, made at build time: no script, no font download, no network.

``pymdownx.arithmatex`` (generic mode) wraps TeX in ``<span class="arithmatex">\\(…\\)</span>``
and ``<div class="arithmatex">\\[…\\]</div>``; `to_mathml` replaces each with the
MathML that ``latex2mathml`` writes, which Chromium, Firefox and Safari render
natively. TeX it cannot read is a `LessonError` at the line of the page where the
TeX is, with the snippet; a command it does not know (which it would show as
literal text) is reported through ``warn`` (a warning fails ``mkdocs build --strict``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html import unescape

from latex2mathml.converter import convert

from .errors import LessonError
from .math_spacing import space_like_tex

_INLINE = re.compile(r'<span class="arithmatex">\\\((?P<tex>.*?)\\\)</span>', re.DOTALL)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(?P<tex>.*?)\\\]</div>', re.DOTALL)
_UNKNOWN = re.compile(r"<m[io]>(?P<command>\\[A-Za-z]+)</m[io]>")  # latex2mathml keeps an unknown \command as text
_HINTS = {
    "NoAvailableTokensError": "it ends too early: a closing brace or an argument is missing",
    "MissingSuperScriptOrSubscriptError": "a ^ or _ has nothing after it",
    "MissingEndError": "a \\begin{...} has no \\end{...}",
    "ExtraLeftOrMissingRightError": "a \\left has no \\right",
    "DenominatorNotFoundError": "a \\frac has no denominator: \\frac{a}{b}",
    "NumeratorNotFoundError": "a \\frac has no numerator: \\frac{a}{b}",
    "DoubleSuperscriptsError": "a double superscript: group it in braces, x^{a^b}",
    "DoubleSubscriptsError": "a double subscript: group it in braces, x_{a_b}",
}


@dataclass(frozen=True)
class Source:
    """Where a page's TeX comes from: its Markdown, the file, and the file's line of the Markdown's first line."""

    markdown: str
    path: str
    first_line: int = 1

    def line_of(self, tex: str) -> int | None:
        """The file's line where ``tex`` first appears (None if the Markdown does not hold it as written)."""
        found = self.markdown.find(tex)
        return None if found < 0 else self.first_line + self.markdown.count("\n", 0, found)


def to_mathml(html: str, source: Source, warn: Callable[[str], None]) -> str:
    """Replace arithmatex's TeX spans and divs in ``html`` by MathML.

    Raises `LessonError` at the TeX's line for TeX that cannot be converted.
    """
    html = _BLOCK.sub(lambda m: _math(m["tex"], "block", source, warn), html)
    return _INLINE.sub(lambda m: _math(m["tex"], "inline", source, warn), html)


def _math(tex_html: str, display: str, source: Source, warn: Callable[[str], None]) -> str:
    tex = unescape(tex_html).strip()
    try:
        mathml = convert(tex, display=display)
    except Exception as error:  # latex2mathml raises many kinds, not all its own
        name = type(error).__name__
        why = _HINTS.get(name) or f"latex2mathml cannot read it ({name}{': ' + str(error) if str(error) else ''})"
        raise LessonError(source.path, source.line_of(tex), f"the TeX `{tex}` cannot be rendered: {why}") from None
    for command in dict.fromkeys(m["command"] for m in _UNKNOWN.finditer(mathml)):
        where = f"{source.path}:{source.line_of(tex)}" if source.line_of(tex) else source.path
        warn(
            f"{where}: unknown TeX command {command} in `{tex}`: it would show as literal text "
            "(use a command latex2mathml knows, e.g. \\operatorname{name} for a function name)"
        )
    mathml = space_like_tex(mathml)
    return f'<div class="course-math">{mathml}</div>' if display == "block" else mathml
