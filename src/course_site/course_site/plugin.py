"""The ``course`` MkDocs plugin: runnable Pyodide cells, Markdown quizzes, build-time outputs.

A thin adapter: each hook names the MkDocs event it serves and hands the work to
modules that do not import MkDocs: `lesson_page` parses a page's blocks (`fences`,
`quiz`) and runs its cells (`execute`), `cells` and `quiz` write HTML, `mathml`
renders math, `notebook` writes each lesson as a notebook, `shipped_python` prepares
Pyodide and the course package, `site_publish` publishes them with
the scripts. Their errors become MkDocs' `PluginError` here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from markdown import Markdown
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from . import dom
from .cells import highlight_python, render_cell
from .config import CourseConfig
from .course_end import END_ID, CourseEndLink, Lesson, exercises_by_page, exercises_data, render_course_end
from .csp import add_policy, insert_in_head
from .derived_bytecode import DerivedError
from .error_page import ErrorLog, write_error_pages
from .errors import LessonError, SettingsError
from .execute import PageExecutor, PageWork, RunSettings
from .exercises_html import course_exercise_ids, insert_progress, render_exercise
from .fences import CELL, QUIZ, Cell
from .lesson_page import LessonBlocks, PendingExercise, PendingQuiz, runs_of
from .local_python import stage_local
from .mathml import Source, to_mathml
from .node_process import find_node
from .notebook import Notebooks, insert_link, notebook_path
from .notebook import Source as NotebookSource
from .pyodide_manifest import AssetError
from .quiz import markdown_converter
from .shipped_python import CoursePackage, ShippedPython, prepare, wheel_url
from .site_layout import ASSETS, ENHANCE, SERVICE_WORKER, STYLESHEETS, WORKER_PRESTART, figure_path
from .site_publish import publish, publish_figures
from .strings import Strings, key_lines
from .strings import use as use_strings
from .work_html import insert_work
from .worker_settings import OutputLimits, WorkerSettings, starter_script, worker_settings

log = logging.getLogger("mkdocs.plugins.course")
BUILDER_LOG = logging.getLogger(BasePlugin.__module__.partition(".")[0])
"""The builder's logger: ``mkdocs``, or ``properdocs`` (which serves ``mkdocs.*`` imports, logging as itself)."""
_HAS_CELLS = re.compile(f'class="{re.escape(dom.CELL["root"])}[ "]')  # a page with cells or exercises


