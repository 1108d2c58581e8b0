"""The per-requirement report: aggregation, terminal table, JSON file, GitHub step summary."""

from __future__ import annotations

import json

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
def test_a():
    pass

@pytest.mark.requirement("PAIR-1", "MUST")
def test_b():
    assert 1 + 1 == 3, "second test of PAIR-1 breaks"

@pytest.mark.requirement("PAIR-2", "MUST")
def test_c():
    pass

@pytest.mark.requirement("PAIR-2", "MUST")
def test_d():
    pytest.skip("needs a shell")

@pytest.mark.requirement("PAIR-3", "MUST")
def test_e():
    pytest.skip("not checked: adapter lacks capability abort")

@pytest.mark.requirement("PAIR-4", "MUST")
@pytest.mark.xfail(reason="known gap")
def test_f():
    assert False

@pytest.fixture
def broken():
    raise RuntimeError("setup exploded")

@pytest.mark.requirement("EXEC-1", "MUST")
def test_g(broken):
    pass
"""


def _report(pytester: pytest.Pytester, *args: str) -> dict[str, dict[str, object]]:
    result = run(pytester, make_suite(pytester, SUITE), "--toolharness-report=out/report.json", *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = json.loads((pytester.path / "out" / "report.json").read_text())
    return {r["id"]: r for r in document["requirements"]} | {"_summary": document["summary"]}


def test_aggregation_per_requirement(pytester: pytest.Pytester) -> None:
    by_id = _report(pytester)
    assert by_id["PAIR-1"]["status"] == "failed"
    assert by_id["PAIR-1"]["reason"] == "test_b: AssertionError: second test of PAIR-1 breaks"
    assert by_id["PAIR-1"]["tests"] == 2
    # One of PAIR-2's two tests did not run: never "passed", and the report says what did not run.
    assert (by_id["PAIR-2"]["status"], by_id["PAIR-2"]["reason"]) == (
        "partially checked",
        "1 of 2 tests ran and passed; not run: needs a shell",
    )
    assert (by_id["PAIR-3"]["status"], by_id["PAIR-3"]["reason"]) == (
        "not checked",
        "not checked: adapter lacks capability abort",
    )
    assert (by_id["PAIR-4"]["status"], by_id["PAIR-4"]["reason"]) == (
        "expected failure",
        "test_f: xfail: known gap",
    )
    assert by_id["EXEC-1"]["status"] == "failed"
    assert by_id["EXEC-1"]["reason"] == "test_g: error in setup: RuntimeError: setup exploded"
    assert by_id["PAIR-6"]["status"] == "not checked"
    summary = by_id["_summary"]
    assert (summary["passed"], summary["failed"], summary["expected_failure"]) == (0, 2, 1)
    assert summary["partially_checked"] == 1
    assert by_id["HOOK-1"]["profile"] == "claude-code"
    assert summary["failing_run"] is True


def test_json_is_in_catalogue_order_and_deterministic(pytester: pytest.Pytester) -> None:
    from pytest_toolharness._requirements import load_catalogue

    suite = make_suite(pytester, SUITE)
    run(pytester, suite, "--toolharness-report=one.json")
    run(pytester, suite, "--toolharness-report=two.json")
    one = (pytester.path / "one.json").read_text()
    assert one == (pytester.path / "two.json").read_text()
    document = json.loads(one)
    assert [r["id"] for r in document["requirements"]] == [r.id for r in load_catalogue()]
    assert list(document) == ["adapter", "profiles", "requirements", "summary"]
    assert list(document["profiles"]) == ["core", "claude-code"]
    assert document["profiles"]["claude-code"]["claimed"] is True


def test_terminal_table_groups_by_area(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE))
    result.stdout.fnmatch_lines(
        [
            "*toolharness conformance: myadapter:make*",
            "profile core: 0 passed, 2 failed, 1 partially checked, *",
            "  PAIR: Every tool_use gets exactly one tool_result",
            "*! PAIR-1*MUST*failed*test_b: AssertionError: second test of PAIR-1 breaks",
            "*PAIR-2*MUST*partially checked*not run: needs a shell",
            "  EXEC: *",
            "profile claude-code: 0 passed, 0 failed, * not checked (level: should)",
        ]
    )


def test_report_path_from_ini_is_relative_to_the_ini_file(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makeini("[pytest]\ntoolharness_report = reports/th.json\n")
    run(pytester, suite)
    assert json.loads((pytester.path / "reports" / "th.json").read_text())["adapter"] == "myadapter:make"


def test_github_step_summary(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run(pytester, make_suite(pytester, SUITE))
    text = summary.read_text()
    assert text.startswith("earlier step\n## toolharness conformance: `myadapter:make`")
    assert (
        "| PAIR-1 | MUST | core | **failed** | test_b: AssertionError: second test of PAIR-1 breaks |" in text
    )
    assert "| PAIR-2 | MUST | core | partially checked | 1 of 2 tests ran and passed" in text


def test_no_report_in_runs_without_requirement_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "toolharness conformance" not in result.stdout.str()


def test_junitxml_carries_requirement_ids_and_statuses(pytester: pytest.Pytester) -> None:
    """pytest's own ``--junitxml``: each test case names its requirements; the suite, each requirement's status."""
    import xml.etree.ElementTree as ElementTree

    run(pytester, make_suite(pytester, SUITE), "--junitxml=junit.xml")
    suite = ElementTree.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    statuses = {p.get("name"): p.get("value") for p in suite.findall("./properties/property")}
    assert statuses["toolharness PAIR-1"] == "failed"
    assert statuses["toolharness PAIR-2"] == "partially checked"
    assert statuses["toolharness PAIR-4"] == "expected failure"
    case = next(c for c in suite.iter("testcase") if c.get("name") == "test_b")
    assert [(p.get("name"), p.get("value")) for p in case.iter("property")] == [("requirement", "PAIR-1")]


def test_report_header_names_adapter_profiles_and_level(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE), "--toolharness-level=must")
    result.stdout.fnmatch_lines(
        [
            "toolharness: adapter myadapter:make; profiles core, claude-code (those the adapter claims are judged); level must"
        ]
    )


PROPERTY_SUITE = """
from hypothesis import given, settings, strategies as st

