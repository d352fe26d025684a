"""``mkdocs serve``: a failed rebuild shows what broke in the browser, and live reload goes on.

The test drives MkDocs' own serve machinery (its config loading, build and LiveReloadServer)
the way ``mkdocs serve`` does, without a browser: it asks the server for a page over WSGI.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer
from site_project import PYODIDE_INDEX, make_project

from course_site.site_layout import SERVICE_WORKER_NAME

QUIZ = "# L\n\n```quiz\nQ?\n\n- [x] a\n    why a\n- [ ] b\n    why b\n```\n"


def get(server: LiveReloadServer, path: str) -> tuple[str, str]:
    """The status and body of ``GET path``, asked of the server as a browser would."""
    answer: dict[str, str] = {}
    environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "wsgi.input": io.BytesIO()}
    body = b"".join(server.serve_request(environ, lambda status, headers: answer.setdefault("status", status)))
    return answer["status"], body.decode(errors="replace")


def test_a_failed_rebuild_shows_its_error_on_every_page_until_it_is_fixed(tmp_path: Path):
    project = make_project(tmp_path, QUIZ)
    config_file = project / "mkdocs.yml"
    config = json.loads(config_file.read_text())
    config["nav"] = [{"Home": "index.md"}, {"Lesson": "lessons/lesson.md"}]
    site = tmp_path / "served"

    def load():
        return load_config(config_file=str(config_file), site_dir=str(site), site_url="http://127.0.0.1:8000/")

    first = load()
    first.plugins.on_startup(command="serve", dirty=False)
    build(first)
    server = LiveReloadServer(builder=lambda: build(load()), host="127.0.0.1", port=0, root=str(site))
    try:
        server = first.plugins.on_serve(server, config=first, builder=server.builder)
        lesson = project / "lessons/lesson.md"
        lesson.write_text(QUIZ.replace("- [ ] b", "- [x] b"))
        server.builder()  # a rebuild after the save: it fails, and does not raise
        for path in ("/lessons/lesson/", "/"):
            status, page = get(server, path)
            assert "The course did not build" in page, path
            assert "lessons/lesson.md:8: a quiz needs exactly one right option" in page
            assert "livereload" in page  # the server's script: the page reloads after the next build
        # mkdocs serve answers any other URL with the site's 404.html.
        assert "lessons/lesson.md:8: a quiz needs" in (site / "404.html").read_text()
        lesson.write_text(QUIZ)
        server.builder()
        status, page = get(server, "/lessons/lesson/")
        assert status == "200 OK" and "course-quiz" in page and "did not build" not in page
    finally:
        server.server_close()
        first.plugins.on_shutdown()


MISSPELLED = "# L\n\n```pyodid\nprint(1)\n```\n"


def serving(project: Path, site: Path, **options):
    """The plugin of a first build under ``mkdocs serve``, and its server (whose rebuilds load the config again)."""
    config_file = str(project / "mkdocs.yml")

    def load():
        return load_config(config_file=config_file, site_dir=str(site), site_url="http://127.0.0.1:8000/", **options)

    first = load()
    first.plugins.on_startup(command="serve", dirty=False)
    build(first)
    server = LiveReloadServer(builder=lambda: build(load()), host="127.0.0.1", port=0, root=str(site))
    return first, first.plugins.on_serve(server, config=first, builder=server.builder)


def test_after_a_failed_rebuild_the_assets_open_pages_ask_for_are_still_served(tmp_path: Path):
    project = make_project(tmp_path, QUIZ)
    site = tmp_path / "served"
    first, server = serving(project, site)
    try:
        built = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file() and p.suffix != ".html"}
        assets = {path for path in built if not path.startswith(("search/", "sitemap"))}  # written last, by others
        assert {SERVICE_WORKER_NAME, f"{PYODIDE_INDEX}/pyodide.asm.js"} <= assets
        (project / "lessons/lesson.md").write_text(QUIZ.replace("- [ ] b", "- [x] b"))
        server.builder()
        missing = [path for path in sorted(assets) if get(server, f"/{path}")[0] != "200 OK"]
        assert missing == []
        assert "The course did not build" in get(server, "/lessons/lesson/")[1]
    finally:
        server.server_close()
        first.plugins.on_shutdown()


def test_a_rebuild_that_strict_mode_fails_shows_and_logs_its_reason(tmp_path: Path, caplog):
    project = make_project(tmp_path, QUIZ, execute=False)
    first, server = serving(project, tmp_path / "served", strict=True)
    try:
        (project / "lessons/lesson.md").write_text(MISSPELLED)
        caplog.clear()
        server.builder()  # the pages build; the warning fails the build at its end
        reason = "lessons/lesson.md:3: ```pyodid fence: did you mean `pyodide`?"
        assert reason in get(server, "/lessons/lesson/")[1]
        failed = [r.getMessage() for r in caplog.records if "the build failed" in r.getMessage()]
        assert len(failed) == 1 and reason in failed[0] and "strict mode" in failed[0]
    finally:
        server.server_close()
        first.plugins.on_shutdown()
