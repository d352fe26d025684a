"""The Python console's Python side and its switch: when a statement waits for more lines (as
``code.InteractiveConsole`` decides), and how the site option and a page's front matter turn the
console off (the starter script's ``data-console="off"``, which console.js honours)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from course_kernel.cell_exec import needs_more_input
from course_site.config import CourseConfig
from course_site.plugin import CoursePlugin
from course_site.worker_settings import WorkerSettings, starter_script

SETTINGS = WorkerSettings("", {"runner_folder": "runner-abc", "version": "v1"})


@pytest.mark.parametrize(
    "source",
    [
        "def f(a):",
        "for i in range(3):\n    print(i)",
        "if x:\n    pass\nelse:",
        "x = (1,\n     2,",
        "s = '''open",
        "@decorator",
        "class A:\n    def f(self):\n        return 1",  # until an empty line ends the class
        "x = 1\nfor i in range(2):\n    print(i)",  # a paste whose last block goes on
    ],
)
def test_an_unfinished_statement_waits_for_more(source):
    assert needs_more_input(source)


@pytest.mark.parametrize(
    "source",
    [
        "x + 1",
        "x = 1\ny = 2",
        "def f(a):\n    return a\n",
        "def f(a):\n    return a\n    ",  # the line an editor indented, left empty
        "for i in range(3):\n    print(i)\n",
        "class A:\n    def f(self):\n        return 1\n",  # an empty line ends the whole block, as at >>>
        "1 +",  # never valid: run, and Python says what is wrong
        "print(1))",
        "await asyncio.sleep(0)",  # top-level await: the run decides
        "",
        "   ",
    ],
)
def test_a_finished_or_broken_statement_runs(source):
    assert not needs_more_input(source)


def test_a_page_without_a_console_says_so_in_its_starter_script():
    assert 'data-console="off"' in starter_script("lessons/a/", SETTINGS, console=False)
    assert "data-console" not in starter_script("lessons/a/", SETTINGS)


def plugin_with(**options) -> CoursePlugin:
    plugin = CoursePlugin()
    plugin.config = CourseConfig()
    plugin.config.load_dict({"package_source": "src/posenc", **options})
    errors, _ = plugin.config.validate()
    assert not errors, errors
    return plugin


def page(meta: dict, text: str = "---\ntitle: A\n---\n# A\n") -> SimpleNamespace:
    return SimpleNamespace(meta=meta, file=SimpleNamespace(src_uri="lessons/a.md", content_string=text))


@pytest.mark.parametrize(
    ("site", "meta", "shown"),
    [
        ({}, {}, True),  # on by default
        ({}, {"console": False}, False),  # a page turns it off
        ({"console": False}, {}, False),  # the site turns it off
        ({"console": False}, {"console": True}, True),  # a page turns it back on
    ],
)
def test_the_site_option_and_the_front_matter_choose_the_console(site, meta, shown):
    assert plugin_with(**site)._has_console(page(meta)) is shown


def test_a_front_matter_console_that_is_not_a_bool_fails_at_its_line():
    text = "---\ntitle: A\nconsole: maybe\n---\n# A\n"
    message = r"^lessons/a\.md:3: front matter 'console' must be true or false, not 'maybe'$"
    with pytest.raises(PluginError, match=message):
        plugin_with()._has_console(page({"console": "maybe"}, text))
