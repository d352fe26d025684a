"""Find Node.js for the build (it runs the cells in the site's Pyodide), installing it if needed, and say which.

Order: ``node`` on PATH if it is recent enough; as root on Debian, ``apt-get install nodejs``;
otherwise a message saying how to install it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

MIN_MAJOR = 18  # the pinned Pyodide runs under Node 18+


def main() -> None:
    found = version()
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        print("node: installing Debian's nodejs with apt-get (running as root)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "nodejs"]):
            subprocess.run(command, check=False, env=env)
        found = version()
    if found is None:
        sys.exit(
            f"node: the build runs the cells in Pyodide under Node.js {MIN_MAJOR}+, and none was found.\n"
            "Install it (Debian/Ubuntu: `sudo apt-get install nodejs`; elsewhere: https://nodejs.org), "
            "then run make again."
        )
    print(f"node: {shutil.which('node')} ({found})")


def version() -> str | None:
    """The version of ``node`` on PATH if it is at least ``MIN_MAJOR``, else None."""
    node = shutil.which("node")
    if node is None:
        return None
    text = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    major = re.match(r"v(\d+)", text)
    return text if major and int(major[1]) >= MIN_MAJOR else None


if __name__ == "__main__":
    main()
