"""The derived bytecode the build ships (derived_bytecode.py): used when it checks out, and when
it does not (a corrupt or missing file, here a sha256 that no longer matches it), Python boots
from the official files and compiles the sources, and every cell still runs.

Where the stdlib came from shows in the requests (the official zip is fetched only as the
fallback); where numpy's bytecode came from shows in ``sys.pycache_prefix``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_fixture import SETTINGS_FILE, guarded_page, make_fixture_site, run
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WHERE_NUMPY_CAME_FROM = """\
import json, os, sys
import numpy, posenc
print(json.dumps({
    "prefix": sys.pycache_prefix,
    "numpy_pyc": os.path.exists(numpy.__spec__.cached),
    "works": float(posenc.sinusoidal(4, 8)[1, 0]),
}))
"""


def where_numpy_came_from(page) -> dict:
    output = run(page, "#cell-1", WHERE_NUMPY_CAME_FROM)
    expect(page.locator("#cell-1")).to_have_attribute("data-status", "ok")
    return json.loads(output.locator(".course-out--stdout").inner_text())


@pytest.fixture(scope="module")
def settings(built_site: Path) -> dict:
    return json.loads((built_site / SETTINGS_FILE).read_text())


def test_the_preloaded_packages_are_imported_from_the_shipped_bytecode(browser, built_site, serve, settings, tmp_path):
    assert settings["package_bytecode"] and settings["stdlib"], "the course's build ships both derived zips"
    folder = make_fixture_site(built_site, tmp_path / "site")
    requests: list[str] = []
    with guarded_page(browser, serve(folder) + "fixture/", requests=requests) as (page, problems):
        found = where_numpy_came_from(page)
        assert not problems
    assert found == {"prefix": "/course-pyc", "numpy_pyc": True, "works": pytest.approx(0.8414709848078965)}
    fetched = {url.rsplit("/", 1)[-1] for url in requests}
    assert Path(settings["stdlib"]["url"]).name in fetched and "python_stdlib.zip" not in fetched


def test_corrupt_derived_files_fall_back_to_the_official_ones(browser, built_site, serve, settings, tmp_path):
    wrong = "0" * 64  # the sha256 of neither file: SRI rejects them as it would a corrupt download
    folder = make_fixture_site(
        built_site,
        tmp_path / "site",
        stdlib={**settings["stdlib"], "sha256": wrong},
        package_bytecode={**settings["package_bytecode"], "sha256": wrong},
    )
    requests: list[str] = []
    with guarded_page(browser, serve(folder) + "fixture/", requests=requests) as (page, problems):
        found = where_numpy_came_from(page)
        assert not problems
    # numpy's sources were compiled, as in a plain Pyodide (they write no .pyc in its file system)
    assert found == {"prefix": None, "numpy_pyc": False, "works": pytest.approx(0.8414709848078965)}
    assert "python_stdlib.zip" in {url.rsplit("/", 1)[-1] for url in requests}  # the official stdlib
