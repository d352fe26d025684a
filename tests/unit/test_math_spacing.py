"""TeX's spacing in the MathML the build writes (course_site.mathml): function application, signs, slashes, primes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from course_site.mathml import Source, to_mathml

NS = "{http://www.w3.org/1998/Math/MathML}"


def mathml(tex: str) -> ET.Element:
    html = to_mathml(f'<span class="arithmatex">\\({tex}\\)</span>', Source(tex, "lesson.md"), pytest.fail)
    return ET.fromstring(html)


def row(tex: str) -> list[tuple[str, str, dict[str, str]]]:
    """The first row's children as (element, text, attributes)."""
    first = mathml(tex).find(f"{NS}mrow")
    return [(child.tag.removeprefix(NS), "".join(child.itertext()), child.attrib) for child in first]


def test_a_function_name_is_applied_to_its_argument_with_a_thin_space():
    items = row(r"\cos m\theta_i")
    assert items[0][:2] == ("mi", "cos")
    assert items[1] == ("mo", "\u2061", {"lspace": "0", "rspace": "0.1667em"})
    assert items[2][:2] == ("mi", "m")


def test_a_function_before_a_bracket_gets_no_space():
    items = row(r"\sin(\omega_i p)")
    assert items[1] == ("mo", "\u2061", {"lspace": "0", "rspace": "0"})
    assert items[2][1] == "("


@pytest.mark.parametrize("tex", [r"\max_i x", r"\cos^2 x", r"\operatorname{softmax} x", r"\log 2"])
def test_scripted_and_named_operators_are_functions_too(tex: str):
    items = row(tex)
    assert items[1][:2] == ("mo", "\u2061") and items[1][2]["rspace"] == "0.1667em"


@pytest.mark.parametrize("tex", [r"(\sin, \cos)", r"\sin = f", r"x \mapsto \cos"])
def test_a_function_name_before_punctuation_a_closing_bracket_or_a_relation_is_not_applied(tex: str):
    assert "\u2061" not in "".join(mathml(tex).itertext())


def test_a_name_that_is_no_function_is_left_alone():
    assert "\u2061" not in "".join(mathml(r"\mathrm{PE}(x) + m\theta").itertext())


@pytest.mark.parametrize("tex", ["[-1, 1]", "x = -1", "-x^2", r"\left(-x\right)", "(a, -b)"])
def test_a_sign_is_tight_against_its_operand(tex: str):
    signs = [element for element in mathml(tex).iter(f"{NS}mo") if element.text == "\u2212"]
    assert signs and all(sign.get("lspace") == sign.get("rspace") == "0" for sign in signs)


@pytest.mark.parametrize("tex", ["a - b", "f(x) - 1", "2i/d - 1"])
def test_a_binary_minus_keeps_its_spaces(tex: str):
    signs = [element for element in mathml(tex).iter(f"{NS}mo") if element.text == "\u2212"]
    assert signs and all("lspace" not in sign.attrib for sign in signs)


def test_a_negative_thin_space_is_a_length():
    spaces = list(mathml(r"\sin\!\left(x\right)").iter(f"{NS}mspace"))
    assert [space.get("width") for space in spaces] == ["-0.1667em"]


@pytest.mark.parametrize("tex", ["L/4", r"\theta'/\theta", r"1/\sqrt{d_k}", "2i/d - 1"])
def test_a_slash_is_set_tight_as_an_ordinary_symbol(tex: str):
    slashes = [element for element in mathml(tex).iter(f"{NS}mo") if element.text == "/"]
    assert slashes and all(slash.get("lspace") == slash.get("rspace") == "0" for slash in slashes)


def test_a_prime_follows_its_base_instead_of_sitting_above_it():
    items = row(r"\theta' / \theta")
    assert items[0][:2] == ("mrow", "θ′")
    first = mathml(r"\theta'").find(f"{NS}mrow/{NS}mrow")
    assert [child.tag.removeprefix(NS) for child in first] == ["mi", "mo"]
    assert first[1].attrib == {"lspace": "0", "rspace": "0"}
    assert mathml(r"\theta'").find(f".//{NS}msup") is None


@pytest.mark.parametrize("tex", [r"\theta'_i", r"\theta_i'"])
def test_a_primed_subscripted_symbol_keeps_its_subscript_and_takes_the_prime_after(tex: str):
    (primed,) = mathml(tex).find(f"{NS}mrow")
    sub, prime = primed
    assert sub.tag == f"{NS}msub" and "".join(sub.itertext()) == "θi"
    assert (prime.tag, prime.text) == (f"{NS}mo", "′")


def test_a_superscript_that_is_not_only_primes_stays_a_superscript():
    assert mathml("x'^2").find(f".//{NS}msup") is not None
    assert mathml("x^2").find(f".//{NS}msup") is not None
