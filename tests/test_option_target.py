"""--toolharness-target: a harness process driven over the wire, and clear reports when it misbehaves."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

import pytest_toolharness
from pytest_toolharness._options import default_baseline

# A tiny harness speaking the Messages API with urllib (the SDK's import alone takes seconds on a
# loaded machine): answers every tool_use with "ok", unless told to misbehave.
FAKE_HARNESS = """
import json, os, sys, time, urllib.error, urllib.request

mode, prompt = sys.argv[1], sys.argv[2]
if mode == "hang":
    time.sleep(60)
if mode == "crash":
    sys.stderr.write("boom: the fake harness crashed\\n")
    sys.exit(3)
if mode == "silent":
    sys.exit(0)
url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
tools = [{"name": "Echo", "description": "Echo.", "input_schema": {"type": "object", "properties": {}}}]
messages = [{"role": "user", "content": prompt}]
for _ in range(12):
    if mode == "slow":  # still working, one request a second: slow, never idle for long
        time.sleep(1.0)
    body = {"model": "fake", "max_tokens": 100, "messages": messages, "tools": tools}
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    try:
        reply = json.load(urllib.request.urlopen(request))
    except urllib.error.HTTPError as error:
        sys.stderr.write(f"API error {error.code}: {error.read().decode()}\\n")
        sys.exit(1)
    messages.append({"role": "assistant", "content": reply["content"]})
    uses = [b for b in reply["content"] if b["type"] == "tool_use"]
    if not uses:
        break
    if mode == "drop":
        uses = uses[:-1]
    results = [{"type": "tool_result", "tool_use_id": u["id"], "content": "ok"} for u in uses]
    messages.append({"role": "user", "content": results})
print("finished")
"""

SUITE = """
import pytest
from pytest_toolharness.wire import checks
from pytest_toolharness.adapters._capabilities import requires
from pytest_toolharness.wire import AssistantTurn, ToolUseBlock
from pytest_toolharness.wire.scenarios._core import WireScenario

SCENARIO = WireScenario(
    name="echo",
    prompt="say hi",
    steps=[AssistantTurn((ToolUseBlock("toolu_1", "Echo", {}), ToolUseBlock("toolu_2", "Echo", {})))],
)

@requires("wire")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing(harness):
    run = harness.run_wire(SCENARIO)
    verdict = run.verdict(checks.check_pairing(run.requests))
    if verdict is not None:
        pytest.fail(verdict, pytrace=False)

@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
def test_needs_pool(harness):
    raise AssertionError("must not run against a wire target")
"""

# Six tool turns: a harness that takes a second per request needs about seven.
LONG_SUITE = SUITE.replace(
    'steps=[AssistantTurn((ToolUseBlock("toolu_1", "Echo", {}), ToolUseBlock("toolu_2", "Echo", {})))],',
    'steps=[AssistantTurn((ToolUseBlock(f"toolu_{i}", "Echo", {}),)) for i in range(1, 7)],',
)


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def run(
    pytester: pytest.Pytester, mode: str, *extra: str, timeout: float = 60, suite: str = SUITE
) -> pytest.RunResult:
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    template = f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} {mode} {{prompt}}"
    return run_suite(
        pytester,
        suite,
        f"--toolharness-target={template}",
        f"--toolharness-target-timeout={timeout:g}",
        *extra,
    )


def run_suite(pytester: pytest.Pytester, source: str, *extra: str) -> pytest.RunResult:
    suite = pytester.mkdir("suite")
    (suite / "test_suite.py").write_text(source)
    return pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        f"toolharness_suite_path={suite}",
        "--toolharness-report=report.json",
        "suite",
        *extra,
    )


def statuses(pytester: pytest.Pytester) -> dict[str, str]:
    report = json.loads((pytester.path / "report.json").read_text())
    return {r["id"]: r["status"] for r in report["requirements"]}


def test_a_good_harness_passes_and_the_rest_is_not_checked(pytester: pytest.Pytester) -> None:
    result = run(pytester, "good")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*toolharness conformance: wire target*fake_harness.py good {prompt}*"])
    assert statuses(pytester)["PAIR-1"] == "passed"
    assert statuses(pytester)["CACHE-2"] == "not checked"


def test_a_dropped_result_fails_pairing(pytester: pytest.Pytester) -> None:
    result = run(pytester, "drop")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*toolu_2*", "*exited with status 1*"])
    assert statuses(pytester)["PAIR-1"] == "failed"


def test_a_hanging_harness_is_reported_as_hung(pytester: pytest.Pytester) -> None:
    result = run(pytester, "hang", timeout=3)
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*the harness hung: it did nothing the suite could see (no request, tool call or hook) for 3 s*"]
    )


def test_a_harness_still_working_past_the_timeout_is_not_hung(pytester: pytest.Pytester) -> None:
    # About 7 s of work, a request every second: progress keeps it going past its 4 s timeout.
    result = run(pytester, "slow", timeout=4, suite=LONG_SUITE)
    result.assert_outcomes(passed=1, skipped=1)
    assert statuses(pytester)["PAIR-1"] == "passed"


def test_a_run_cut_off_while_working_is_an_error_of_the_suite_not_a_failure(
    pytester: pytest.Pytester,
) -> None:
    # Its hard limit (twice the 1.5 s timeout) ends the run mid-work: no verdict on the harness.
    result = run(pytester, "slow", timeout=1.5, suite=LONG_SUITE)
    result.stdout.fnmatch_lines(["*cut off after 3 s while the harness was still working*slow, not hung*"])
    assert statuses(pytester)["PAIR-1"] == "error"
    assert result.ret != 0


def test_a_crashing_harness_is_reported_with_its_stderr(pytester: pytest.Pytester) -> None:
    result = run(pytester, "crash")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*never called the Messages API*exited with status 3*", "*boom: the fake harness*"]
    )


def test_a_harness_that_never_calls_the_api(pytester: pytest.Pytester) -> None:
    result = run(pytester, "silent")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*never called the Messages API at http://127.0.0.1:*exited with status 0*"])


def test_adapter_and_target_together_are_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--toolharness-adapter=x:y", "--toolharness-target=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--toolharness-adapter and --toolharness-target*give one*"])


# -- the target's packaged baseline (claude-code) -----------------------------------------------

# A PAIR-5 test that fails without touching the adapter (no @requires), named as the claude-code
# baseline's PAIR-5 entry (baselines name findings by test), so the report shows whether the baseline was applied.
PAIR5_FAILS = """
import pytest

