"""benchmarks/first_output.py's command line and site reading, without a browser."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def startup(benchmarks_importable: None) -> ModuleType:
    """The benchmark's package, imported as ``first_output.py`` imports it."""
    import startup.built_site
    import startup.cli

    return startup


@pytest.mark.parametrize("value", ["ab,xx", "abd", "ab,", "AB"])
def test_unknown_only_group_is_an_error_naming_the_valid_ones(
    startup: ModuleType, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        startup.cli.build_parser().parse_args(["--only", value])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert "argument --only: unknown group" in error
    assert "choose among ab = (a)+(b), d = floor_d+(d)+(e), cf = (c)+(f)" in error


@pytest.mark.parametrize(
    ("value", "groups"),
    [("ab", ["ab"]), ("d", ["d"]), ("cf", ["cf"]), ("cf,ab", ["cf", "ab"]), ("ab, d ,cf", ["ab", "d", "cf"])],
)
def test_known_only_groups_are_accepted(startup: ModuleType, value: str, groups: list[str]) -> None:
    assert startup.cli.build_parser().parse_args(["--only", value]).only == groups


def test_every_group_is_measured_by_default(startup: ModuleType) -> None:
    assert startup.cli.build_parser().parse_args([]).only == ["ab", "d", "cf"]


def test_a_later_visit_opens_at_once_unless_told_to_settle(startup: ModuleType) -> None:
    parser = startup.cli.build_parser()
    assert parser.parse_args([]).settle_seconds == 0.0
    assert parser.parse_args(["--settle-seconds", "2.5"]).settle_seconds == 2.5


@pytest.mark.parametrize("value", ["-1", "soon", "nan"])
def test_settle_seconds_must_be_a_duration(startup: ModuleType, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        startup.cli.build_parser().parse_args(["--settle-seconds", value])
    assert exit_info.value.code == 2
    assert f"argument --settle-seconds: {value!r} is not a number of seconds, 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["worker-settings.json", "runtime.json"])
def test_worker_settings_are_read_under_the_new_or_the_old_name(startup: ModuleType, tmp_path: Path, name: str) -> None:
    course = tmp_path / "assets" / "course"
    course.mkdir(parents=True)
    (course / name).write_text(json.dumps({"lock_file_url": "lock.json"}))
    path, settings = startup.built_site.read_worker_settings(tmp_path)
    assert (path, settings) == (f"assets/course/{name}", {"lock_file_url": "lock.json"})


def test_missing_worker_settings_error_names_both_files(startup: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"no worker settings \(worker-settings.json, runtime.json\)"):
        startup.built_site.read_worker_settings(tmp_path)
