"""--toolharness-level: must, should (default), strict; how SHOULD failures affect the exit status."""

from __future__ import annotations

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import make_suite, run


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inner runs must not append to a real CI step summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


SUITE = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_must():
    pass

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_should_fails():
    assert False, "results out of order"
"""


def test_should_failure_is_reported_but_exit_status_is_ok(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE))
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["*PAIR-5*SHOULD*failed*results out of order*", "*exit status 0: the only failures*"]
    )


def test_strict_makes_should_failures_fail(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    assert run(pytester, suite, "--toolharness-level=strict").ret == pytest.ExitCode.TESTS_FAILED
    pytester.makeini("[pytest]\ntoolharness_level = strict\n")
    assert run(pytester, suite).ret == pytest.ExitCode.TESTS_FAILED


def test_must_level_deselects_should_tests(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE), "--toolharness-level=must")
    result.assert_outcomes(passed=1, deselected=1)
    assert result.ret == pytest.ExitCode.OK
    assert "PAIR-5" not in result.stdout.str()


def test_must_failure_fails_the_run(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE.replace("pass", "assert False, 'orphan tool_use'")))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*! PAIR-1*MUST*failed*orphan tool_use*"])


def test_a_failing_user_test_is_not_forgiven(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makepyfile(test_own="def test_own():\n    assert False\n")
    result = pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-adapter=myadapter:make",
        "suite",
        "test_own.py",
    )
    result.assert_outcomes(passed=1, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_bad_level_in_ini_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolharness_level = sometimes\n")
    result = run(pytester, make_suite(pytester, SUITE))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolharness_level = 'sometimes' is not one of: must, should, strict*"])
