"""The plugin's working modules run under any builder: only plugin.py and config.py import MkDocs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import course_site

ADAPTER = {"plugin", "config"}  # the MkDocs side: hooks, and the options of mkdocs.yml


def test_working_modules_do_not_import_mkdocs():
    names = sorted(path.stem for path in Path(course_site.__file__).parent.glob("*.py"))
    neutral = [name for name in names if name not in ADAPTER | {"__init__"}]
    assert {"fences", "quiz", "cells", "lesson_page", "execute", "shipped_python", "site_publish"} <= set(neutral)
    imports = "; ".join(f"import course_site.{name}" for name in neutral)
    check = "import sys; print(sorted(m for m in sys.modules if m.split('.')[0] == 'mkdocs'))"
    done = subprocess.run([sys.executable, "-c", f"{imports}; {check}"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
