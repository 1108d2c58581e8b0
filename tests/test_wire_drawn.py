"""Drawn wire scenarios: the data, the strategy's respect for a target's roles, the replay file and the budget."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis
import pytest
from hypothesis import given, settings

from conformance._strategies_wire import drawn_scenarios
from pytest_toolharness.wire.checks._drawn import judge_drawn_pairing
from pytest_toolharness.wire.model_api import AssistantTurn, StreamFault, TextBlock, ToolUseBlock
from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._messages_sse import stream_events
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.scenarios import (
    DRAWN_FAULTS,
    DrawnCall,
    DrawnFaults,
    DrawnRule,
    DrawnScenario,
    drawn_call_id,
)
from pytest_toolharness.wire.targets import (
    CommandTarget,
    TargetInvocation,
    WireRun,
    profile_named,
    run_target,
)
from pytest_toolharness.wire.targets._command import TargetOutcome
from tests.test_option_target import FAKE_HARNESS
from tests.test_option_target_run import run_suite

_ROLES = {name: profile_named(name).capabilities for name in ("claude-code", "opencode", "cline", "gemini")}  # type: ignore[union-attr]


@settings(max_examples=40, deadline=None)
@given(drawn_scenarios(None, refusing=True))
def test_a_drawn_scenario_survives_its_json(drawn: DrawnScenario) -> None:
    """The replay file's line is the scenario: from_json(to_json(s)) == s, and the bytes are stable."""
    text = drawn.to_json()
    assert DrawnScenario.from_json(text) == drawn
    assert DrawnScenario.from_json(text).to_json() == text
    assert drawn.catches_touch() is not None  # refusing: a deny or ask rule always names touch


@settings(max_examples=40, deadline=None)
@given(
    drawn_scenarios(None, refusing=False, faults=DRAWN_FAULTS["claude-code"]),
    hypothesis.strategies.booleans(),
)
def test_a_drawn_fault_survives_its_json(drawn: DrawnScenario, sigint: bool) -> None:
    """Timeouts and interrupts are part of the replay file's line too (a stream's break: turn and blocks)."""
    if sigint:
        drawn = DrawnScenario(
            drawn.rules, drawn.mode, (*drawn.turns, (DrawnCall("d_slow"),)), interrupt="sigint"
        )
    assert DrawnScenario.from_json(drawn.to_json()) == drawn
    assert drawn.scenario(faults=DRAWN_FAULTS["claude-code"]).interrupt_on == ("d_slow" if sigint else None)


@pytest.mark.parametrize("target", sorted(_ROLES))
@settings(max_examples=25, deadline=None)
@given(data=hypothesis.strategies.data())
def test_only_the_faults_a_target_can_express_are_drawn(
    target: str, data: hypothesis.strategies.DataObject
) -> None:
    """A target's drawn timeouts and interrupts are those of its DRAWN_FAULTS: the scenario builds for it."""
    faults = DRAWN_FAULTS[target]
    drawn = data.draw(drawn_scenarios(frozenset(_ROLES[target]), refusing=False, faults=faults))
    kinds = {call.kind for _, call in drawn.calls()}
    assert faults.mcp_timeout_env is not None or "d_hang" not in kinds
    assert faults.shell_timeout is not None or "shell_timeout" not in kinds
    assert drawn.interrupt is None or drawn.interrupt in faults.interrupts
    drawn.scenario(profile_named(target).names, faults=faults)  # type: ignore[union-attr]


def test_a_fault_the_target_cannot_express_is_refused() -> None:
    """A d_hang call for a target without an MCP timeout setting is an error naming why, not a silent wait."""
    hang = DrawnScenario((), None, ((DrawnCall("d_hang"),),))
    with pytest.raises(ValueError, match="MCP tool timeout"):
        hang.scenario(faults=DrawnFaults(why="no setting"))
    assert hang.scenario(faults=DRAWN_FAULTS["claude-code"]).env["MCP_TOOL_TIMEOUT"] == "3000"
    with pytest.raises(ValueError, match="d_slow"):
        DrawnScenario((), None, ((DrawnCall("d_ok"),),), interrupt="sigint")
    with pytest.raises(ValueError, match="no such turn"):
        DrawnScenario((), None, ((DrawnCall("d_ok"),),), interrupt="stream_cut", interrupt_turn=1)


