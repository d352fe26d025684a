"""Find a Chromium for the browser tests, installing one if needed, and say which.

Order: ``$CHROMIUM`` if set; Debian's ``/usr/bin/chromium``; as root on Debian,
``apt-get install chromium``; otherwise Playwright's own ``playwright install chromium``.
The chosen executable is written to ``.cache/chromium-path`` for the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

RECORD = Path(".cache/chromium-path")
DEBIAN = Path("/usr/bin/chromium")


def main() -> None:
    path, how = find_or_install()
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(str(path))
    print(f"browser: {path} ({how})")


def find_or_install() -> tuple[Path, str]:
    if os.environ.get("CHROMIUM"):
        return Path(os.environ["CHROMIUM"]), "from $CHROMIUM"
    if DEBIAN.exists():
        return DEBIAN, "Debian's chromium package"
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("browser: installing Debian's chromium with apt-get (running as root)")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "chromium"], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        return DEBIAN, "installed with apt-get"
    print("browser: installing Playwright's Chromium (no root or no apt-get)")
    run([sys.executable, "-m", "playwright", "install", "chromium"])
    return playwright_chromium(), "installed with playwright install chromium"


def playwright_chromium() -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        return Path(p.chromium.executable_path)


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    try:
        subprocess.run(command, check=True, env=env)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(
            f"browser: `{' '.join(command)}` failed ({error}).\n"
            "Install Chromium yourself (Debian/Ubuntu: `sudo apt-get install chromium`; "
            "elsewhere: `.venv/bin/playwright install chromium`), or point $CHROMIUM at a "
            "Chromium or Chrome executable, then run make test again."
        )


if __name__ == "__main__":
    main()
