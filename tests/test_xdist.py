"""Under pytest-xdist the controller merges every worker's outcomes into one report."""

from __future__ import annotations

import json

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import make_suite


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inner runs must not append to a real CI step summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


SUITE = """
@pytest.mark.requirement("PAIR-1", "MUST")
@pytest.mark.parametrize("n", range(4))
def test_many(n):
    pass

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_should_fails():
    assert False, "out of order"

@requires("abort")
@pytest.mark.requirement("CONC-5", "MUST")
def test_needs_abort(harness):
    pass
"""


def test_one_merged_report_under_xdist(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    args = ("--toolharness-conformance", "-o", suite, "--toolharness-adapter=myadapter:make", "suite")
    # Hypothesis is left out: its import costs seconds in each of the three processes.
    result = pytester.runpytest_subprocess(
        *args, "-n", "2", "-p", "no:hypothesispytest", "--toolharness-report=xdist.json"
    )
    result.assert_outcomes(passed=4, failed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    assert result.stdout.str().count("toolharness conformance: myadapter:make") == 1
    serial = pytester.runpytest(*args, "--toolharness-report=serial.json")
    assert serial.ret == pytest.ExitCode.OK
    merged = json.loads((pytester.path / "xdist.json").read_text())
    assert merged == json.loads((pytester.path / "serial.json").read_text())
    by_id = {r["id"]: r for r in merged["requirements"]}
    assert (by_id["PAIR-1"]["status"], by_id["PAIR-1"]["tests"]) == ("passed", 4)
    assert by_id["PAIR-5"]["status"] == "failed"
    assert by_id["CONC-5"]["reason"] == "not checked: adapter lacks capability abort"
