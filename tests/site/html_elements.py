"""Read HTML that the plugin writes as a list of elements, for tests that check its structure."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"img", "input", "meta", "br", "hr", "link"}


class Elements(HTMLParser):
    """Every element of a fragment in document order: ``(tag, attributes, text inside)``."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None], list[str]]] = []
        self._open: list[int] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs), []))
        if tag not in VOID:
            self._open.append(len(self.found) - 1)

    def handle_endtag(self, tag: str) -> None:
        self._open.pop()

    def handle_data(self, data: str) -> None:
        for index in self._open:
            self.found[index][2].append(data)

    def all(self, tag: str) -> list[tuple[dict[str, str | None], str]]:
        """``(attributes, text)`` of each ``tag`` element."""
        return [(attrs, "".join(text)) for name, attrs, text in self.found if name == tag]

    def tree(self) -> list[tuple[str, dict[str, str | None]]]:
        """``(tag, attributes)`` of every element."""
        return [(name, attrs) for name, attrs, _ in self.found]
