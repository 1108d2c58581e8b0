"""--toolharness-target: a harness process driven over the wire, and clear reports when it misbehaves."""

from __future__ import annotations

import json
import shlex
import sys

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

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
for _ in range(5):
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
from pytest_toolharness import _wire_checks as checks
from pytest_toolharness._capabilities import requires
from pytest_toolharness._script import AssistantTurn, ToolUseBlock
from pytest_toolharness._wire_scenarios import WireScenario

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


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def run(pytester: pytest.Pytester, mode: str, *extra: str, timeout: float = 60) -> pytest.RunResult:
    suite = pytester.mkdir("suite")
    (suite / "test_suite.py").write_text(SUITE)
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    template = f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} {mode} {{prompt}}"
    return pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        f"toolharness_suite_path={suite}",
        f"--toolharness-target={template}",
        f"--toolharness-target-timeout={timeout:g}",
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
    result.stdout.fnmatch_lines(["*the harness hung: it did not finish within 3 s and was killed*"])


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
