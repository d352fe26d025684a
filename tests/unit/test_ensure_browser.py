"""`make browser`'s decisions (scripts/ensure_browser.py) on the machines it meets, nothing run.

Root on Debian; a user with password-less sudo (GitHub's runner, a developer's laptop); Ubuntu,
which packages no firefox-esr; and elsewhere (macOS, no sudo), where it stops with what to install.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import ensure_browser as eb
import pytest
from ensure_browser import CHROMIUM, FIREFOX, FIREFOX_ESR, WEBKIT_WEBDRIVER, XVFB, Machine

ENGINES = Path(__file__).parents[1] / "browser" / "fixture"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
CHROME = "/usr/bin/google-chrome"
UPDATE = ["apt-get", "update", "-qq"]
INSTALL = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq"]
PLAYWRIGHT = [sys.executable, "-m", "playwright", "install", "chromium"]
SUDO = ["sudo", "-n"]
WEBKIT = {WEBKIT_WEBDRIVER, XVFB}
RUNNER_ENV = {"CHROMIUM": CHROME, "FIREFOX": FIREFOX}  # .github/workflows/pages.yml


def machine(files=(), *, installed=False, **fields) -> Machine:
    """A machine: Debian, not root, no sudo, with ``files`` (and MiniBrowser when ``installed``)."""
    defaults = {"root": False, "sudo": False, "distro": "debian", "files": frozenset(files)}
    if installed:
        defaults |= {"minibrowser": MINIBROWSER, "firefox_version": "Mozilla Firefox 153.8.0esr"}
    return Machine(**{**defaults, **fields})


def found(m: Machine) -> eb.Found:
    steps = eb.plan(m)
    return eb.check(m, steps.chromium, steps.chromium_how)


# -- root on Debian


def test_root_on_debian_installs_everything_with_apt_get() -> None:
    steps = eb.plan(machine(root=True))
    assert steps.commands == [UPDATE, [*INSTALL, "chromium", "firefox-esr", "webkit2gtk-driver", "xvfb"]]
    assert steps.lines == ["browser: installing chromium, firefox-esr, webkit2gtk-driver, xvfb with apt-get as root"]
    assert (steps.chromium, steps.chromium_how) == (CHROMIUM, "installed with apt-get")


def test_root_on_debian_with_everything_there_runs_nothing_and_records_the_three_engines() -> None:
    m = machine({CHROMIUM, FIREFOX_ESR, *WEBKIT}, installed=True, root=True)
    assert eb.plan(m).commands == []
    result = found(m)
    assert result.error == ""
    assert result.lines == [
        "browser: Chromium /usr/bin/chromium (Debian's chromium package)",
        "browser: Firefox /usr/bin/firefox-esr (Mozilla Firefox 153.8.0esr)",
        f"browser: WebKit /usr/bin/WebKitWebDriver with {MINIBROWSER}, on Xvfb (/usr/bin/Xvfb)",
    ]
    assert result.records == {
        "chromium-path": CHROMIUM,
        "firefox-path": FIREFOX_ESR,
        "webkit-webdriver-path": WEBKIT_WEBDRIVER,
    }


def test_only_what_is_missing_is_installed() -> None:
    steps = eb.plan(machine({CHROMIUM, FIREFOX_ESR, WEBKIT_WEBDRIVER}, root=True, minibrowser=MINIBROWSER))
    assert steps.commands == [UPDATE, [*INSTALL, "xvfb"]]


# -- not root, password-less sudo


def test_password_less_sudo_installs_through_sudo_n() -> None:
    steps = eb.plan(machine(sudo=True))
    assert steps.commands == [
        [*SUDO, *UPDATE],
        [*SUDO, *INSTALL, "chromium", "firefox-esr", "webkit2gtk-driver", "xvfb"],
    ]
    assert steps.lines == [
        "browser: installing chromium, firefox-esr, webkit2gtk-driver, xvfb with apt-get "
        "through `sudo -n` (not root; password-less sudo)"
    ]


def test_githubs_runner_installs_the_webkit_driver_and_xvfb_and_uses_its_chrome_and_firefox() -> None:
    runner = machine({CHROME, FIREFOX}, sudo=True, distro="ubuntu", env=RUNNER_ENV)
    steps = eb.plan(runner)
    assert steps.commands == [[*SUDO, *UPDATE], [*SUDO, *INSTALL, "webkit2gtk-driver", "xvfb"]]
    installed = machine(
        {CHROME, FIREFOX, *WEBKIT},
        sudo=True,
        distro="ubuntu",
        env=RUNNER_ENV,
        minibrowser=MINIBROWSER,
        firefox_version="Mozilla Firefox 133.0",
    )
    result = eb.check(installed, steps.chromium, steps.chromium_how)
    assert result.error == ""
    assert result.lines[:2] == [
        "browser: Chromium /usr/bin/google-chrome (from $CHROMIUM)",
        "browser: Firefox /usr/bin/firefox (Mozilla Firefox 133.0)",
    ]
    assert result.records["firefox-path"] == FIREFOX


# -- Ubuntu: no firefox-esr


def test_ubuntu_uses_mozillas_firefox_and_installs_no_firefox_esr_nor_chromium() -> None:
    steps = eb.plan(machine({FIREFOX}, root=True, distro="ubuntu"))
    assert steps.commands == [[*UPDATE], [*INSTALL, "webkit2gtk-driver", "xvfb"], PLAYWRIGHT]
    assert steps.chromium == eb.PLAYWRIGHT
    result = eb.check(machine({FIREFOX, *WEBKIT}, installed=True, distro="ubuntu"), "/pw/chrome", steps.chromium_how)
    assert result.records == {
        "chromium-path": "/pw/chrome",
        "firefox-path": FIREFOX,
        "webkit-webdriver-path": WEBKIT_WEBDRIVER,
    }


def test_firefox_from_the_environment_comes_first() -> None:
    own = "/opt/firefox/firefox"
    m = machine({own, FIREFOX_ESR, CHROMIUM, *WEBKIT}, installed=True, env={"FIREFOX": own})
    assert found(m).records["firefox-path"] == own
    assert found(m).lines[1] == "browser: Firefox /opt/firefox/firefox (Mozilla Firefox 153.8.0esr)"


def test_a_firefox_older_than_puppeteer_core_drives_is_refused() -> None:
    assert eb.FIREFOX_MIN == 129
    ubuntu = {"sudo": True, "distro": "ubuntu", "minibrowser": MINIBROWSER}
    old = machine({CHROMIUM, FIREFOX, *WEBKIT}, firefox_version="Mozilla Firefox 128.0.3", **ubuntu)
    result = found(old)
    assert "firefox-path" not in result.records
    assert result.error == (
        "browser: the Firefox and WebKit tests need what is missing here:\n"
        "  - Firefox 129 or later: /usr/bin/firefox is Mozilla Firefox 128.0.3, too old for puppeteer-core "
        "(WebDriver BiDi); install a newer one (Debian: `sudo apt-get install firefox-esr`; elsewhere Mozilla's "
        "Firefox) and point FIREFOX at it\n"
        "Install it, then run `make browser` again (CHROMIUM=/path/to/chrome chooses your own Chromium too)."
    )
    oldest = machine({CHROMIUM, FIREFOX, *WEBKIT}, firefox_version="Mozilla Firefox 129.0", **ubuntu)
    assert found(oldest).error == ""


def test_a_firefox_that_prints_no_version_is_refused_and_a_snap_is_noted() -> None:
    snap = machine({CHROMIUM, FIREFOX, *WEBKIT}, distro="ubuntu", minibrowser=MINIBROWSER, firefox_snap=True)
    no_snap = found(replace(snap, firefox_version="Command '/usr/bin/firefox' requires the snap"))
    assert "`/usr/bin/firefox --version` printed \"Command '/usr/bin/firefox' requires the snap\"" in no_snap.error
    with_snap = found(replace(snap, firefox_version="Mozilla Firefox 133.0"))
    assert with_snap.error == ""
    assert with_snap.lines[2].startswith("browser: note: /usr/bin/firefox starts a snap, which has a /tmp of its own")


def test_ubuntu_without_a_firefox_says_to_install_mozillas() -> None:
    m = machine({CHROMIUM, *WEBKIT}, root=True, distro="ubuntu", minibrowser=MINIBROWSER)
    assert eb.plan(m).commands == []
    assert "  - Firefox 129 or later: Ubuntu packages no firefox-esr: Mozilla's Firefox, with " in found(m).error


# -- elsewhere: nothing installed, what to install said


def test_macos_installs_playwrights_chromium_and_stops_with_what_to_install() -> None:
    m = machine(distro="other", root=True)
    steps = eb.plan(m)
    assert steps.commands == [PLAYWRIGHT]
    result = eb.check(m, "/pw/chrome", steps.chromium_how)
    assert result.lines == ["browser: Chromium /pw/chrome (installed with playwright install chromium)"]
    assert result.records == {"chromium-path": "/pw/chrome"}
    assert result.error == (
        "browser: the Firefox and WebKit tests need what is missing here:\n"
        "  - Firefox 129 or later: Mozilla's Firefox, with FIREFOX=/path/to/firefox unless it is /usr/bin/firefox\n"
        "  - WebKitGTK's WebKitWebDriver with its MiniBrowser (WebKitGTK builds for Linux); "
        "WEBKIT_WEBDRIVER=/path/to/WebKitWebDriver points at one that is not /usr/bin/WebKitWebDriver\n"
        "  - Xvfb\n"
        "Nothing was installed: there is no apt-get here.\n"
        "Install it, then run `make browser` again (CHROMIUM=/path/to/chrome chooses your own Chromium too)."
    )


def test_debian_without_root_or_sudo_installs_nothing_with_apt_and_says_what_to() -> None:
    m = machine()
    assert eb.plan(m).commands == [PLAYWRIGHT]
    assert eb.check(m, "/pw/chrome", "").error == (
        "browser: the Firefox and WebKit tests need what is missing here:\n"
        "  - Firefox 129 or later: `sudo apt-get install firefox-esr`, or Mozilla's Firefox with "
        "FIREFOX=/path/to/firefox\n"
        "  - WebKitGTK's WebKitWebDriver with its MiniBrowser: `sudo apt-get install webkit2gtk-driver`; "
        "WEBKIT_WEBDRIVER=/path/to/WebKitWebDriver points at one that is not /usr/bin/WebKitWebDriver\n"
        "  - Xvfb: `sudo apt-get install xvfb`\n"
        "Nothing was installed: not root, and no password-less sudo (`sudo -n true` failed).\n"
        "Install it, then run `make browser` again (CHROMIUM=/path/to/chrome chooses your own Chromium too)."
    )


def test_a_firefox_from_the_environment_that_is_not_there_is_named() -> None:
    m = machine({CHROMIUM, *WEBKIT}, root=True, minibrowser=MINIBROWSER, env={"FIREFOX": "/nowhere/firefox"})
    assert eb.plan(m).commands == []  # $FIREFOX is the user's choice: no firefox-esr instead
    assert "  - Firefox 129 or later: FIREFOX=/nowhere/firefox does not exist; point FIREFOX at a Firefox" in (
        found(m).error
    )


@pytest.mark.parametrize(
    ("os_release", "expected"),
    [
        ('ID=debian\nVERSION_ID="12"\n', "debian"),
        ("ID=ubuntu\nID_LIKE=debian\n", "ubuntu"),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', "ubuntu"),
        ("ID=raspbian\nID_LIKE=debian\n", "debian"),
        ('ID=fedora\nID_LIKE=""\n', "other"),
        ("", "other"),
    ],
)
def test_the_distribution_is_read_from_os_release(os_release: str, expected: str) -> None:
    assert eb.distro(os_release) == expected


# -- main: the plan carried out, the machine probed again, the choices recorded


def test_main_runs_the_plan_probes_again_and_records_the_choices(monkeypatch, tmp_path) -> None:
    before = machine({FIREFOX}, sudo=True, distro="ubuntu", env=RUNNER_ENV)
    after = machine({CHROME, FIREFOX, *WEBKIT}, installed=True, sudo=True, distro="ubuntu", env=RUNNER_ENV)
    probes, ran = iter([before, after]), []
    monkeypatch.setattr(eb, "probe", lambda: next(probes))
    monkeypatch.setattr(eb, "run", lambda command, help_text: ran.append(command))
    monkeypatch.setattr(eb, "install_puppeteer", lambda: None)
    monkeypatch.setattr(eb, "CACHE", tmp_path)
    eb.main()
    assert ran == [[*SUDO, *UPDATE], [*SUDO, *INSTALL, "webkit2gtk-driver", "xvfb"]]
    records = {path.name: path.read_text() for path in tmp_path.iterdir()}
    assert records == {"chromium-path": CHROME, "firefox-path": FIREFOX, "webkit-webdriver-path": WEBKIT_WEBDRIVER}


def test_main_stops_with_the_error_after_recording_chromium(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(eb, "probe", lambda: machine({CHROMIUM}))
    monkeypatch.setattr(eb, "CACHE", tmp_path)
    with pytest.raises(SystemExit, match="Nothing was installed: not root, and no password-less sudo"):
        eb.main()
    assert capsys.readouterr().out == "browser: Chromium /usr/bin/chromium (Debian's chromium package)\n"
    assert (tmp_path / "chromium-path").read_text() == CHROMIUM


def test_the_tests_read_the_recorded_firefox(monkeypatch, tmp_path) -> None:
    monkeypatch.syspath_prepend(str(ENGINES))
    import engines

    monkeypatch.setattr(engines, "ROOT", tmp_path)
    assert engines.recorded("firefox-path", FIREFOX_ESR) == FIREFOX_ESR
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "firefox-path").write_text(FIREFOX + "\n")
    assert engines.recorded("firefox-path", FIREFOX_ESR) == FIREFOX
