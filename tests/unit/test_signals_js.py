"""What Python's eval loop polls (assets/js/worker/signals.js, under Node's test runner): Stop's
request, and heartbeats while a cell runs, with the clock looked at on few of a busy loop's reads."""


def test_signals_pass_their_node_tests(node_tests):
    node_tests("signals")
