"""Build errors that point at the author's file and line."""

from __future__ import annotations

from mkdocs.exceptions import PluginError


class LessonError(PluginError):
    """A problem in a lesson's Markdown, reported as ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str, detail: str = "") -> None:
        self.path, self.line, self.detail = path, line, detail
        text = f"{path}:{line}: {message}"
        super().__init__(f"{text}\n{detail}" if detail else text)
