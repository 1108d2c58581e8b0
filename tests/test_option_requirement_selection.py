"""--toolharness-requirement: select by exact ID or area; others are deselected."""

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
@pytest.mark.requirement("PERM-1", "MUST")
def test_perm1():
    pass

@pytest.mark.requirement("PERM-10", "MUST")
def test_perm10():
    pass

@pytest.mark.requirement("PAIR-1", "MUST")
def test_pair1():
    pass

@pytest.mark.requirement("DEFER-2", "MUST")
@pytest.mark.requirement("CACHE-1", "MUST")
def test_two_requirements():
    pass
"""


def test_exact_id_does_not_select_its_longer_siblings(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE), "--toolharness-requirement=PERM-1", "-v")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["*test_perm1 PASSED*"])


def test_areas_and_repeats_combine(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        make_suite(pytester, SUITE),
        "--toolharness-requirement",
        "perm",
        "--toolharness-requirement",
        "CACHE",
    )
    result.assert_outcomes(passed=3, deselected=1)
    output = result.stdout.str()
    assert "PERM-13" in output
    assert "CACHE-6" in output
    assert "PAIR-1 " not in output


def test_ini_key(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makeini("[pytest]\ntoolharness_requirements = PAIR-1 DEFER\n")
    run(pytester, suite).assert_outcomes(passed=2, deselected=2)


def test_user_tests_without_requirements_are_kept(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = run(pytester, suite, "test_own.py", "--toolharness-requirement=PAIR-1")
    result.assert_outcomes(passed=2, deselected=3)


def test_unknown_selector_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        make_suite(pytester, SUITE),
        "--toolharness-requirement=PAIRS",
        "--toolharness-requirement=X-1",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown requirement selector(s): 'PAIRS', 'X-1'*"])
