"""Verdicts by the evidence that applies (issue 31): a test the adapter's capabilities rule out can't
make a requirement "partially checked"; a test that could apply and was skipped does. Each verdict
says what it rests on."""

from __future__ import annotations

import json

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import make_suite, run

SUITE = """
from hypothesis import given, settings, strategies as st

@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=7, database=None)
@given(st.integers())
def test_property(n):
    pass

@pytest.mark.requirement("PAIR-1", "MUST")
def test_plain():
    pass

@requires("abort")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_needs_abort(harness):
    pass

@requires("execution")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_runs(harness):
    pass

@requires("execution")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_could_apply_but_skipped(harness):
    pytest.skip("the sandbox is unavailable here")
"""


def test_a_requirement_is_judged_on_the_tests_that_can_apply_and_says_what_it_rests_on(
    pytester: pytest.Pytester,
) -> None:
    suite = make_suite(pytester, SUITE)
    result = run(pytester, suite, "--toolharness-report=r.json")
    rows = {r["id"]: r for r in json.loads((pytester.path / "r.json").read_text())["requirements"]}
    pair1 = rows["PAIR-1"]
    assert pair1["status"] == "passed", pair1
    assert pair1["evidence"] == (
        "7 property examples in 2 tests in-process; 1 more test can't apply here (need abort)"
    )
    assert pair1["reason"] == "rests on " + pair1["evidence"]
    assert [i.rpartition("::")[2] for i in pair1["test_ids"]] == [
        "test_needs_abort",
        "test_plain",
        "test_property",
    ]
    # A test that could apply was skipped: partially checked, naming it.
    assert rows["PAIR-2"]["status"] == "partially checked"
    assert rows["PAIR-2"]["reason"] == "1 of 2 tests ran and passed; not run: the sandbox is unavailable here"
    result.stdout.fnmatch_lines(["*PAIR-1*MUST*passed*rests on 7 property examples in 2 tests in-process*"])


WIRE_SUITE = """
@requires("wire")
@pytest.mark.requirement("PAIR-1", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "concurrent", "deferred"])
def test_over_the_wire(scenario):
    pass

@requires("execution", "timeouts", "transcript")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_in_process(harness):
    pass

@requires("wire")
@pytest.mark.requirement("PAIR-2", "MUST")
@pytest.mark.parametrize("lacks_a_role", [False, True])
def test_wire_ran_or_was_skipped(lacks_a_role):
    if lacks_a_role:
        pytest.skip("the scenario needs a role the CLI lacks")
"""


def test_a_cli_target_passes_a_requirement_whose_wire_tests_all_pass(pytester: pytest.Pytester) -> None:
    """``--toolharness-target claude-code``: every wire test of PAIR-1 ran and passed, so PAIR-1 is passed,
    resting on those wire tests; the in-process tests the CLI can't run don't make it partially checked.
    A wire test that could apply and was skipped (PAIR-2) does."""
    suite = make_suite(pytester, WIRE_SUITE)
    result = pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-target=claude-code",
        "--toolharness-report=r.json",
        "suite",
    )
    rows = {r["id"]: r for r in json.loads((pytester.path / "r.json").read_text())["requirements"]}
    assert rows["PAIR-1"]["status"] == "passed", rows["PAIR-1"]
    assert rows["PAIR-1"]["evidence"] == (
        "3 wire tests against claude-code; 1 more test can't apply here (need execution, timeouts, transcript)"
    )
    assert rows["PAIR-2"]["status"] == "partially checked", rows["PAIR-2"]
    assert "the scenario needs a role the CLI lacks" in rows["PAIR-2"]["reason"]
    result.stdout.fnmatch_lines(["*PAIR-1*MUST*passed*rests on 3 wire tests against claude-code*"])
