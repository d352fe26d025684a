"""The lesson pages of the built site: their own cells run in the browser under the site's CSP.

Runs every cell of each lesson in order, as a learner would, and compares the
live output with the output the plugin computed at build time.
"""

from __future__ import annotations

import pytest
from page_fixture import LESSONS, check_cells_run_like_at_build_time, guarded_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_cells_run_like_at_build_time(browser, site_server, lesson):
    with guarded_page(browser, site_server + lesson) as (page, problems):
        check_cells_run_like_at_build_time(page)
        assert not problems
