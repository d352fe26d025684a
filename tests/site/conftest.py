"""The build's tests: every project they build shares the session's build cache."""

from pathlib import Path

import pytest
import site_project


@pytest.fixture(autouse=True, scope="session")
def _shared_cache(build_cache: Path) -> None:
    site_project.CACHE = build_cache
