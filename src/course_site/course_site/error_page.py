"""While ``mkdocs serve`` runs, a failed build shows its errors in the browser.

`ErrorLog` keeps the warnings and errors logged during a build; when the build fails,
`write_error_pages` writes one page saying what broke and where in place of every
page of the served site (and as its 404 page), so that whatever URL the author has
open shows it. The server injects its live-reload script into these pages as into
any other, so the next successful build replaces them and reloads the browser.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .markup import tag, void

TITLE = "The course did not build"


class ErrorLog(logging.Handler):
    """Collects the messages of warnings and errors, in order, without repeats."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage().strip()
        if message and message not in self.messages:
            self.messages.append(message)


def error_page(messages: list[str]) -> str:
    """The HTML page that lists ``messages`` (as text) and says what to do."""
    body = tag(
        "body",
        {"style": "font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem"},
        tag("h1", {}, TITLE),
        tag("p", {}, "Fix what the messages below point at (file:line) and save: this page reloads by itself."),
        *[tag("pre", {"class": "course-build-error", "style": "white-space: pre-wrap"}, m) for m in messages],
    )
    head = tag("head", {}, void("meta", {"charset": "utf-8"}), tag("title", {}, TITLE))
    return f"<!doctype html>\n{tag('html', {'lang': 'en'}, head, body).html}\n"


def write_error_pages(site_dir: Path, pages: list[str], messages: list[str]) -> None:
    """Write the error page at each of ``pages`` (paths under ``site_dir``), at any HTML page
    left there, and as ``404.html``. The build cleaned ``site_dir`` before it failed, so
    ``pages`` are those of the site: what the author may have open."""
    page = error_page(messages)
    for path in {*(site_dir / p for p in pages), *site_dir.rglob("*.html"), site_dir / "404.html"}:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page)
