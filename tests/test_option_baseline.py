"""--toolharness-baseline: expected failures, stale entries, and malformed baselines."""

from __future__ import annotations

import functools
import json
from pathlib import Path

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
def test_fails():
    assert False, "orphan"

@pytest.mark.requirement("PAIR-2", "MUST")
def test_passes():
    pass
"""

TOML_BASELINE = '[[expected_failures]]\nid = "PAIR-1"\nreason = "tracked in issue 12"\n'


def test_baselined_failure_is_expected_and_does_not_fail_the_run(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    (pytester.path / "baseline.toml").write_text(TOML_BASELINE)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml", "--toolharness-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.OK
    pair1 = json.loads((pytester.path / "r.json").read_text())["requirements"][0]
    assert pair1["status"] == "expected failure"
    assert pair1["reason"] == "baseline: tracked in issue 12 (test_fails: AssertionError: orphan)"


def test_stale_entry_fails_the_run(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE.replace('assert False, "orphan"', "pass"))
    (pytester.path / "baseline.json").write_text(
        json.dumps({"expected_failures": [{"id": "PAIR-2", "reason": "was flaky"}]})
    )
    result = run(pytester, suite, "--toolharness-baseline=baseline.json")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*! PAIR-2*stale baseline entry*remove the entry*", "*exit status 1*PAIR-2*"]
    )


def test_ini_key(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    (pytester.path / "baseline.toml").write_text(TOML_BASELINE)
    pytester.makeini("[pytest]\ntoolharness_baseline = baseline.toml\n")
    assert run(pytester, suite).ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[[expected_failures]]\nid = "PAIR-1"\n', "*entry 1 (PAIR-1) needs a non-empty 'reason'*"),
        (
            '[[expected_failures]]\nid = "PAIR-1"\nreason = "  "\n',
            "*entry 1 (PAIR-1) needs a non-empty 'reason'*",
        ),
        (
            '[[expected_failures]]\nid = "NOPE-1"\nreason = "x"\n[[expected_failures]]\nid = "PAIR-99"\nreason = "y"\n',
            "*unknown requirement id(s): NOPE-1, PAIR-99*",
        ),
        (TOML_BASELINE * 2, "*PAIR-1 is listed twice*"),
        ("expected_failures = 3\n", "*needs a list 'expected_failures'*"),
        ("not toml [", "*not valid TOML*"),
    ],
)
def test_malformed_baselines_are_usage_errors(pytester: pytest.Pytester, content: str, message: str) -> None:
    suite = make_suite(pytester, SUITE)
    (pytester.path / "baseline.toml").write_text(content)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_missing_baseline_file_is_named(pytester: pytest.Pytester) -> None:
    result = run(pytester, make_suite(pytester, SUITE), "--toolharness-baseline=nowhere.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*baseline*nowhere.toml*can't read it*"])


FINDINGS_SUITE = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_known():
    raise ValueError("the harness drops the result of a raising tool")

@pytest.mark.requirement("PAIR-1", "MUST")
def test_other():
    OTHER
"""

BY_FINDING = (
    '[[expected_failures]]\nid = "PAIR-1"\ntest = "test_known"\nmatch = "drops the result"\n'
    'reason = "finding: docs/frameworks/x.md"\n'
)


def _pair1(pytester: pytest.Pytester) -> dict[str, object]:
    rows = json.loads((pytester.path / "r.json").read_text())["requirements"]
    return next(r for r in rows if r["id"] == "PAIR-1")


def test_an_entry_by_finding_is_pytest_xfail_and_leaves_the_run_green(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, FINDINGS_SUITE.replace("OTHER", "pass"))
    (pytester.path / "baseline.toml").write_text(BY_FINDING)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml", "--toolharness-report=r.json")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    assert _pair1(pytester)["status"] == "expected failure"
    assert "baseline: PAIR-1 test_known" in str(_pair1(pytester)["reason"])


