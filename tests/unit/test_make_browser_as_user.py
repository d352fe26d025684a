"""`make browser` run for real by a user who is not root but has password-less sudo (as on GitHub's runner).

The set-up (root only) makes that user and its ``/etc/sudoers.d`` file, installs sudo with apt-get if
it is missing, and copies what `make browser` reads into a folder of the user's.  The copy gets a
virtual environment of its own (``python3 -m venv --without-pip``: ensure_browser.py needs only the
standard library here) and puppeteer-core's npm marker, so make runs ``scripts/ensure_browser.py`` at
once instead of building a venv or running ``npm ci``.  The user and the sudoers file are removed after,
also when the test fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # it must find the three engines: `make check` (no browser) leaves it out

ROOT = Path(__file__).resolve().parents[2]
# What `make browser` reads: the Makefile, its venv stamp's prerequisites, the script, the npm lock.
READS = [
    "Makefile",
    "pyproject.toml",
    "src/course_site/pyproject.toml",
    "requirements/constraints.txt",
    "scripts/ensure_browser.py",
    "tests/browser/engines/package.json",
    "tests/browser/engines/package-lock.json",
]
NPM_MARKER = "tests/browser/engines/node_modules/.package-lock.json"
SYSTEM_PYTHON = "/usr/bin/python3"  # one the new user can run (the suite's may live under /root)
TOOLS = ("useradd", "userdel", "runuser", "make")


def ensure_sudo() -> str:
    """sudo's path, installed with apt-get when missing ("" if it cannot be)."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "sudo"]
    for commands in ([install], [["apt-get", "update", "-qq"], install]):
        if shutil.which("sudo") or not shutil.which("apt-get"):
            break
        for command in commands:
            subprocess.run(command, env=env, capture_output=True, timeout=600)
    return shutil.which("sudo") or ""


@pytest.fixture
def sudoer() -> Iterator[str]:
    """A new user with password-less sudo; removed after, with its home and its sudoers file."""
    if os.geteuid() != 0:
        pytest.skip("creates a user and a sudoers file, which needs root (CI runs as root)")
    if missing := [tool for tool in TOOLS if shutil.which(tool) is None]:
        pytest.skip(f"needs {', '.join(missing)} to run make as a new user")
    if not ensure_sudo():
        pytest.skip("sudo is missing, and `apt-get install sudo` did not install it")
    name = f"mkbrowser{os.getpid()}"
    sudoers = Path("/etc/sudoers.d") / name
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True)
    try:
        sudoers.write_text(f"{name} ALL=(ALL) NOPASSWD: ALL\n")
        sudoers.chmod(0o440)
        yield name
    finally:
        sudoers.unlink(missing_ok=True)
        subprocess.run(["userdel", "--remove", name], capture_output=True)


@pytest.fixture
def checkout(sudoer: str) -> Iterator[Path]:
    """A copy of what `make browser` reads, owned by ``sudoer``, with its venv stamp up to date."""
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"needs {SYSTEM_PYTHON} for the copy's virtual environment")
    if not (ROOT / NPM_MARKER).exists():
        pytest.skip("puppeteer-core is not installed here: run `make browser` first")
    copy = Path(tempfile.mkdtemp(prefix="make-browser-"))
    try:
        for path in [*READS, NPM_MARKER]:
            (copy / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, copy / path)  # mtimes kept: the marker stays newer than the lock
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(copy / ".venv")], check=True)
        (copy / ".venv" / ".installed").touch()  # newer than the copied prerequisites
        subprocess.run(["chown", "-R", f"{sudoer}:", str(copy)], check=True)
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def as_user(user: str, *command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run as ``user`` in a clean environment (no CHROMIUM, FIREFOX or WEBKIT_WEBDRIVER)."""
    env = ["env", "-i", f"HOME=/home/{user}", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"]
    return subprocess.run(
        ["runuser", "-u", user, "--", *env, *command], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_make_browser_as_a_user_with_password_less_sudo_finds_the_three_engines(sudoer, checkout) -> None:
    made = as_user(sudoer, "make", "browser", cwd=checkout)
    assert made.returncode == 0, made.stdout + made.stderr
    lines = made.stdout.splitlines()
    assert lines[0] == ".venv/bin/python scripts/ensure_browser.py", made.stdout  # make ran it, nothing before
    engines = {line.split()[1]: line for line in lines if line.startswith("browser: ")}
    assert engines.keys() >= {"Chromium", "Firefox", "WebKit"}, made.stdout
    cache = checkout / ".cache"
    for name, record in (
        ("Chromium", "chromium-path"),
        ("Firefox", "firefox-path"),
        ("WebKit", "webkit-webdriver-path"),
    ):
        path = (cache / record).read_text()
        assert engines[name].startswith(f"browser: {name} {path} "), made.stdout
        assert Path(path).exists()
        assert (cache / record).owner() == sudoer

    # What the script sees as that user: not root, password-less sudo, so an install goes through `sudo -n`.
    probe = (
        "import dataclasses, sys; sys.path.insert(0, 'scripts'); import ensure_browser as e; m = e.probe(); "
        "print(m.root, m.sudo); print(e.plan(dataclasses.replace(m, files=m.files - {e.XVFB})).commands[0])"
    )
    seen = as_user(sudoer, ".venv/bin/python", "-c", probe, cwd=checkout)
    assert seen.returncode == 0, seen.stderr
    who, update = seen.stdout.splitlines()
    assert who == "False True", seen.stdout  # Machine.root, Machine.sudo
    assert update == "['sudo', '-n', 'apt-get', 'update', '-qq']"