@contextmanager
def _as_plugin_error(prefix: str = "") -> Iterator[None]:
    """Report the builder-neutral modules' errors the MkDocs way: a message, no traceback."""
    try:
        yield
    except (LessonError, AssetError, DerivedError, SettingsError) as error:
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
        self.shipped: ShippedPython | None = None
        self.worker_settings: WorkerSettings | None = None
        self.runner: PageExecutor | None = None
        self.page: LessonBlocks | None = None
        self.page_url = ""
        self.lesson_uris: list[str] = []  # the lessons' paths in the site, "lessons/<file>.md"
        self.lesson_pages: list[Page] = []  # the lessons in `nav` order
        self.math_source = Source("", "")
        self.figures: dict[str, bytes] = {}  # site path -> PNG of a build-time figure
        self.exercise_ids: list[str] = []  # every exercise of the site, for the home page's progress
        self.serving = False
        self.error_log = ErrorLog()  # this build's warnings and errors, for the page of a failed build
        self.site_dir = Path()
        self.page_paths: list[str] = []  # the site's HTML pages, under site_dir
        self.files: Files | None = None  # the site's files, to put the assets back after a failed build
        self.error_shown: list[str] = []  # the messages of this build's error page, once written
        self.notebooks = Notebooks()  # each lesson as a notebook to download

    # -- mkdocs events ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """``startup``: note whether this is ``mkdocs serve`` (its live-reload script is inline)."""
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """``config``: register the fences, the scripts and styles; prepare Pyodide and the course package."""
        self.root = Path(config.config_file_path).resolve().parent  # `-f mkdocs.yml` gives a relative path
        self.site_dir = Path(config.site_dir)
        if self.serving:
            self.error_log.messages.clear()
            BUILDER_LOG.addHandler(self.error_log)
        with _as_plugin_error():
            self.strings = _site_strings(config, self.config.strings)
        use_strings(self.strings)
        _register_fences(config, self._validate, self._format)
        _require_extension(config, "pymdownx.arithmatex", {"generic": True})
        project = self.root / self.config.package_project
        package = CoursePackage(project, project / self.config.package_source)
        with _as_plugin_error("course: Pyodide assets: "):
            self.shipped = prepare(
                self.root / self.config.pyodide_manifest,
                self.root / self.config.pyodide_cache,
                package,
                self.root / self.config.cache_dir,
                base_url=self.config.pyodide_base_url,
                import_packages=self.config.import_packages,
                precompile_for=_precompile_for(self.config),
                preload=self.config.preload,
            )
        limits = OutputLimits(self.config.output_max_lines, self.config.output_max_chars)
        with _as_plugin_error():
            self.worker_settings = worker_settings(
                self.shipped,
                config.site_url,
                preload=self.config.preload,
                time_limit=self.config.time_limit,
                module_hint=self.config.module_hint,
                output_limits=limits,
            )
            self.runner = self._page_runner(limits) if self.config.execute else None
        config.extra_css.extend(self.worker_settings.runner_files(STYLESHEETS))
        config.extra_javascript.append(ExtraScriptValue(*self.worker_settings.runner_files([ENHANCE])))
        config.extra_javascript[-1].type = "module"
        return config

    def _page_runner(self, limits: OutputLimits) -> PageExecutor:
        """Build-time runs in the site's own Python: its files staged in the cache, run by Node."""
        find_node()
        cache = self.root / self.config.cache_dir
        settings = RunSettings(
            self.config.preload,
            self.config.import_packages,
            self.config.module_hint,
            limits,
            self.strings.messages,
            self.strings.language,
        )
        python = stage_local(self.shipped, cache / "python")
        return PageExecutor(cache, python, settings, self.config.execute_timeout)

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        """``files``: publish the lessons folder under ``lessons/``; note every exercise; run every page's cells."""
        lessons = self.root / self.config.lessons_dir
        self.lesson_uris = [Path("lessons", p.relative_to(lessons)).as_posix() for p in sorted(lessons.rglob("*.md"))]
        for uri in self.lesson_uris:
            if files.get_file_from_path(uri) is None:
                files.append(File(uri, str(lessons.parent), config.site_dir, config.use_directory_urls))
        self.page_paths = [file.dest_uri for file in files.documentation_pages()]
        self.files = files
        pages = [(file.content_string, self._shown(file), file.url) for file in files.documentation_pages()]
        with _as_plugin_error():
            self.exercise_ids = course_exercise_ids(pages)
        self._run_pages(files)
        return files

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        """``nav``: warn (fatal with ``--strict``) about a lesson that ``nav`` leaves out: no link reaches it."""
        in_nav = {page.file.src_uri for page in nav.pages}
        self.lesson_pages = [page for page in nav.pages if page.file.src_uri in self.lesson_uris]
        for uri in self.lesson_uris:
            if uri not in in_nav:
                log.warning(
                    f"{self.config.lessons_dir}/{uri.removeprefix('lessons/')}: this lesson is not in `nav` in "
                    f"mkdocs.yml, so no link reaches it: add it under Lessons, e.g. "
                    f'- "NN · Title": {uri}'
                )
        return nav

    def _run_pages(self, files: Files) -> None:
        """Before any page is read: run every page's cells, pages in parallel, into the cache."""
        if self.runner:
            pages = [self._runs_of(file) for file in files.documentation_pages()]
            with _as_plugin_error():
                self.runner.run_pages([page for page in pages if page])

    def _runs_of(self, file: File) -> PageWork | None:
        source = file.content_string
        markdown, _ = get_data(source)
        return runs_of(markdown, self._shown(file), _first_line(source, markdown))

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """``page_markdown``: parse, check and tag the page's blocks; run its cells (run by `on_files`)."""
        shown = self._shown(page.file)
        first_line = _first_line(page.file.content_string, markdown)
        with _as_plugin_error():
            self.page = LessonBlocks(markdown, shown, first_line, self.runner)
        for typo in self.page.misspelled:
            log.warning(str(typo.error()))  # fatal with --strict
        self.page_url = page.url
        self.math_source = Source(markdown, shown, first_line)
        if page.file.src_uri in self.lesson_uris:
            self._add_notebook(page, markdown, first_line, config)
        return self.page.markdown

    def _add_notebook(self, page: Page, markdown: str, first_line: int, config: MkDocsConfig) -> None:
        """The lesson's notebook, from its Markdown and the blocks just parsed and run (`notebook`)."""
        site_url = (config.site_url or "").rstrip("/")
        install = f"pip install numpy matplotlib {wheel_url(self.shipped, site_url)}"
        source = NotebookSource(markdown, first_line, f"{site_url}/{page.url}", install)
        self.notebooks.add(notebook_path(page.file.src_uri), source, self.page)

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """``page_content``: render math; fail if a block was not reached; the home page's progress."""
        with _as_plugin_error():
            self.page.check_all_taken()
            if page.is_homepage:
                html = insert_work(insert_progress(html, self.exercise_ids), config.site_name)
            if page.file.src_uri in self.lesson_uris:
                html = insert_link(html, get_relative_url(notebook_path(page.file.src_uri), page.url))
            if self._is_last_lesson(page):
                html += self._course_end(page)
            return to_mathml(html, self.math_source, log.warning)

    def _is_last_lesson(self, page: Page) -> bool:
        return bool(self.lesson_pages) and page.file.src_uri == self.lesson_pages[-1].file.src_uri

    def _course_end(self, page: Page) -> str:
        """The end-of-course section (`course_end`), with links relative to ``page``."""
        lessons = [Lesson(str(lesson.title), get_relative_url(lesson.url, page.url)) for lesson in self.lesson_pages]
        next_steps = markdown_converter()(self.config.course_end) if self.config.course_end.strip() else ""
        return render_course_end(lessons, next_steps, get_relative_url("", page.url))

    def on_page_context(self, context: dict, page: Page, config: MkDocsConfig, nav: Navigation) -> dict:
        """``page_context``: the last lesson's "Next" is the end of the course, not what `nav` lists after it."""
        if self._is_last_lesson(page):
            page.next_page = CourseEndLink(f"{page.url}#{END_ID}")
        return context

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """``post_page``: start Python from the <head> of pages with cells; each lesson's exercises, for the
        sidebar's progress; add the CSP."""
        if _HAS_CELLS.search(output):
            starter = starter_script(page.url, self.worker_settings, console=self._has_console(page))
            output = insert_in_head(output, starter)
        output = insert_in_head(output, self.strings.page_script())
        if self.exercise_ids:
            pages = {get_relative_url(url, page.url): ids for url, ids in exercises_by_page(self.exercise_ids).items()}
            output = insert_in_head(output, exercises_data(pages))
        return add_policy(output, self.config.pyodide_base_url, serving=self.serving)

    def _has_console(self, page: Page) -> bool:
        """Whether ``page`` gets the Python console: the site's ``console`` option, unless its front matter
        says ``console: false``."""
        wanted = page.meta.get("console", self.config.console)
        if not isinstance(wanted, bool):
            lines = page.file.content_string.splitlines()
            line = next((n for n, text in enumerate(lines, 1) if text.startswith("console:")), 1)
            where = f"{page.file.src_uri}:{line}"
            raise PluginError(f"{where}: front matter 'console' must be true or false, not {wanted!r}")
        return wanted

    def on_post_build(self, config: MkDocsConfig) -> None:
        """``post_build``: publish Pyodide, the course wheel, the scripts and worker-settings.json."""
        publish_figures(self.figures, Path(config.site_dir))
        self.notebooks.publish(Path(config.site_dir))
        publish(self.shipped, self.worker_settings, Path(config.site_dir))
        BUILDER_LOG.removeHandler(self.error_log)

    def on_build_error(self, error: Exception) -> None:
        """``build_error``: under ``mkdocs serve``, show what broke in the browser, in place of every page."""
        BUILDER_LOG.removeHandler(self.error_log)
        if self.serving:
            self.show_error(error)

    def show_error(self, error: Exception) -> list[str]:
        """Write the page of a failed build in place of every page; return its messages.

        The build cleaned the site folder before it failed: the theme's and the course's assets are
        put back, so that what the pages open in the browser still ask for (the service worker's
        update, the Python worker's files) is there, and the server logs no 404 for them.
        """
        # MkDocs logs a build error's message after this event: add it here.
        messages = list(dict.fromkeys([*self.error_log.messages, str(error) or type(error).__name__]))
        if self.files is not None:
            self.files.copy_static_files(dirty=False)
        self.notebooks.publish(self.site_dir)
        if self.shipped is not None and self.worker_settings is not None:
            publish(self.shipped, self.worker_settings, self.site_dir)
        write_error_pages(self.site_dir, self.page_paths, messages)
        self.error_shown = messages
        return messages

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
        """``serve``: live-reload on lessons, the course package's source and the runner's files."""
        server.watch(str(self.root / self.config.lessons_dir))
        server.watch(str(self.shipped.package.source))
        server.watch(str(ASSETS))
        server.watch(str(WORKER_PRESTART))
        server.watch(str(SERVICE_WORKER))
        server.builder = _showing_errors(server.builder, self)
        return server

    def _shown(self, file: File) -> str:
        """How errors name ``file``: relative to the project when it is inside it."""
        path = Path(file.abs_src_path or file.src_uri).resolve()
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)

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
        if isinstance(block, PendingExercise):
            return self._exercise(block, md)
        return self._cell(block.cell, block.index, block.outputs, md)(variants=block.variants)

    def _cell(self, cell: Cell, index: int, outputs: list, md: Markdown, source: str = "") -> partial[str]:
        """`render_cell` with this cell's arguments; ``source`` is more code whose packages it needs."""
        source = f"{cell.setup}\n{cell.code}\n{source}"
        return partial(
            render_cell,
            cell,
            index,
            outputs,
            md,
            packages=self.shipped.packages_for(source),
            download_note=self.shipped.download_note(source),
            figure_url=self._figure_url,
        )

    def _exercise(self, block: PendingExercise, md: Markdown) -> str:
        exercise = block.exercise
        render = self._cell(exercise.cell(), block.index, [], md, f"{exercise.check}\n{exercise.solution}")
        return render_exercise(
            exercise,
            block.number,
            render,
            page_url=self.page_url,
            markdown=markdown_converter(),
            highlight=lambda code: highlight_python(code, md),
            solutions=self.config.solutions,
        )

    def _figure_url(self, png: bytes) -> str:
        """Keep a build-time figure for ``on_post_build``; its URL relative to the current page."""
        path = figure_path(png)
        self.figures[path] = png
        return get_relative_url(path, self.page_url)


