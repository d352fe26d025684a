"""Find the browsers the tests drive, installing what is missing where it can, and say which.

Chromium: ``$CHROMIUM`` if set; else Debian's ``/usr/bin/chromium``; else, on Debian,
``apt-get install chromium``; else Playwright's own (``playwright install chromium``).

Firefox, driven by puppeteer-core over WebDriver BiDi: ``$FIREFOX`` if set; else Debian's
``/usr/bin/firefox-esr``; else ``/usr/bin/firefox`` (Mozilla's, as on Ubuntu and on GitHub's
runner: Ubuntu packages no ``firefox-esr``); else, on Debian, ``apt-get install firefox-esr``.
Its ``--version`` must be `FIREFOX_MIN` or later.

WebKit: WebKitGTK's ``WebKitWebDriver`` (``$WEBKIT_WEBDRIVER``, else ``/usr/bin/WebKitWebDriver``)
with its MiniBrowser, on an Xvfb display; on Debian and Ubuntu ``apt-get install webkit2gtk-driver
xvfb``.

apt-get runs as root, or through ``sudo -n`` when this user has password-less sudo (GitHub's
runner, a developer's laptop).  Where neither works, or there is no apt-get (macOS), nothing is
installed and the script stops with what to install and which variable points at it.  The choices
are written to ``.cache/chromium-path``, ``.cache/firefox-path`` and
``.cache/webkit-webdriver-path``, where the tests read them.  Last, ``npm ci`` installs
puppeteer-core into ``tests/browser/engines/node_modules`` (pinned by its package-lock.json).

The decisions are pure functions of a `Machine`: `plan` (what to install), then `check` (what
the tests will use, or what is missing); `main` probes this machine and carries them out.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
ENGINES = ROOT / "tests" / "browser" / "engines"
CHROMIUM = "/usr/bin/chromium"  # Debian's chromium
FIREFOX_ESR = "/usr/bin/firefox-esr"  # Debian's firefox-esr
FIREFOX = "/usr/bin/firefox"  # Mozilla's Firefox (Ubuntu's, GitHub's runner's)
WEBKIT_WEBDRIVER = "/usr/bin/WebKitWebDriver"  # webkit2gtk-driver
XVFB = "/usr/bin/Xvfb"  # xvfb
MINIBROWSER = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"  # libwebkit2gtk, a dependency of webkit2gtk-driver
# The oldest Firefox puppeteer-core drives over WebDriver BiDi: Puppeteer's stable Firefox support, since
# Puppeteer 23, is for Firefox 129 and later (Chrome for Developers' Puppeteer pages, developer.chrome.com/docs/
# puppeteer, and their post "WebDriver BiDi production-ready in Firefox, Chrome and Puppeteer", August 2024).
# The pinned puppeteer-core 24.43.1 (tests/browser/engines/package-lock.json) checks no version itself and names
# no later minimum; it is released against Firefox 150.0.2 (node_modules/puppeteer-core/lib/esm/puppeteer/
# revisions.js).
FIREFOX_MIN = 129
PLAYWRIGHT = "playwright"  # the plan's Chromium when Playwright installs it (its path is known after)
VARIABLES = ("CHROMIUM", "FIREFOX", "WEBKIT_WEBDRIVER")
APT_INSTALL = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq"]


@dataclass(frozen=True)
class Machine:
    """What the decisions depend on (`probe` reads them off this machine).

    Attributes
    ----------
    root : bool
        Running as root.
    sudo : bool
        ``sudo -n true`` works: password-less sudo.
    distro : str
        ``"debian"``, ``"ubuntu"`` (each with its derivatives) or ``"other"``; ``"other"`` also
        where there is no apt-get.
    files : frozenset of str
        The paths, of those this script asks about, that exist.
    env : mapping of str to str
        The variables of `VARIABLES` that are set.
    minibrowser : str
        WebKitGTK's MiniBrowser, "" if there is none.
    firefox_version : str
        What ``--version`` of the Firefox `firefox_path` finds printed ("" if none).
    firefox_snap : bool
        That Firefox starts a snap (Ubuntu's ``/usr/bin/firefox`` may be a script that does).
    """

    root: bool
    sudo: bool
    distro: str
    files: frozenset[str]
    env: Mapping[str, str] = field(default_factory=dict)
    minibrowser: str = ""
    firefox_version: str = ""
    firefox_snap: bool = False


@dataclass
class Plan:
    """The commands to run, in order, what to say first, and the Chromium (`PLAYWRIGHT` for Playwright's)."""

    commands: list[list[str]]
    lines: list[str]
    chromium: str
    chromium_how: str


@dataclass
class Found:
    """What the tests will use: lines to print, ``.cache`` records (name: path), and an error ("" if none)."""

    lines: list[str]
    records: dict[str, str]
    error: str = ""


def apt_prefix(machine: Machine) -> list[str] | None:
    """What runs apt-get here: ``[]`` as root, ``["sudo", "-n"]`` with password-less sudo; None: nothing."""
    if machine.distro == "other":
        return None
    if machine.root:
        return []
    return ["sudo", "-n"] if machine.sudo else None


def firefox_path(machine: Machine) -> str:
    """The Firefox there is: ``$FIREFOX``, else Debian's ESR, else Mozilla's ("" if none)."""
    if machine.env.get("FIREFOX"):
        return machine.env["FIREFOX"]
    return next((path for path in (FIREFOX_ESR, FIREFOX) if path in machine.files), "")


def webkit_driver(machine: Machine) -> str:
    return machine.env.get("WEBKIT_WEBDRIVER") or WEBKIT_WEBDRIVER


def plan(machine: Machine) -> Plan:
    """What to install on ``machine``, and how (nothing where apt-get cannot run)."""
    prefix = apt_prefix(machine)
    chromium, how, packages = machine.env.get("CHROMIUM", ""), "from $CHROMIUM", []
    if not chromium and CHROMIUM in machine.files:
        chromium, how = CHROMIUM, "Debian's chromium package"
    elif not chromium and machine.distro == "debian" and prefix is not None:
        chromium, how, packages = CHROMIUM, "installed with apt-get", ["chromium"]
    elif not chromium:
        chromium, how = PLAYWRIGHT, "installed with playwright install chromium"
    if not firefox_path(machine) and machine.distro == "debian":
        packages.append("firefox-esr")
    if webkit_driver(machine) not in machine.files or not machine.minibrowser:
        packages.append("webkit2gtk-driver")
    if XVFB not in machine.files:
        packages.append("xvfb")
    commands, lines = [], []
    if packages and prefix is not None:
        who = "as root" if machine.root else "through `sudo -n` (not root; password-less sudo)"
        lines.append(f"browser: installing {', '.join(packages)} with apt-get {who}")
        commands += [[*prefix, "apt-get", "update", "-qq"], [*prefix, *APT_INSTALL, *packages]]
    if chromium == PLAYWRIGHT:
        lines.append(
            "browser: installing Playwright's Chromium (no $CHROMIUM, no /usr/bin/chromium, and Debian's "
            "chromium package cannot be installed here)"
        )
        commands.append([sys.executable, "-m", "playwright", "install", "chromium"])
    return Plan(commands, lines, chromium, how)


def check(machine: Machine, chromium: str, chromium_how: str) -> Found:
    """What the tests will use on ``machine`` once `plan` ran, or (``error``) what is missing and how to get it."""
    lines = [f"browser: Chromium {chromium} ({chromium_how})"]
    records = {"chromium-path": chromium}
    firefox, driver = firefox_path(machine), webkit_driver(machine)
    missing = []
    if problem := firefox_problem(machine, firefox):
        missing.append(problem)
    else:
        lines.append(f"browser: Firefox {firefox} ({machine.firefox_version})")
        records["firefox-path"] = firefox
        if machine.firefox_snap:
            lines.append(f"browser: note: {firefox} {SNAP_NOTE}")
    if driver not in machine.files or not machine.minibrowser:
        missing.append(webkit_hint(machine))
    if XVFB not in machine.files:
        missing.append(install_hint(machine, "xvfb", "Xvfb"))
    if missing:
        return Found(lines, records, missing_error(machine, missing))
    lines.append(f"browser: WebKit {driver} with {machine.minibrowser}, on Xvfb ({XVFB})")
    records["webkit-webdriver-path"] = driver
    return Found(lines, records)


def firefox_problem(machine: Machine, path: str) -> str:
    """What is wrong with the Firefox at ``path`` (what to install instead), "" if puppeteer-core can drive it."""
    what = f"Firefox {FIREFOX_MIN} or later"
    if path not in machine.files:
        return firefox_hint(machine, what)
    version = machine.firefox_version
    major = re.search(r"Firefox (\d+)\.", version)
    if major is None:
        return (
            f"{what}: `{path} --version` printed {version!r}, not a Firefox version (a snap's wrapper "
            "without its snap?); point FIREFOX at a Firefox"
        )
    if int(major.group(1)) < FIREFOX_MIN:
        return (
            f"{what}: {path} is {version}, too old for puppeteer-core (WebDriver BiDi); install a newer one "
            "(Debian: `sudo apt-get install firefox-esr`; elsewhere Mozilla's Firefox) and point FIREFOX at it"
        )
    return ""


def firefox_hint(machine: Machine, what: str) -> str:
    if machine.env.get("FIREFOX"):
        return f"{what}: FIREFOX={machine.env['FIREFOX']} does not exist; point FIREFOX at a Firefox"
    if machine.distro == "debian":
        return f"{install_hint(machine, 'firefox-esr', what)}, or Mozilla's Firefox with FIREFOX=/path/to/firefox"
    where = "Ubuntu packages no firefox-esr: " if machine.distro == "ubuntu" else ""
    return f"{what}: {where}Mozilla's Firefox, with FIREFOX=/path/to/firefox unless it is {FIREFOX}"


def webkit_hint(machine: Machine) -> str:
    what = install_hint(machine, "webkit2gtk-driver", "WebKitGTK's WebKitWebDriver with its MiniBrowser")
    if machine.distro == "other":
        what += " (WebKitGTK builds for Linux)"
    return f"{what}; WEBKIT_WEBDRIVER=/path/to/WebKitWebDriver points at one that is not {WEBKIT_WEBDRIVER}"


def install_hint(machine: Machine, package: str, what: str) -> str:
    return what if machine.distro == "other" else f"{what}: `sudo apt-get install {package}`"


def missing_error(machine: Machine, missing: list[str]) -> str:
    """The message that stops the script: each thing ``missing`` and how to get it, and why none was installed."""
    items = "".join(f"\n  - {item}" for item in missing)
    why = ""
    if machine.distro == "other":
        why = "\nNothing was installed: there is no apt-get here."
    elif apt_prefix(machine) is None:
        why = "\nNothing was installed: not root, and no password-less sudo (`sudo -n true` failed)."
    return (
        f"browser: the Firefox and WebKit tests need what is missing here:{items}{why}\n"
        "Install it, then run `make browser` again (CHROMIUM=/path/to/chrome chooses your own Chromium too)."
    )


SNAP_NOTE = (
    "starts a snap, which has a /tmp of its own: if the Firefox tests cannot start Firefox on their "
    "profiles (made under /tmp), install Mozilla's Firefox from its .deb or tarball and point FIREFOX at it."
)
RUN_HELP = (
    "Install it yourself (the lines above say what), or point CHROMIUM, FIREFOX and WEBKIT_WEBDRIVER at your "
    "own, then run `make browser` again."
)
PUPPETEER_HELP = f"Run `npm ci --prefix {ENGINES}` yourself (it needs the npm registry), then make test again."


# -- this machine


def probe() -> Machine:
    """This machine, as `plan` and `check` see it."""
    env = {name: os.environ[name] for name in VARIABLES if os.environ.get(name)}
    paths = {CHROMIUM, FIREFOX_ESR, FIREFOX, WEBKIT_WEBDRIVER, XVFB, *env.values()}
    root = os.geteuid() == 0
    apt = shutil.which("apt-get") is not None
    machine = Machine(
        root=root,
        sudo=not root and apt and sudo_works(),
        distro=distro(read("/etc/os-release")) if apt else "other",
        files=frozenset(path for path in paths if Path(path).exists()),
        env=env,
        minibrowser=max(glob.glob(MINIBROWSER), default=""),
    )
    firefox = firefox_path(machine)
    if firefox not in machine.files:
        return machine
    return replace(machine, firefox_version=version_of(firefox), firefox_snap=is_snap(firefox))


def sudo_works() -> bool:
    """Whether ``sudo -n`` runs a command without asking for a password."""
    if shutil.which("sudo") is None:
        return False
    try:
        return subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def distro(os_release: str) -> str:
    """``"ubuntu"``, ``"debian"`` or ``"other"``, from the text of /etc/os-release (ID and ID_LIKE)."""
    fields = dict(line.split("=", 1) for line in os_release.splitlines() if "=" in line)
    ids = {fields.get("ID", "").strip("\"'"), *fields.get("ID_LIKE", "").strip("\"'").split()}
    return "ubuntu" if "ubuntu" in ids else "debian" if "debian" in ids else "other"


def read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def version_of(firefox: str) -> str:
    try:
        done = subprocess.run([firefox, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"(it did not run: {error})"
    text = done.stdout.strip() or done.stderr.strip()
    return text.splitlines()[-1] if text else ""


def is_snap(path: str) -> bool:
    """Whether ``path`` starts a snap: it is one, or a script that runs one."""
    real = os.path.realpath(path)
    try:
        with open(real, "rb") as file:
            head = file.read(4096)
    except OSError:
        head = b""
    return real.startswith("/snap/") or (head.startswith(b"#!") and b"/snap/" in head)


def main() -> None:
    steps = plan(machine := probe())
    for line in steps.lines:
        print(line, flush=True)
    for command in steps.commands:
        run(command, RUN_HELP)
    if steps.commands:
        machine = probe()
    chromium = str(playwright_chromium()) if steps.chromium == PLAYWRIGHT else steps.chromium
    found = check(machine, chromium, steps.chromium_how)
    CACHE.mkdir(parents=True, exist_ok=True)
    for name, path in found.records.items():
        (CACHE / name).write_text(path)
    print("\n".join(found.lines), flush=True)
    if found.error:
        sys.exit(found.error)
    install_puppeteer()


def install_puppeteer() -> None:
    """puppeteer-core for the Firefox tests, with ``npm ci`` (kept while the lock file is unchanged)."""
    installed = ENGINES / "node_modules" / ".package-lock.json"
    lock = ENGINES / "package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
        print(f"browser: puppeteer-core in {installed.parent}")
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("browser: the Firefox tests need npm (Node.js 18+): run `make node`, then `make browser` again.")
    run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(ENGINES)], PUPPETEER_HELP)
    print(f"browser: puppeteer-core installed in {installed.parent}")


def playwright_chromium() -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        return Path(p.chromium.executable_path)


def run(command: list[str], help_text: str) -> None:
    try:
        subprocess.run(command, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"browser: `{' '.join(command)}` failed ({error}).\n{help_text}")


if __name__ == "__main__":
    main()