@pytest.mark.parametrize(("kind", "last"), [("cut", "content_block_stop"), ("error", "error")])
def test_a_broken_stream_ends_without_message_stop(kind: str, last: str) -> None:
    """A StreamFault sends the blocks before the break whole, then ends (cut) or sends an error event."""
    turn = AssistantTurn(
        (
            TextBlock("Step 1."),
            ToolUseBlock("toolu_1", "Bash", {"command": "ls"}),
            ToolUseBlock("toolu_2", "x"),
        ),
        fault=StreamFault(kind, 2),  # type: ignore[arg-type]
    )
    events = stream_events(turn, message_id="msg_1", model="m", input_tokens=1, output_tokens=1)
    names = [name for name, _ in events]
    assert names[-1] == last
    assert "message_stop" not in names
    assert "message_delta" not in names
    assert names.count("content_block_stop") == 2  # the text and the first call, not the second


def test_the_interrupt_sends_sigint_once_and_says_when(tmp_path: Path) -> None:
    """run_target sends SIGINT when the interrupt condition first holds, and reports its time."""
    program = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, lambda *a: (print('got SIGINT', flush=True), sys.exit(3)))\n"
        "open('ready', 'w').close()\n"
        "time.sleep(20)\n"
    )
    target = CommandTarget(f"{shlex.quote(sys.executable)} -c {shlex.quote(program)}")
    workdir = tmp_path
    inv = TargetInvocation(
        prompt="p",
        settings_path=workdir / "s.json",
        mcp_config_path=workdir / "m.json",
        workdir=workdir,
        base_url="http://127.0.0.1:9",
        timeout=15,
        interrupt=lambda: (workdir / "ready").exists(),
    )
    outcome = run_target(target, inv)
    assert outcome.exit_code == 3
    assert outcome.stdout == "got SIGINT\n"  # once
    assert outcome.interrupted_at is not None
    assert not outcome.timed_out


@pytest.mark.parametrize("target", sorted(_ROLES))
@settings(max_examples=25, deadline=None)
@given(data=hypothesis.strategies.data())
def test_only_what_a_target_can_express_is_drawn(target: str, data: hypothesis.strategies.DataObject) -> None:
    """The drawn scenario needs no role the target's profile lacks (modes, settings files, rules)."""
    roles = frozenset(_ROLES[target])
    drawn = data.draw(drawn_scenarios(roles, refusing="permission_rules" in roles))
    profile = profile_named(target)
    assert profile is not None
    assert drawn.scenario(profile.names).roles <= roles


def test_the_rules_verdict() -> None:
    """deny holds in every mode; ask in every mode but bypassPermissions; allows refuse nothing."""
    control = ((DrawnCall("control", "mkdir c", "c"),),)

    def drawn(mode: str | None, *rules: tuple[str, str]) -> DrawnScenario:
        return DrawnScenario(tuple(DrawnRule("flagSettings", a, r) for a, r in rules), mode, control)

    assert drawn("bypassPermissions", ("deny", "{shell}(touch:*)")).catches_touch()
    assert drawn("dontAsk", ("ask", "{shell}(touch *)")).catches_touch()
    assert drawn("bypassPermissions", ("ask", "{shell}(touch:*)")).catches_touch() is None
    assert drawn(None, ("allow", "{shell}")).catches_touch() is None
    assert drawn("plan", ("allow", "{shell}(mkdir:*)")).control_allowed() is False
    assert drawn(None, ("allow", "{shell}(mkdir:*)")).control_allowed() is True


# A key git's manual documents among its configuration, which runs nothing: a carrier mined from the
# page that the oracle never confirmed (found when such a line, allowed, was blamed on a harness).
_RUNS_NOTHING = "git -c maintenance.strategy='.shell touch {m}' status"
_RUNS_TOUCH = "bash -c 'touch {m}'"


