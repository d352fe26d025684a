"""The browser tests need Playwright's Python package: without it they fail, saying how to install it.

(The ``browser`` fixture in tests/conftest.py fails the same way when Chromium is missing.)
"""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("playwright") is None:
    pytest.exit(
        "the browser tests need Playwright, which is not installed: run `make test` (it installs the dev "
        "extras), or `pip install -c requirements/constraints.txt -e '.[dev]'`, then `make browser` for Chromium",
        returncode=pytest.ExitCode.USAGE_ERROR,
    )
