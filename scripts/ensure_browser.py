"""Find the browsers the tests drive, installing them if needed, and say which.

Chromium: ``$CHROMIUM`` if set; Debian's ``/usr/bin/chromium``; as root on Debian,
``apt-get install chromium``; otherwise Playwright's own ``playwright install chromium``.
The chosen executable is written to ``.cache/chromium-path`` for the tests.

Firefox and WebKit (the cross-browser tests, tests/browser/test_engines.py): Debian's
``firefox-esr``, and WebKitGTK's ``webkit2gtk-driver`` (WebKitWebDriver and MiniBrowser) with
``xvfb`` for its display, installed with apt-get as root on Debian; elsewhere the script says
what to install.  Firefox is driven by puppeteer-core, installed from npm with ``npm ci``
into ``tests/browser/engines/node_modules`` (pinned by its package-lock.json).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / ".cache" / "chromium-path"
DEBIAN = Path("/usr/bin/chromium")
ENGINES = ROOT / "tests" / "browser" / "engines"
# Debian package -> the file that shows it is installed
OTHER_ENGINES = {
    "firefox-esr": os.environ.get("FIREFOX", "/usr/bin/firefox-esr"),
    "webkit2gtk-driver": os.environ.get("WEBKIT_WEBDRIVER", "/usr/bin/WebKitWebDriver"),
    "xvfb": "/usr/bin/Xvfb",
}
MINIBROWSER = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"  # libwebkit2gtk, a dependency of webkit2gtk-driver


def main() -> None:
    missing = [package for package, path in OTHER_ENGINES.items() if not Path(path).exists()]
    path, how = find_or_install(missing)
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(str(path))
    print(f"browser: {path} ({how})")
    check_other_engines()
    install_puppeteer()


def can_apt() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None and Path("/etc/debian_version").exists()


def find_or_install(missing: list[str]) -> tuple[Path, str]:
    """Chromium's executable and how it was found; installs what ``missing`` lists with it (apt-get)."""
    if os.environ.get("CHROMIUM"):
        apt_install(missing)
        return Path(os.environ["CHROMIUM"]), "from $CHROMIUM"
    if DEBIAN.exists():
        apt_install(missing)
        return DEBIAN, "Debian's chromium package"
    if can_apt():
        apt_install(["chromium", *missing])
        return DEBIAN, "installed with apt-get"
    print("browser: installing Playwright's Chromium (no root or no apt-get)")
    run([sys.executable, "-m", "playwright", "install", "chromium"], CHROMIUM_HELP)
    return playwright_chromium(), "installed with playwright install chromium"


def apt_install(packages: list[str]) -> None:
    if not packages or not can_apt():
        return
    print(f"browser: installing Debian's {', '.join(packages)} with apt-get (running as root)")
    run(["apt-get", "update", "-qq"], OTHERS_HELP)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "install", "-y", "-qq", *packages], OTHERS_HELP, env=env)


def check_other_engines() -> None:
    """Say where Firefox and WebKit are; stop with what to install when one is missing."""
    missing = [package for package, path in OTHER_ENGINES.items() if not Path(path).exists()]
    if not glob.glob(MINIBROWSER) and "webkit2gtk-driver" not in missing:
        missing.append("webkit2gtk-driver")
    if missing:
        sys.exit(f"browser: missing {', '.join(missing)}.\n{OTHERS_HELP}")
    minibrowser = sorted(glob.glob(MINIBROWSER))[-1]
    print(f"browser: {OTHER_ENGINES['firefox-esr']}, {OTHER_ENGINES['webkit2gtk-driver']} with {minibrowser}")


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


CHROMIUM_HELP = (
    "Install Chromium yourself (Debian/Ubuntu: `sudo apt-get install chromium`; "
    "elsewhere: `.venv/bin/playwright install chromium`), or point $CHROMIUM at a "
    "Chromium or Chrome executable, then run make test again."
)
OTHERS_HELP = (
    "The cross-browser tests need Firefox ESR, WebKitGTK's WebDriver with MiniBrowser, and Xvfb. "
    "On Debian/Ubuntu: `sudo apt-get install firefox-esr webkit2gtk-driver xvfb` (or run `make browser` as root); "
    "elsewhere install Firefox ESR and point $FIREFOX at it, and WebKitGTK's WebKitWebDriver "
    "($WEBKIT_WEBDRIVER) with MiniBrowser and Xvfb, then run make test again."
)
PUPPETEER_HELP = f"Run `npm ci --prefix {ENGINES}` yourself (it needs the npm registry), then make test again."


def run(command: list[str], help_text: str, env: dict[str, str] | None = None) -> None:
    try:
        subprocess.run(command, check=True, env=env)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"browser: `{' '.join(command)}` failed ({error}).\n{help_text}")


if __name__ == "__main__":
    main()