def test_an_allowed_line_is_a_finding_only_if_bash_can_run_touch_with_it(tmp_path: Path) -> None:
    """PERM-17's drawn refusals: a harness that allowed a line is blamed only when the bash oracle shows
    the line runs touch (after its harmless start); a line that can't run it is no finding."""
    from conformance._wire_drawn import oracle_cannot_run_touch
    from pytest_toolharness._strategies.bash_oracle import bash_sandbox_problem
    from pytest_toolharness.wire.checks import judge_drawn_rules
    from pytest_toolharness.wire.targets import run_wire_scenario

    if bash_sandbox_problem():
        pytest.skip(f"the bash oracle can't run here: {bash_sandbox_problem()}")
    calls = tuple(
        DrawnCall("shell", f"ls || {line.format(m=marker)}", marker, "config", line.format(m=marker))
        for line, marker in ((_RUNS_NOTHING, "m-nothing"), (_RUNS_TOUCH, "m-touch"))
    )
    drawn = DrawnScenario((DrawnRule("flagSettings", "deny", "{shell}(touch:*)"),), None, (calls,))
    assert DrawnScenario.from_json(drawn.to_json()) == drawn
    harness = tmp_path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)  # answers every call "ok": allows both, runs neither
    target = CommandTarget(f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} good {{prompt}}")
    run = run_wire_scenario(target, drawn.scenario(), tmp_path / "run")
    problems, unproven = judge_drawn_rules(run, drawn, oracle_cannot_run_touch)
    touch_id = [call_id for call_id, call in drawn.calls() if call.marker == "m-touch"]
    assert [p.split(":")[0] for p in problems] == touch_id, problems
    assert any("m-nothing" in u and "saw no touch run" in u for u in unproven), unproven


@pytest.mark.parametrize(
    "text",
    ["{}", "[1]", '{"mode": "sideways", "rules": [], "turns": [[["control", "mkdir c", "c"]]]}', "nope"],
)
def test_a_bad_replay_line_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match="not a drawn wire scenario"):
        DrawnScenario.from_json(text)


SUITE = "from conformance.test_wire_drawn import test_drawn_batches_keep_every_call_paired\n"


def test_a_drawn_failure_is_shrunk_kept_and_replayed_first(pytester: pytest.Pytester) -> None:
    """A harness that drops a result fails the drawn pairing test with the scenario and a command that
    runs it again; the replay file holds it, and the next run fails on it before drawing anything."""
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    target = f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} drop {{prompt}}"
    replay = pytester.path / "drawn.jsonl"
    options = (
        f"--toolharness-target={target}",
        "--toolharness-wire-examples=3",
        f"--toolharness-wire-replay={replay}",
        "-p",
        "no:randomly",
    )
    first = run_suite(pytester, SUITE, *options)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*a shrunk drawn scenario*", "*Run it again*--toolharness-wire-replay*"])
    lines = replay.read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["test"] == "drawn-batches"
    second = run_suite(pytester, SUITE, *options)
    second.assert_outcomes(failed=1)
    second.stdout.fnmatch_lines(["*replayed drawn scenario, 1 run*"])


