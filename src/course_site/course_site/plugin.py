"""The ``course`` MkDocs plugin: runnable Pyodide cells, Markdown quizzes, build-time outputs.

A thin adapter: each hook names the MkDocs event it serves and hands the work to
modules that do not import MkDocs: `lesson_page` parses a page's blocks (`fences`,
`quiz`) and runs its cells (`execute`), `cells` and `quiz` write HTML, `mathml`
renders math, `site_assets` prepares and publishes Pyodide, the course package and
the scripts. Their errors become MkDocs' `PluginError` here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from markdown import Markdown
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from . import site_assets
from .cells import render_cell
from .config import CourseConfig
from .csp import add_policy, insert_in_head
from .derived_stdlib import DerivedError
from .errors import LessonError
from .execute import PageRunner
from .fences import CELL, QUIZ
from .lesson_page import LessonBlocks, PendingQuiz
from .mathml import to_mathml
from .pyodide_assets import AssetError


@contextmanager
def _as_plugin_error(prefix: str = "") -> Iterator[None]:
    """Report the builder-neutral modules' errors the MkDocs way: a message, no traceback."""
    try:
        yield
    except (LessonError, AssetError, DerivedError, site_assets.SettingsError) as error:
        raise PluginError(f"{prefix}{error}") from None


def _precompile_for(config: CourseConfig) -> list[str] | None:
    """The lock packages the derived stdlib is pre-compiled for (preloaded ones and matplotlib), or None."""
    if not config.precompile_stdlib:
        return None
    return sorted({*config.preload, "matplotlib"})


class CoursePlugin(BasePlugin[CourseConfig]):
    """Turns ``pyodide`` fences into runnable cells and ``quiz`` fences into quizzes."""

    def __init__(self) -> None:
        self.root = Path.cwd()
        self.shipped: site_assets.ShippedPython | None = None
        self.worker_settings: site_assets.WorkerSettings | None = None
        self.runner: PageRunner | None = None
        self.page: LessonBlocks | None = None
        self.page_url = ""
        self.figures: dict[str, bytes] = {}  # site path -> PNG of a build-time figure
        self.serving = False

    # -- mkdocs events ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """``startup``: note whether this is ``mkdocs serve`` (its live-reload script is inline)."""
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """``config``: register the fences, the scripts and styles; prepare Pyodide and the course package."""
        self.root = Path(config.config_file_path).parent
        _register_fences(config, self._validate, self._format)
        _require_extension(config, "pymdownx.arithmatex", {"generic": True})
        config.extra_css.extend(site_assets.STYLESHEETS)
        config.extra_javascript.append(ExtraScriptValue(site_assets.ENHANCE))
        config.extra_javascript[-1].type = "module"
        project = self.root / self.config.package_project
        package = site_assets.CoursePackage(project, project / self.config.package_source)
        with _as_plugin_error("course: Pyodide assets: "):
            self.shipped = site_assets.prepare(
                self.root / self.config.pyodide_manifest,
                self.root / self.config.pyodide_cache,
                package,
                self.root / self.config.cache_dir,
                base_url=self.config.pyodide_base_url,
                import_packages=self.config.import_packages,
                precompile_for=_precompile_for(self.config),
            )
        with _as_plugin_error():
            self.worker_settings = site_assets.worker_settings(
                self.shipped,
                config.site_url,
                preload=self.config.preload,
                time_limit=self.config.time_limit,
                module_hint=self.config.module_hint,
            )
        self.runner = PageRunner(
            self.root / self.config.cache_dir, [package.source], self.config.execute_timeout, self.config.module_hint
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
        """``page_markdown``: parse, check and tag the page's blocks; run its cells."""
        path = Path(page.file.abs_src_path or page.file.src_uri).resolve()
        shown = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        source = page.file.content_string
        # MkDocs strips the front matter: count its lines so that errors name the file's lines.
        first_line = source[: len(source) - len(markdown)].count("\n") + 1 if source.endswith(markdown) else 1
        with _as_plugin_error():
            self.page = LessonBlocks(markdown, shown, first_line, self.runner if self.config.execute else None)
        self.page_url = page.url
        return self.page.markdown

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """``page_content``: render math; fail if a block was not reached by SuperFences."""
        with _as_plugin_error():
            self.page.check_all_taken()
        return to_mathml(html)

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """``post_page``: start Python from the <head> of pages with cells; add the CSP."""
        if 'class="course-cell"' in output:
            output = insert_in_head(output, site_assets.starter_script(page.url, self.worker_settings))
        return add_policy(output, self.config.pyodide_base_url, serving=self.serving)

    def on_post_build(self, config: MkDocsConfig) -> None:
        """``post_build``: publish Pyodide, the course wheel, the scripts and worker-settings.json."""
        site_assets.publish(self.shipped, self.worker_settings, Path(config.site_dir))
        site_assets.publish_figures(self.figures, Path(config.site_dir))

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
        """``serve``: live-reload on lessons, the course package's source and the runner's files."""
        server.watch(str(self.root / self.config.lessons_dir))
        server.watch(str(self.shipped.package.source))
        server.watch(str(site_assets.ASSETS))
        server.watch(str(site_assets.WORKER_PRESTART))
        server.watch(str(site_assets.SERVICE_WORKER))
        return server

    # -- SuperFences callbacks ------------------------------------------------------------------

    def _validate(self, language: str, inputs: dict, options: dict, attrs: dict, md: Markdown) -> bool:
        """Accept every header: `LessonBlocks` checks the options, with their line where there is one."""
        options.update(inputs)
        return True

    def _format(self, src: str, language: str, class_name: str, options: dict, md: Markdown, **kwargs) -> str:
        """SuperFences' formatter: the block of this fence (by its ``course_block`` option) as HTML."""
        with _as_plugin_error():
            block = self.page.take(language, src, options)
        if isinstance(block, PendingQuiz):
            return block.html
        cell = block.cell
        source = f"{cell.setup}\n{cell.code}"
        return render_cell(
            cell,
            block.index,
            block.outputs,
            md,
            packages=self.shipped.packages_for(source),
            download_note=self.shipped.download_note(source),
            figure_url=self._figure_url,
        )

    def _figure_url(self, png: bytes) -> str:
        """Keep a build-time figure for ``on_post_build``; its URL relative to the current page."""
        path = site_assets.figure_path(png)
        self.figures[path] = png
        return get_relative_url(path, self.page_url)


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
