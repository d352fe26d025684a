"""exercise_check in CPython: the verdict and the sentence a learner reads after a Run.

The Pyodide worker runs the same file; the build runs it to prove exercises.
"""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest

from course_kernel import cell_exec, exercise_check
from course_kernel.strings import t


@pytest.fixture(scope="module")
def check():
    return exercise_check


@pytest.fixture(scope="module")
def runtime():
    return cell_exec


def learner(**names):
    return {"__name__": "__main__", **names}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('assert period == 8, "The period of pair 0 is 2π, about 6.28"', "The period of pair 0 is 2π, about 6.28"),
        ("assert period == 8", "check failed: `assert period == 8`"),
        ("x = 1\nassert (period\n        == 8)\n", "check failed: `assert (period == 8)`"),
        ("for k in range(3):\n    assert k < 2\n", "check failed: `assert k < 2`"),
        ("assert wavelength > 0", "`wavelength` is not defined — did your code define it, and did you run it?"),
        (
            "assert period + 'a'",
            "`assert period + 'a'` raised TypeError: unsupported operand type(s) for +: 'int' and 'str'",
        ),
        (
            "assert first(0) == 1",
            "your code raised ZeroDivisionError: division by zero when the check ran `assert first(0) == 1`",
        ),
        ("x = = 1", "the check does not compile: line 1: invalid syntax"),
    ],
)
def test_first_failure_in_plain_words(check, runtime, source, message):
    namespace = learner(period=6)
    assert runtime.run_cell("def first(x):\n    return 1 / x", namespace, filename="<exercise>", emit=print)
    result = check.run_check(source, namespace)
    assert result == check.CheckResult(False, message)
    assert "Traceback" not in result.message


def test_an_error_inside_a_library_is_the_checks_not_the_learners(check):
    result = check.run_check("import numpy as np\nassert np.allclose(pe, np.ones((3, 2)))", learner(pe=np.ones((2, 3))))
    assert result.message.startswith("`assert np.allclose(pe, np.ones((3, 2)))` raised ValueError: operands could not")


def test_an_error_in_the_learners_function_is_theirs_even_through_a_library(check, runtime):
    namespace = learner()
    code = "import numpy as np\ndef scale(x):\n    return x / 'two'\n"
    assert runtime.run_cell(code, namespace, filename="<exercise>", emit=lambda *_: None)
    result = check.run_check("assert np.apply_along_axis(scale, 0, np.ones(2)).sum() == 1", namespace)
    assert result.message.startswith("your code raised TypeError: ")
    assert result.message.endswith("when the check ran `assert np.apply_along_axis(scale, 0, np.ones(2)).sum() == 1`")


def test_first_failing_statement_wins(check):
    source = 'assert period > 0, "positive"\nassert period == 8, "eight"\nassert period == 9, "nine"'
    assert check.run_check(source, learner(period=6)).message == "eight"


def test_pass_and_the_check_leaves_the_learners_namespace_alone(check):
    namespace = learner(period=8)
    result = check.run_check("helper = period * 2\nprint('hidden')\nassert helper == 16", namespace)
    assert result == check.CheckResult(True, t("exercise.passed"))
    assert set(namespace) == {"__name__", "period"}


def test_learners_name_does_not_hide_a_helper(check):
    result = check.run_check("expect_equal(period, 8, name='period')", learner(period=8, expect_equal=None))
    assert result.passed


def test_stop_and_exit_are_not_failures(check):
    def spin():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check.run_check("spin()", learner(spin=spin))
    with pytest.raises(SystemExit):
        check.run_check("leave()", learner(leave=sys.exit))


def test_expect_defined_names_the_first_missing(check):
    result = check.run_check("expect_defined('period', 'phase', 'pe')", learner(period=1))
    assert result.message == "`phase` is not defined — did your code define it, and did you run it?"
    assert check.run_check("expect_defined('period')", learner(period=1)).passed


