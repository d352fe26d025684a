"""The benchmarks' GitHub-Pages-like server (benchmarks/startup/server.py): its caching headers, without a browser."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def server_module(benchmarks_importable: None) -> ModuleType:
    import startup.server

    return startup.server


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as err:  # 304 arrives as an HTTPError
        return err.code, dict(err.headers)


@pytest.mark.parametrize("cache_control", [None, "max-age=2"])
def test_files_carry_the_cache_control_asked_for_and_revalidate_by_etag(
    server_module: ModuleType, tmp_path: Path, cache_control: str | None
) -> None:
    (tmp_path / "page.html").write_text("<p>hi</p>")
    options = {} if cache_control is None else {"cache_control": cache_control}
    with server_module.SiteServer(tmp_path, gzip_text=False, **options) as server:
        status, headers = get(server.base_url + "page.html")
        assert status == 200
        assert headers["Cache-Control"] == (cache_control or "max-age=600")  # GitHub Pages' by default
        again, _ = get(server.base_url + "page.html", {"If-None-Match": headers["ETag"]})
        assert again == 304