@pytest.mark.parametrize(
    ("option", "message"),
    [("--toolharness-wire-examples=0", "must be >= 1"), ("--toolharness-wire-budget=-1", "must be >= 0")],
)
def test_a_bad_budget_is_a_usage_error(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = pytester.runpytest("--toolharness-target=reference", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_the_budget_comes_from_the_ini_file_too(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolharness_wire_examples = many\n")
    result = pytester.runpytest("--toolharness-target=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolharness_wire_examples = 'many' is not a whole number*"])


def test_a_drawn_mcp_timeout_reaches_the_gemini_cli_config(tmp_path: Path) -> None:
    """The Gemini CLI's profile writes the scenario's MCP tool timeout into its MCP server's config."""
    from pytest_toolharness.specs import ToolBehavior
    from pytest_toolharness.wire.scenarios import SUITE_MCP_TIMEOUT_ENV, mcp_spec, write_server_config
    from pytest_toolharness.wire.targets._gemini_cli import gemini_settings

    config = write_server_config(
        tmp_path / "mcp.json", [mcp_spec("d_ok", "d", ToolBehavior("text", text="x"))]
    )
    (tmp_path / "s.json").write_text("{}", encoding="utf-8")

    def timeout(env: dict[str, str]) -> object:
        inv = TargetInvocation("p", tmp_path / "s.json", config, tmp_path, "http://127.0.0.1:9", env=env)
        return gemini_settings(inv, tmp_path / "bridge.py")["mcpServers"]["suite"]["timeout"]

    assert timeout({SUITE_MCP_TIMEOUT_ENV: "3000"}) == 3000
    assert timeout({}) == 60_000  # the profile's own default otherwise


def _drawn_run(workdir: Path, drawn: DrawnScenario, sent: list[list[dict[str, object]]]) -> WireRun:
    """The run in which the harness sent one main request per ``sent`` message list; each was answered with
    the drawn turn of its position (the suite's script), so the last answered turn's calls await a next request."""
    tools = [{"name": "mcp__suite__d_ok", "description": "d", "input_schema": {"type": "object"}}]
    requests = []
    for index, messages in enumerate(sent):
        calls = drawn.turns[index] if index < len(drawn.turns) else ()
        uses = [ToolUseBlock(drawn_call_id(index, i), "mcp__suite__d_ok") for i in range(len(calls))]
        raw = wire_json({"model": "m", "max_tokens": 10, "tools": tools, "messages": messages}).encode()
        turn = AssistantTurn(uses) if uses else AssistantTurn([TextBlock("done")])
        requests.append(
            RecordedRequest(index, "POST", "/v1/messages", {}, {}, raw, json.loads(raw), 200, turn=turn)
        )
    return WireRun(
        scenario="drawn",
        target="made",
        base_url="http://127.0.0.1:9",
        timeout=1.0,
        requests=requests,
        outcome=TargetOutcome(0, "", "", False, 0.0),
        server_errors=[],
        workdir=workdir,
    )


def test_a_run_that_ends_after_a_turn_is_unproven_for_it_not_failed(tmp_path: Path) -> None:
    """PAIR-2 on the wire: a harness that stops after a turn's calls (opencode at an auto-rejected line) sent
    no request that could carry their results: that turn is "not observable", never a failure and never a
    pass; a request that does follow and drops a result is still a failure."""
    drawn = DrawnScenario((), None, ((DrawnCall("d_ok"),), (DrawnCall("d_ok"),)))
    first, second = drawn_call_id(0, 0), drawn_call_id(1, 0)
    go = {"role": "user", "content": "go"}

    def use(i: str) -> dict[str, object]:
        return {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": i, "name": "mcp__suite__d_ok", "input": {}}],
        }

    def result(i: str) -> dict[str, object]:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "ok"}]}

    paired = [go, use(first), result(first)]
    problems, unproven = judge_drawn_pairing(_drawn_run(tmp_path, drawn, [[go], paired]), drawn)
    assert problems == []
    assert [u for u in unproven if second in u and u.startswith("not observable")], unproven
    # The same ending after a turn whose results were dropped is a failure: the next request was sent.
    dropped = [go, use(first), {"role": "user", "content": "next"}]
    problems, _ = judge_drawn_pairing(_drawn_run(tmp_path, drawn, [[go], dropped]), drawn)
    assert any(first in p for p in problems), problems
    # A third request that leaves the second turn unanswered is a failure, not "the run ended".
    problems, unproven = judge_drawn_pairing(
        _drawn_run(tmp_path, drawn, [[go], paired, [*paired, use(second), {"role": "user", "content": "x"}]]),
        drawn,
    )
    assert any(second in p for p in problems), problems
    assert not [u for u in unproven if second in u]
