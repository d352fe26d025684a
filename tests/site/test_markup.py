"""The HTML builder: attributes left out, bare or escaped; text escaped unless marked as trusted."""

from __future__ import annotations

from course_site.markup import Raw, tag, void


def test_attributes_and_text():
    attrs = {"hidden": True, "disabled": False, "title": None, "data-x": 'a"<b>'}
    assert (
        tag("p", attrs, "1 < 2", Raw("<em>ok</em>"), None).html
        == '<p hidden data-x="a&quot;&lt;b&gt;">1 &lt; 2<em>ok</em></p>'
    )
    assert void("input", {"type": "radio", "value": 0, "checked": False}).html == '<input type="radio" value="0">'
