"""TeX's spacing in the MathML that ``latex2mathml`` writes, which browsers lay out as MathML Core.

latex2mathml writes ``\\cos m\\theta`` as ``<mi>cos</mi><mi>m</mi>…``, which reads "cosmθ",
and a minus after an opening bracket or a relation as an infix operator, spaced like
``a - b``. TeX spaces an operator name (``\\cos``, ``\\log``, ``\\max``,
``\\operatorname{…}``) from an argument that follows it by a thin space, and none from
a bracket; and it sets a ``-`` or ``+`` with nothing, an opening bracket, a relation
or punctuation before it as a sign, tight against its operand; a slash is an ordinary
symbol to TeX (``L/4``), which MathML spaces like a binary operator. latex2mathml also
writes ``\\theta'`` as a superscript ``′``, which browsers draw small and high above the
``θ`` (TeX's ``\\prime`` is a glyph made for that place; a text prime is already raised).
`space_like_tex` gives the MathML the same: an invisible function application (U+2061)
after each function name, carrying the thin space when the argument is no bracket,
``lspace="0" rspace="0"`` on a sign and on a slash, and a prime written after its base
(after its subscript, ``θᵢ′``) instead of above it. It also writes ``\\!``'s
``negativethinmathspace`` (a name MathML Core does not know) as a length.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

MATHML = "http://www.w3.org/1998/Math/MathML"
_NS = f"{{{MATHML}}}"
FUNCTION_APPLICATION = "\u2061"
THIN_SPACE = "0.1667em"  # \, : 3mu
_NAMED_SPACES = {"negativethinmathspace": "-0.1667em", "thinmathspace": THIN_SPACE}
# TeX's operator names (plain TeX and amsmath's \operatorname), as latex2mathml writes them.
FUNCTIONS = frozenset(
    "arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim liminf "
    "limsup ln log max min Pr sec sin sinh sup tan tanh".split()
)
_SIGNS = frozenset("\u2212+-\u00b1\u2213")
_PRIMES = frozenset("\u2032\u2033\u2034\u2057")
_ORDINARY = frozenset("/")  # TeX's class Ord among what latex2mathml writes as <mo>
_OPENING = frozenset("([{\u27e8\u2308\u230a|\u2016")
_CLOSING = frozenset(")]}\u27e9\u2309\u230b|\u2016!\u2032")
_SCRIPTED = ("msub", "msup", "msubsup", "munder", "mover", "munderover")

ET.register_namespace("", MATHML)


def space_like_tex(mathml: str) -> str:
    """Return ``mathml`` (one ``<math>`` element) spaced as TeX sets it (see the module's docstring)."""
    root = ET.fromstring(mathml)
    for parent in list(root.iter()):
        _primes_after_their_base(parent)
    for parent in list(root.iter()):
        _space_children(parent)
    for space in root.iter(f"{_NS}mspace"):
        width = space.get("width")
        if width in _NAMED_SPACES:
            space.set("width", _NAMED_SPACES[width])
    return ET.tostring(root, encoding="unicode")


def _primes_after_their_base(parent: ET.Element) -> None:
    """``<msup>θ ′</msup>`` -> ``<mrow>θ <mo>′</mo></mrow>``;
    ``<msubsup>θ i ′</msubsup>`` -> ``<mrow><msub>θ i</msub> <mo>′</mo></mrow>``."""
    for k, child in enumerate(list(parent)):
        name = _local(child)
        if name not in ("msup", "msubsup") or not _only_primes(child[-1]):
            continue
        base = child[0] if name == "msup" else ET.Element(f"{_NS}msub")
        if name == "msubsup":
            base.extend(child[:2])
        prime = ET.Element(f"{_NS}mo", {"lspace": "0", "rspace": "0"})
        prime.text = _text(child[-1])
        row = ET.Element(f"{_NS}mrow")
        row.extend([base, prime])
        row.tail = child.tail
        parent.remove(child)
        parent.insert(k, row)


def _only_primes(element: ET.Element) -> bool:
    return _local(element) in ("mi", "mo") and bool(_text(element)) and set(_text(element)) <= _PRIMES


def _space_children(parent: ET.Element) -> None:
    children = list(parent)
    for k, child in enumerate(children):
        before = children[k - 1] if k else None
        if (_is_sign(child) and _starts_operand(before, parent, k)) or _is_ordinary(child):
            child.set("lspace", "0")
            child.set("rspace", "0")
    for k in reversed(range(len(children))):
        child, after = children[k], _next_visible(children, k)
        if _is_function(child) and _takes_argument(after) and _local(parent) not in (*_SCRIPTED, "mfrac"):
            apply = ET.Element(f"{_NS}mo", {"lspace": "0", "rspace": "0" if _opens(after) else THIN_SPACE})
            apply.text = FUNCTION_APPLICATION
            parent.insert(k + 1, apply)


def _local(element: ET.Element) -> str:
    return element.tag.removeprefix(_NS)


def _text(element: ET.Element) -> str:
    return "".join(element.itertext()).strip()


def _is_sign(element: ET.Element) -> bool:
    return _local(element) == "mo" and _text(element) in _SIGNS


def _is_ordinary(element: ET.Element) -> bool:
    return _local(element) == "mo" and _text(element) in _ORDINARY


def _starts_operand(before: ET.Element | None, parent: ET.Element, k: int) -> bool:
    """Whether a sign at child ``k`` of ``parent`` begins an operand, as TeX decides (a Bin atom turned Ord)."""
    if before is None:
        return _local(parent) in ("mrow", "math", "mtd", "mstyle", "mpadded", "msqrt")
    if _local(before) == "mspace":
        return False
    return _local(before) == "mo" and _text(before) not in _CLOSING and _text(before) != FUNCTION_APPLICATION


def _is_function(element: ET.Element) -> bool:
    name = _local(element)
    if name in _SCRIPTED and len(element):
        return _is_function(element[0])
    if name == "mi":
        return _text(element) in FUNCTIONS
    return name == "mo" and _text(element).isalpha() and len(_text(element)) > 1


def _next_visible(children: list[ET.Element], k: int) -> ET.Element | None:
    for child in children[k + 1 :]:
        if _local(child) != "mspace":
            return child
    return None


def _takes_argument(after: ET.Element | None) -> bool:
    """Whether a function name followed by ``after`` is applied to it: not at the end of a row, nor before
    punctuation, a closing bracket or a relation (``(\\sin, \\cos)``, ``\\sin = …``: TeX adds no space there)."""
    if after is None:
        return False
    if _local(after) != "mo":
        return True
    text = _text(after)
    return _opens(after) or text in _SIGNS or (text.isalpha() and len(text) > 1)


def _opens(element: ET.Element) -> bool:
    """Whether ``element`` begins with an opening bracket (``(x)``, ``\\left(…\\right)``)."""
    while _local(element) == "mrow" and len(element):
        element = element[0]
    return _local(element) == "mo" and _text(element) in _OPENING
