"""The build's errors: a problem in a lesson, at the author's file and line, or in the course's settings."""

from __future__ import annotations


class LessonError(Exception):
    """A problem in a lesson's Markdown, reported as ``path:line: message``.

    ``line`` is None for a fence that another plugin or an include put into the page:
    it has no line in the lesson's file.
    """

    def __init__(self, path: str, line: int | None, message: str, detail: str = "") -> None:
        self.path, self.line, self.detail = path, line, detail
        text = f"{path}:{line}: {message}" if line is not None else f"{path}: {message}"
        super().__init__(f"{text}\n{detail}" if detail else text)


class SettingsError(ValueError):
    """The course's settings cannot work together (for example a CDN without ``site_url``)."""
