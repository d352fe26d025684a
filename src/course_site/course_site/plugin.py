"""The ``course`` MkDocs plugin: runnable Pyodide cells, Markdown quizzes, build-time outputs.

Each hook names the MkDocs event it serves; one module per concern does the work:
`fences` finds the blocks, `execute` runs cells, `cells` and `quiz` write HTML,
`mathml` renders math, `site_assets` publishes Pyodide, posenc and the scripts.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from markdown import Markdown
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from . import site_assets
from .cells import render_cell
from .config import CourseConfig
from .csp import add_policy, insert_in_head
from .errors import LessonError
from .execute import PageRunner
from .fences import CELL, QUIZ, scan, to_cell
from .mathml import to_mathml
from .quiz import parse_quiz, render_quiz


@dataclass
class _PageBlocks:
    """The blocks of the page being rendered, waiting for SuperFences to format them."""

    path: str
    url: str
    pending: dict[str, deque[str | tuple]] = field(default_factory=lambda: defaultdict(deque))

    def left_over(self) -> list[str]:
        return [key for key, queue in self.pending.items() if queue]


class CoursePlugin(BasePlugin[CourseConfig]):
    """Turns ``pyodide`` fences into runnable cells and ``quiz`` fences into quizzes."""

    def __init__(self) -> None:
        self.root = Path.cwd()
        self.bundle: site_assets.Bundle | None = None
        self.runtime: site_assets.Runtime | None = None
        self.runner: PageRunner | None = None
        self.page: _PageBlocks | None = None
        self.figures: dict[str, bytes] = {}  # site path -> PNG of a build-time figure
        self.serving = False

    # -- mkdocs events ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """``startup``: note whether this is ``mkdocs serve`` (its live-reload script is inline)."""
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """``config``: register the fences, the scripts and styles; prepare Pyodide and posenc."""
        self.root = Path(config.config_file_path).parent
        _register_fences(config, self._validate, self._format)
        _require_extension(config, "pymdownx.arithmatex", {"generic": True})
        config.extra_css.extend(site_assets.STYLESHEETS)
        config.extra_javascript.append(ExtraScriptValue(site_assets.ENHANCE))
        config.extra_javascript[-1].type = "module"
        self.bundle = site_assets.prepare(self.config, self.root)
        self.runtime = site_assets.runtime(self.bundle, config.site_url)
        self.runner = PageRunner(
            self.root / self.config.cache_dir,
            [self.bundle.posenc_package],
            self.config.execute_timeout,
        )
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        """``files``: publish the lessons folder under ``lessons/``."""
        lessons = self.root / self.config.lessons_dir
        for path in sorted(lessons.rglob("*.md")):
            uri = Path("lessons", path.relative_to(lessons)).as_posix()
            if files.get_file_from_path(uri) is None:
                files.append(File(uri, str(lessons.parent), config.site_dir, config.use_directory_urls))
        return files

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """``page_markdown``: find the page's blocks, check them, run its cells."""
        path = Path(page.file.abs_src_path or page.file.src_uri).resolve()
        shown = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        blocks = scan(page.file.content_string, shown)
        self.page = _PageBlocks(shown, page.url)
        cells = [to_cell(block) for block in blocks if block.lang == CELL]
        quizzes = [parse_quiz(block) for block in blocks if block.lang == QUIZ]
        outputs = self.runner.run(cells) if self.config.execute and cells else [[] for _ in cells]
        for index, (cell, cell_outputs) in enumerate(zip(cells, outputs, strict=True), start=1):
            self.page.pending[_key(cell.block.body)].append((cell, index, cell_outputs))
        quiz_blocks = [block for block in blocks if block.lang == QUIZ]
        for number, (block, quiz) in enumerate(zip(quiz_blocks, quizzes, strict=True), start=1):
            self.page.pending[_key(block.body)].append(render_quiz(quiz, number))
        return markdown

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """``page_content``: render math; fail if a block was not reached by SuperFences."""
        if self.page and self.page.left_over():
            raise LessonError(
                self.page.path,
                1,
                "a ```pyodide or ```quiz fence was not rendered; fences must start a line "
                "(inside admonitions and tabs, indent them like the text)",
            )
        return to_mathml(html)

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """``post_page``: start Python from the <head> of pages with cells; add the CSP."""
        if 'class="course-cell"' in output:
            output = insert_in_head(output, site_assets.starter_script(page.url, self.runtime))
        return add_policy(output, self.config.pyodide_base_url, serving=self.serving)

    def on_post_build(self, config: MkDocsConfig) -> None:
        """``post_build``: publish Pyodide, the posenc wheel, the scripts and runtime.json."""
        site_assets.publish(self.bundle, self.runtime, Path(config.site_dir))
        site_assets.publish_figures(self.figures, Path(config.site_dir))

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
        """``serve``: live-reload on lessons, the posenc source and the runner's files."""
        server.watch(str(self.root / self.config.lessons_dir))
        server.watch(str(self.bundle.posenc_package))
        server.watch(str(site_assets.ASSETS))
        server.watch(str(site_assets.WORKER_PRESTART))
        server.watch(str(site_assets.SERVICE_WORKER))
        return server

    # -- SuperFences callbacks ------------------------------------------------------------------

    def _validate(self, language: str, inputs: dict, options: dict, attrs: dict, md: Markdown) -> bool:
        """Accept every header: options were checked, with their line, in ``on_page_markdown``."""
        options.update(inputs)
        return True

    def _format(self, src: str, language: str, class_name: str, options: dict, md: Markdown, **kwargs) -> str:
        queue = self.page.pending.get(_key(src)) if self.page else None
        if not queue:
            raise LessonError(self.page.path if self.page else "?", 1, f"unexpected ```{language} block")
        item = queue.popleft()
        if isinstance(item, str):
            return item
        cell, index, outputs = item
        source = f"{cell.setup}\n{cell.code}"
        return render_cell(
            cell,
            index,
            outputs,
            md,
            packages=self.bundle.packages_for(source),
            download_note=self.bundle.download_note(source),
            figure_url=self._figure_url,
        )

    def _figure_url(self, png: bytes) -> str:
        """Keep a build-time figure for ``on_post_build``; its URL relative to the current page."""
        path = site_assets.figure_path(png)
        self.figures[path] = png
        return get_relative_url(path, self.page.url)


def _key(body: str) -> str:
    """Compare fence bodies as SuperFences and the scanner see them."""
    return "\n".join(line.rstrip() for line in body.strip("\n").split("\n"))


def _register_fences(config: MkDocsConfig, validator, formatter) -> None:
    settings = _require_extension(config, "pymdownx.superfences", {})
    fences = settings.setdefault("custom_fences", [])
    for name in (CELL, QUIZ):
        fences.append({"name": name, "class": name, "validator": validator, "format": formatter})


def _require_extension(config: MkDocsConfig, name: str, defaults: dict) -> dict:
    """Enable a Markdown extension if mkdocs.yml did not, and return its settings."""
    if name not in config.markdown_extensions:
        config.markdown_extensions.append(name)
    settings = config.mdx_configs.setdefault(name, {})
    for key, value in defaults.items():
        settings.setdefault(key, value)
    return settings
