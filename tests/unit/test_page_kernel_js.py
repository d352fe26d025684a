"""When the page's background work starts (assets/js/page_kernel.js, under Node's test runner): the
offline copy, the editor and the snapshot wait until Python has been quiet for QUIET_MS, so that a
Run clicked again right after the first output does not share the CPU with them."""


def test_page_kernel_passes_its_node_tests(node_tests):
    node_tests("page_kernel")
