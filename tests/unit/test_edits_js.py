"""A learner's edits (assets/js/edits.js, under Node's test runner): kept, offered back after a deploy
changed the cell, shared by the tabs through storage events, and never broken by storage."""


def test_edits_pass_their_node_tests(node_tests):
    node_tests("edits")