@pytest.mark.requirement("PAIR-1", "MUST")
@settings(database=None, derandomize=True, max_examples=50)
@given(st.integers(min_value=0, max_value=1000))
def test_property(n):
    assert n < 7, f'result block {{"type":"tool_result","content":"{n}"}} breaks the rule'

@pytest.mark.requirement("PAIR-1", "MUST")
def test_plain():
    assert False, 'sent {"type":"tool_result","content":""}'

@pytest.mark.requirement("PAIR-1", "MUST")
def test_fine():
    pass
"""


def test_every_failing_test_of_a_requirement_is_listed_with_its_example_and_bytes(
    pytester: pytest.Pytester,
) -> None:
    """Console and JSON: each failing test under its requirement, Hypothesis's minimal example, the failure's bytes."""
    result = run(pytester, make_suite(pytester, PROPERTY_SUITE), "--toolharness-report=out/report.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*failing tests by requirement*",
            "PAIR-1 (MUST, failed): *",
            "  failed: suite/test_suite.py::test_plain",
            '*sent {"type":"tool_result","content":""}*',
            "  failed: suite/test_suite.py::test_property",
            "*Failing test case: test_property(*",
            "*n=7,*",
            '*result block {"type":"tool_result","content":"7"} breaks the rule*',
        ]
    )
    assert "failed: suite/test_suite.py::test_fine" not in result.stdout.str()
    document = json.loads((pytester.path / "out" / "report.json").read_text())
    (pair1,) = [r for r in document["requirements"] if r["id"] == "PAIR-1"]
    failing = {f["test"]: f for f in pair1["failing_tests"]}
    assert sorted(failing) == ["suite/test_suite.py::test_plain", "suite/test_suite.py::test_property"]
    assert failing["suite/test_suite.py::test_plain"]["falsifying_example"] is None
    example = failing["suite/test_suite.py::test_property"]["falsifying_example"]
    assert example.startswith("Failing test case: test_property(")
    assert "n=7," in example
    assert '"content":"7"' in failing["suite/test_suite.py::test_property"]["failure"]
    assert all(f["status"] == "failed" for f in failing.values())