@pytest.mark.requirement("PAIR-5", "SHOULD")
@pytest.mark.parametrize("kind", ["concurrent"])
def test_results_in_tool_use_order(kind):
    raise AssertionError("results in completion order")
"""


def test_default_baseline_of_each_target() -> None:
    path = default_baseline("claude-code")
    assert path is not None
    assert path == Path(pytest_toolharness.__file__).resolve().parent / "baselines" / "claude-code.toml"
    ids = [e["id"] for e in tomllib.loads(path.read_text())["expected_failures"]]
    # The differences docs/interop-claude-code.md documents for Claude Code 2.1.332, each once (PERM-17
    # twice: the fixed spellings' finding and the drawn scenarios' mechanisms, each its own test).
    assert sorted(ids) == ["CONC-4", "PAIR-5", "PERM-12", "PERM-17", "PERM-17", "RESULT-3"]
    assert default_baseline("  claude-code ") == path
    assert default_baseline("reference") is None
    assert default_baseline(None) is None
    # A command template that merely mentions claude-code is not the built-in target.
    assert default_baseline("claude-code -p {prompt}") is None


def _run_pair5(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return run_suite(pytester, PAIR5_FAILS, *extra)


def test_claude_code_target_uses_its_packaged_baseline(pytester: pytest.Pytester) -> None:
    result = _run_pair5(pytester, "--toolharness-target=claude-code")
    result.assert_outcomes(xfailed=1)  # the packaged entry names this test: a strict xfail
    assert statuses(pytester)["PAIR-5"] == "expected failure"
    result.stdout.fnmatch_lines(["*toolharness: baseline: the target's packaged *claude-code.toml*"])
    assert result.ret == pytest.ExitCode.OK


def test_an_explicit_baseline_wins_over_the_packaged_one(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", other='[[expected_failures]]\nid = "PAIR-1"\nreason = "known"\n')
    result = _run_pair5(pytester, "--toolharness-target=claude-code", "--toolharness-baseline=other.toml")
    result.assert_outcomes(failed=1)
    assert statuses(pytester)["PAIR-5"] == "failed"
    assert "toolharness: baseline:" not in result.stdout.str()


def test_no_packaged_baseline_for_other_targets(pytester: pytest.Pytester) -> None:
    result = _run_pair5(pytester, "--toolharness-target=reference")
    result.assert_outcomes(failed=1)
    assert statuses(pytester)["PAIR-5"] == "failed"


def test_claude_code_without_a_binary_fails_with_the_reason(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLHARNESS_CLAUDE_BIN", str(pytester.path / "no-such-claude"))
    result = run_suite(pytester, SUITE, "--toolharness-target=claude-code")
    # Every test that needs the adapter errors with the reason (not a traceback of the target).
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*--toolharness-target 'claude-code'*no-such-claude is not an executable*"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_claude_code_check_passes_on_its_baseline_alone(pytester: pytest.Pytester) -> None:
    """With the real CLI, a completion-order PAIR-5 failure is expected by the packaged baseline."""
    from pytest_toolharness.wire.targets._claude_code import find_claude_binary

    if find_claude_binary() is None:
        pytest.skip("no Claude Code binary (claude-agent-sdk not installed, no `claude` on PATH)")
    wire_pair5 = """
import pytest
from pytest_toolharness.wire import checks
from pytest_toolharness.adapters._capabilities import requires
from pytest_toolharness.wire import concurrent_scenario

@requires("wire")
@pytest.mark.requirement("PAIR-5", "SHOULD")
@pytest.mark.parametrize("kind", ["concurrent"])
def test_results_in_tool_use_order(harness, kind):
    run = harness.run_wire(concurrent_scenario())
    verdict = run.verdict(checks.check_result_order(run.requests))
    if verdict is not None:
        pytest.fail(verdict, pytrace=False)
"""
    result = run_suite(
        pytester, wire_pair5, "--toolharness-target=claude-code", "--toolharness-target-timeout=120"
    )
    result.assert_outcomes(xfailed=1)
    assert statuses(pytester)["PAIR-5"] == "expected failure"
    assert result.ret == pytest.ExitCode.OK