@pytest.mark.parametrize(
    ("actual", "expected", "message"),
    [
        (np.zeros((4, 8)), np.zeros((8, 4)), "`pe` has shape (4, 8), expected shape (8, 4)"),
        (None, np.zeros(3), "`pe` should hold numbers, but it is None"),
        (
            np.array([[0.0, 1.0], [2.0, 3.5]]),
            np.array([[0.0, 1.0], [2.0, 3.0]]),
            "`pe` is not close to the expected values: 1 of 4 entries differ; "
            "the largest difference is 0.5 at index [1, 1] (it holds 3.5, expected 3.0)",
        ),
        (
            np.array([np.nan, 2.0, 5.0]),
            np.array([1.0, 2.0, 4.0]),
            "`pe` is not close to the expected values: 2 of 3 entries differ; "
            "the largest difference is nan at index [0] (it holds nan, expected 1.0)",
        ),
        (6.0, 6.5, "`pe` is 6.0, expected 6.5 (difference 0.5)"),
    ],
)
def test_expect_close_reports_shapes_and_the_largest_difference(check, actual, expected, message):
    with pytest.raises(AssertionError) as caught:
        check.expect_close(actual, expected, name="pe")
    assert str(caught.value) == message


def test_expect_close_tolerances_and_nan(check):
    check.expect_close(0.1 + 0.2, 0.3)
    check.expect_close([1.0, np.nan], np.array([1.0 + 1e-9, np.nan]))
    check.expect_close(np.float32(2.0), 2.0)
    check.expect_close([1.0, 2.0], [1.1, 2.2], rtol=0.1)
    with pytest.raises(AssertionError):
        check.expect_close([1.0, 2.0], [1.1, 2.2], rtol=0.01)
    check.expect_close([1.0], [1.05], atol=0.1, rtol=0)


def test_expect_equal_on_values_and_arrays(check):
    check.expect_equal((2, 4), (2, 4))
    check.expect_equal(np.arange(3), [0, 1, 2])
    with pytest.raises(AssertionError, match=r"^`period` is '8', expected 8$"):
        check.expect_equal("8", 8, name="period")
    with pytest.raises(AssertionError, match=r"^`order` differs from the expected values at index \[2\]: "):
        check.expect_equal(np.array([0, 1, 3]), np.array([0, 1, 2]), name="order")
    with pytest.raises(AssertionError, match=r"has shape \(2,\), expected shape \(3,\)"):
        check.expect_equal(np.array([0, 1]), [0, 1, 2], name="order")


def test_long_values_are_shortened(check):
    with pytest.raises(AssertionError) as caught:
        check.expect_equal(list(range(100)), [], name="xs")
    assert "…" in str(caught.value) and len(str(caught.value)) < 200


def test_helper_failure_inside_the_check_gives_the_helpers_message(check):
    namespace = learner(pe=np.ones((2, 3)))
    result = check.run_check("import numpy as np\nexpect_close(pe, np.ones((3, 2)), name='pe')", namespace)
    assert result.message == "`pe` has shape (2, 3), expected shape (3, 2)"


def test_run_exercise_runs_setup_code_check_in_one_fresh_namespace(check, runtime):
    events = []

    def emit(kind, payload):
        events.append((kind, payload))

    def run(code):
        return check.run_exercise(
            "base = 10000", code, "assert wavelength == 2 * base", run_cell=runtime.run_cell, emit=emit
        )

    assert run("wavelength = 2 * base") == check.CheckResult(True, t("exercise.passed"))
    assert run("wavelength = base") == check.CheckResult(False, "check failed: `assert wavelength == 2 * base`")
    assert run("wavelength = 1 / 0") == check.CheckResult(False, t("exercise.code_raised"), "code")
    assert [kind for kind, _ in events] == ["error"]  # the learner's own traceback, as in any cell
    assert "ZeroDivisionError" in events[0][1]


def test_run_exercise_reports_a_broken_setup(check, runtime):
    setup = "import nowhere_to_be_found"
    result = check.run_exercise(setup, "x = 1", "assert x", run_cell=runtime.run_cell, emit=lambda *_: None)
    assert result == check.CheckResult(False, t("exercise.setup_raised"), "setup")


def test_docstring_examples(check):
    assert doctest.testmod(check, optionflags=doctest.ELLIPSIS).failed == 0


def test_exceptions_are_named_by_their_first_public_class(check, runtime):
    namespace = learner()
    code = "class _Internal(ValueError):\n    pass\ndef fit():\n    raise _Internal('no fit')"
    assert runtime.run_cell(code, namespace, filename="<exercise>", emit=lambda *_: None)
    assert (
        check.run_check("fit()", namespace).message == "your code raised ValueError: no fit when the check ran `fit()`"
    )
    assert check.run_check("{}['k']", namespace).message == "`{}['k']` raised KeyError: 'k'"
