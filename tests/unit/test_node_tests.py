"""The browser code's logic that needs no browser, under Node's test runner: every
``tests/js/<name>.test.mjs``, each named after the module it tests (the cache policy, the output caps,
the kernel's queue and liveness on a fake clock, the worker's downloads and offline copies, the kept
snapshot's checks, the page's boot, a learner's edits, …). Collected by a glob, so a new file is run
without being listed."""

from pathlib import Path

import pytest

JS = Path(__file__).parents[1] / "js"
NODE_TESTS = sorted(path.name.removesuffix(".test.mjs") for path in JS.glob("*.test.mjs"))


def test_the_node_tests_are_found():
    assert {"kernel", "network", "protocol"} <= set(NODE_TESTS)


@pytest.mark.parametrize("name", NODE_TESTS)
def test_module_passes_its_node_tests(node_tests, name):
    node_tests(name)