def test_a_new_failure_under_a_baselined_id_fails_the_run(pytester: pytest.Pytester) -> None:
    """Another test of the baselined requirement fails: no entry names it, so it is a new failure."""
    suite = make_suite(pytester, FINDINGS_SUITE.replace("OTHER", 'assert False, "a new finding"'))
    (pytester.path / "baseline.toml").write_text(BY_FINDING)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml", "--toolharness-report=r.json")
    result.assert_outcomes(failed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _pair1(pytester)["status"] == "failed"
    assert "a new finding" in str(_pair1(pytester)["reason"])


def test_a_failure_the_entry_does_not_match_is_new(pytester: pytest.Pytester) -> None:
    """The named test fails, but differently from the finding the entry records."""
    suite = make_suite(pytester, FINDINGS_SUITE.replace("OTHER", "pass").replace("drops the result", "hangs"))
    (pytester.path / "baseline.toml").write_text(BY_FINDING)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml", "--toolharness-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*a new failure: the baseline entries of this test expect another one*"])
    assert _pair1(pytester)["status"] == "failed"


def test_each_entry_goes_stale_on_its_own(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, FINDINGS_SUITE.replace("OTHER", "pass"))
    (pytester.path / "baseline.toml").write_text(
        BY_FINDING + '[[expected_failures]]\nid = "PAIR-1"\ntest = "test_other"\nreason = "fixed since"\n'
    )
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml", "--toolharness-report=r.json")
    result.assert_outcomes(failed=1, xfailed=1)  # pytest's strict XPASS
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    pair1 = _pair1(pytester)
    assert pair1["status"] == "stale baseline entry"
    assert "PAIR-1 test_other: fixed since" in str(pair1["reason"])


def test_an_old_format_entry_still_works_and_is_called_deprecated(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    (pytester.path / "baseline.toml").write_text(TOML_BASELINE)
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*entries without 'test' stand for any test of PAIR-1 (deprecated*"])


BY_FINDING_BASELINES = (
    "pydantic-ai",
    "langgraph",
    "anthropic-tool-runner",
    "smolagents",
    "openai-agents",
    "openai-agents-chat",
    "claude-code",
    "opencode",
    "cline",
    "gemini",
)


@functools.cache
def _suite_definitions() -> dict[str, str]:
    """Each test function or class of the suite by name, with its decorators' and its own source.

    Read once for every baseline: ``ast.get_source_segment`` splits the whole file on each call, so
    slicing the lines here keeps ten parametrizations from costing a minute and a half of CPU.
    """
    import ast
    from importlib import resources

    defined: dict[str, str] = {}
    suite = resources.files("conformance")
    for module in (p for p in suite.iterdir() if p.name.startswith("test_") and p.name.endswith(".py")):
        lines = module.read_text(encoding="utf-8").splitlines(keepends=True)
        for node in ast.walk(ast.parse("".join(lines))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                defined[node.name] = "".join(lines[first - 1 : node.end_lineno])
    return defined


@pytest.mark.parametrize("name", BY_FINDING_BASELINES)
def test_a_shipped_baseline_names_the_failing_test_of_each_finding(name: str) -> None:
    """Each entry names a test of the suite that exists and checks the entry's requirement."""
    from importlib import resources

    from pytest_toolharness._baselines import load_baseline
    from pytest_toolharness._requirements import load_catalogue

    path = resources.files("pytest_toolharness").joinpath("baselines", f"{name}.toml")
    entries = load_baseline(path, load_catalogue())  # type: ignore[arg-type]
    defined = _suite_definitions()
    for entry in entries:
        assert entry.test is not None, f"{name}: {entry.id} names no test"
        test = entry.test.split("::")[0].partition("[")[0]
        assert test in defined, f"{name}: {entry.id}: no test {entry.test!r} in the suite"
        assert f'"{entry.id}"' in defined[test], f"{name}: {test} does not check {entry.id}"


SHIPPED_BASELINES = sorted(
    p.stem for p in (Path(__file__).resolve().parents[1] / "pytest_toolharness" / "baselines").glob("*.toml")
)


def _evidence_doc(name: str) -> Path:
    """Where a shipped baseline's findings are documented: docs/interop-<cli>.md or docs/frameworks/."""
    docs = Path(__file__).resolve().parents[1] / "docs"
    interop = docs / f"interop-{name}.md"
    # openai-agents on Chat Completions shares the page of openai-agents (on Responses).
    return interop if interop.exists() else docs / "frameworks" / f"{name.removesuffix('-chat')}.md"


def test_every_shipped_baseline_is_checked_for_evidence() -> None:
    """The wire and framework baselines are all here: a new one can't ship without its evidence check."""
    assert set(SHIPPED_BASELINES) >= {*BY_FINDING_BASELINES, "codex"}


@pytest.mark.parametrize("name", SHIPPED_BASELINES)
def test_every_baseline_entry_carries_bytes_quoted_in_its_doc(name: str) -> None:
    """Each entry of a shipped baseline (a CLI's or a framework's) carries the bytes it was seen with.

    Its ``evidence`` holds ``bytes`` (a verbatim excerpt of a request) or ``lines`` (the failure lines a
    ``CI=true`` run printed, quoting what the harness sent, or a wire run's MCP call log), and each piece
    is quoted verbatim in the target's page: docs/interop-<cli>.md or docs/frameworks/<framework>.md.
    """
    import tomllib

    doc_path = _evidence_doc(name)
    doc = doc_path.read_text(encoding="utf-8")
    text = (
        Path(__file__).resolve().parents[1] / "pytest_toolharness" / "baselines" / f"{name}.toml"
    ).read_text(encoding="utf-8")
    entries = tomllib.loads(text)["expected_failures"]
    assert entries, name
    for entry in entries:
        named = f"{name}: {entry['id']} {entry.get('test')}"
        assert entry["id"] in doc, f"{named}: the requirement is not named in {doc_path.name}"
        evidence = entry.get("evidence", {})
        pieces = [evidence["bytes"]] if "bytes" in evidence else list(evidence.get("lines", []))
        assert pieces, f"{named} carries no evidence bytes"
        assert all(p.strip() for p in pieces), f"{named}: an evidence piece is blank"
        for piece in pieces:
            assert piece in doc, f"{named}: its bytes are not in {doc_path.name}: {piece[:80]}"
