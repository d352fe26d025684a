"""stdlib_finder.py in CPython: a module of the official zip that the boot stdlib lacks is imported
from it, the zip fetched once, checked by its sha256; a zip that cannot be had names the module."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

from course_kernel import stdlib_finder

OFFICIAL = {  # a tiny "official stdlib": a module, a package and its submodule
    "course_rest_mod.py": "VALUE = 42\n",
    "course_rest_pkg/__init__.py": "",
    "course_rest_pkg/sub.py": "from course_rest_mod import VALUE\nTWICE = 2 * VALUE\n",
}
NAMES = frozenset({"course_rest_mod", "course_rest_pkg", "course_rest_pkg.sub"})


@pytest.fixture
def official(tmp_path: Path) -> bytes:
    path = tmp_path / "source.zip"
    with zipfile.ZipFile(path, "w") as made:
        for name, text in OFFICIAL.items():
            made.writestr(name, text)
    return path.read_bytes()


@pytest.fixture
def finder(official: bytes, tmp_path: Path, monkeypatch):
    fetched: list[int] = []

    def fetch() -> bytes:
        fetched.append(1)
        return official

    made = stdlib_finder.OfficialStdlibFinder(
        NAMES, hashlib.sha256(official).hexdigest(), fetch, str(tmp_path / "python_stdlib.zip")
    )
    made.fetched = fetched
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, made])
    for name in NAMES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    return made


def test_a_module_outside_the_boot_stdlib_is_imported_from_the_official_zip_fetched_once(finder):
    assert finder.needs({"course_rest_pkg.sub"}) and not finder.needs({"json", "not_a_module"})
    sub = importlib.import_module("course_rest_pkg.sub")
    assert sub.TWICE == 84 and sub.__file__ == f"{finder.path}/course_rest_pkg/sub.py"
    assert importlib.import_module("course_rest_mod").VALUE == 42
    assert finder.fetched == [1] and not finder.needs({"course_rest_mod"})


def test_other_names_are_left_to_the_next_finder(finder):
    with pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module("course_rest_nowhere")
    assert not isinstance(raised.value, stdlib_finder.StdlibUnavailable) and finder.fetched == []


def test_a_zip_that_cannot_be_downloaded_names_the_module_and_the_next_import_tries_again(finder, official):
    def offline() -> bytes:
        raise OSError("NetworkError: Failed to execute 'send' on 'XMLHttpRequest'")

    finder.fetch = offline
    with pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module("course_rest_mod")
    message = str(raised.value)
    assert message.startswith("No module named 'course_rest_mod' here yet: it is in Python's standard library")
    assert "could not be downloaded (NetworkError: Failed to execute 'send' on 'XMLHttpRequest')" in message
    assert message.endswith("Check your connection and run the cell again.")
    assert raised.value.name == "course_rest_mod"
    finder.provide(official)  # the connection is back: the worker hands the zip on
    assert importlib.import_module("course_rest_mod").VALUE == 42


def test_a_zip_that_is_not_the_official_one_is_refused(finder, official):
    finder.fetch = lambda: official + b"tampered"
    with pytest.raises(ModuleNotFoundError, match="not the ones this site was built with"):
        importlib.import_module("course_rest_pkg")
    assert not Path(finder.path).exists()


def test_without_a_boot_stdlib_nothing_is_installed():
    # CPython's importlib is not imported from a zip: the stdlib is whole, as with Pyodide's official zip.
    assert stdlib_finder.install(lambda: b"") is None
