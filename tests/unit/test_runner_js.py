"""The runner's browser code under Node's test runner (tests/js/<name>.test.mjs): the logic that needs
no browser, each module's file named after it: the cache policy (protocol.js), the output caps
(worker/output.js), the kernel's queue and liveness on a fake clock (kernel.js), the exercises'
verdicts (exercise.js), the bindings of a cell's inputs (inputs.js), the quizzes' marking (quiz.js),
the worker's offline copies (worker/network.js), the kept snapshot's checks (worker/snapshot.js), the
snapshot maker's start (worker/boot.js) and the page's boot (page_kernel.js)."""

import pytest

MODULES = [
    "protocol",
    "output",
    "kernel",
    "exercise",
    "quiz",
    "network",
    "snapshot",
    "snapshot_maker_start",
    "page_kernel_boot",
    "inputs",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_passes_its_node_tests(node_tests, name):
    node_tests(name)