def _site_strings(config: MkDocsConfig, overrides: dict) -> Strings:
    """The course's words in ``theme.language`` with the author's ``strings`` (errors at their mkdocs.yml line)."""
    path = Path(config.config_file_path)
    lines = key_lines(path.read_text(encoding="utf-8")) if path.is_file() else {}
    language = config.theme.get("language") or "en"
    return Strings.for_language(language, overrides, lambda key: f"{path.name}:{lines.get(key, lines.get('', 1))}")


def _first_line(source: str, markdown: str) -> int:
    """The file's line of ``markdown``'s first: MkDocs strips the front matter, so count its lines."""
    return source[: len(source) - len(markdown)].count("\n") + 1 if source.endswith(markdown) else 1


def _showing_errors(build: Callable[[], None], plugin: CoursePlugin) -> Callable[[], None]:
    """The server's rebuild, which ends normally when the build fails, with the error's page written
    (by ``on_build_error``, or here for a failure it does not see: ``--strict`` counting warnings).

    So the server still answers requests, and reloads the browser to show that page, then
    the fixed site (it waits forever for a rebuild that raised). Each failure logs its reasons.
    """

    def build_or_show_error() -> None:
        plugin.error_shown = []
        try:
            build()
        except Exception as error:
            messages = plugin.error_shown or plugin.show_error(error)
            reasons = "".join(f"\n  {message}" for message in messages or [str(error)])
            log.error(f"course: the build failed; the browser shows why until a build succeeds:{reasons}")

    return build_or_show_error


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
