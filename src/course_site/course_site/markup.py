"""A tiny HTML builder: every attribute and text is escaped, trusted HTML is explicit."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Raw:
    """HTML that is already safe (rendered Markdown, highlighted code)."""

    html: str


def tag(name: str, attrs: dict[str, object] | None = None, *children: str | Raw | None) -> Raw:
    """Return ``<name attrs>children</name>``; ``None`` and ``False`` attributes are left out."""
    rendered = "".join(_attribute(key, value) for key, value in (attrs or {}).items())
    inner = "".join(child.html if isinstance(child, Raw) else text(child) for child in children if child is not None)
    return Raw(f"<{name}{rendered}>{inner}</{name}>")


def text(value: str) -> str:
    r"""``value`` escaped for HTML text or an attribute, its carriage returns as ``&#13;``.

    An HTML parser turns a raw ``\r`` into ``\n`` before it reads the text (newline
    normalisation), so a progress line's ``\r`` would reach the page as a line break;
    the character reference reaches it as ``\r``.
    """
    return escape(value).replace("\r", "&#13;")


def void(name: str, attrs: dict[str, object]) -> Raw:
    """Return a void element such as ``<img>`` or ``<input>``."""
    return Raw(f"<{name}{''.join(_attribute(k, v) for k, v in attrs.items())}>")


def _attribute(key: str, value: object) -> str:
    if value is None or value is False:
        return ""
    if value is True:
        return f" {key}"
    return f' {key}="{text(str(value))}"'  # escape() quotes " and ' by default
