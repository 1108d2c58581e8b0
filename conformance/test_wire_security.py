"""Black-box conformance of the security requirements: rules against hooks, the hook protocol, modes.

The scenarios are :mod:`pytest_toolharness.wire.scenarios._security`'s. Whether a call ran is read from the
suite's MCP server's call log (or, for the shell, from the file the command would create), whether
a hook was asked from the hook's own log; a test whose behaviour was not exercised (the hook never
ran, the tool was never offered, nothing ran at all) reports "not checked", never passed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance._wire_runs import WireRunner, judge, scenario_runner
from pytest_toolharness.adapters import requires
from pytest_toolharness.wire import checks
from pytest_toolharness.wire.scenarios import (
    CONTEXT_MARK,
    DENIED_FILE,
    PLAN_FILE,
    PROMPT_CONTEXT,
    REWRITTEN_TEXT,
    SCHEDULING_TOOLS,
    SESSION_CONTEXT,
    STOP_REASON,
    ModeIds,
    PostIds,
    SecurityIds,
    StopIds,
    WireScenario,
    hook_sources_scenario,
    mode_scenario,
    post_scenario,
    scheduling_scenario,
    security_scenario,
    stop_scenario,
)

_SCENARIOS: dict[str, Callable[..., WireScenario]] = {
    "security": security_scenario,
    "mode-dontAsk": lambda names: mode_scenario("dontAsk", names),
    "mode-plan": lambda names: mode_scenario("plan", names),
    "mode-default": lambda names: mode_scenario("default", names),
    "mode-bypassPermissions": lambda names: mode_scenario("bypassPermissions", names),
    "stop": stop_scenario,
    "post": post_scenario,
    "scheduling": scheduling_scenario,
    "hook-sources": hook_sources_scenario,
}


@pytest.fixture(scope="module")
def wire(new_harness: Callable[[], Any], request: pytest.FixtureRequest) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module).

    The first use starts the runs of the module's other selected tests too, two at a time.
    """
    return scenario_runner(new_harness, _SCENARIOS, request)


def _result(run: Any, tool_use_id: str) -> dict[str, Any] | None:
    blocks = checks.tool_results(run.requests).get(tool_use_id, [])
    return dict(blocks[0]) if blocks else None


def _not_run(run: Any, tool: str, tool_use_id: str, why: str) -> list[str]:
    """Problems when ``tool`` ran, or its call did not come back as an error."""
    problems = []
    if checks.called(run, tool):
        problems.append(f"{tool} ran although {why}")
    block = _result(run, tool_use_id)
    if block is None or block.get("is_error") is not True:
        problems.append(f"{tool_use_id} ({tool}): {why}, but its result is not an error: {block!r}"[:400])
    return problems


def _ran(run: Any, tool: str, why: str) -> list[str]:
    return [] if checks.called(run, tool, outcome="ok") else [f"{tool} did not run although {why}"]


def _hook(run: Any, hook: str, tool: str) -> list[str]:
    return [] if checks.hook_saw(run, hook, tool) else [f"the suite's {hook} hook never ran for {tool}"]


def _shell_ran(run: Any) -> bool:
    return run.workdir is not None and (run.workdir / DENIED_FILE).exists()


@requires("wire")
@pytest.mark.requirement("PERM-1", "MUST")
def test_deny_rule_beats_allow_rule_and_hook_allow(wire: WireRunner) -> None:
    """PERM-1: a content deny rule on the shell beats its allow rule and a hook's allow: it never runs."""
    run = wire("security")
    shell = run.names.builtin("shell")
    unproven = _hook(run, "pre-shell", shell) + ([] if checks.offered(run, shell) else [f"no {shell} tool"])
    problems = [f"the denied shell command ran: {DENIED_FILE} exists"] if _shell_ran(run) else []
    block = _result(run, SecurityIds.SHELL_DENY)
    if block is None or block.get("is_error") is not True:
        problems.append(f"the denied shell call's result is not an error: {block!r}"[:400])
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("PERM-2", "MUST")
def test_hook_allow_bypasses_neither_deny_nor_ask(wire: WireRunner) -> None:
    """PERM-2: a hook's allow grants a tool no rule names, but neither a deny nor an ask rule's tool."""
    run = wire("security")
    shell = run.names.builtin("shell")
    unproven = _hook(run, "pre-g_ask", "g_ask") + _hook(run, "pre-shell", shell)
    # The control: without a rule the same hook's allow grants, so the hook's allow is honoured.
    unproven += _hook(run, "pre-g_free", "g_free") + _ran(
        run, "g_free", "a hook allowed it and no rule names it"
    )
    problems = _not_run(run, "g_ask", SecurityIds.ASK, "an ask rule names it and nobody can be asked")
    if _shell_ran(run):
        problems.append(f"the hook's allow bypassed the deny rule: {DENIED_FILE} exists")
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("PERM-3", "MUST")
def test_hook_deny_and_exit_2_deny_despite_allow_rules(wire: WireRunner) -> None:
    """PERM-3: a hook's JSON deny and a hook's exit 2 deny an allowed tool; it never runs."""
    run = wire("security")
    unproven = _hook(run, "pre-g_hookdeny", "g_hookdeny") + _hook(run, "pre-g_exit2", "g_exit2")
    problems = _not_run(run, "g_hookdeny", SecurityIds.HOOK_DENY, "its hook denied it")
    problems += _not_run(run, "g_exit2", SecurityIds.EXIT2, "its hook exited 2")
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("HOOK-3", "MUST")
def test_command_hook_protocol(wire: WireRunner) -> None:
    """HOOK-3: exit 2 blocks with stderr to the model; exit 1 and non-JSON stdout are ignored; JSON decides."""
    run = wire("security")
    unproven = [
        reason
        for hook, tool in (
            ("pre-g_exit2", "g_exit2"),
            ("pre-g_exit1", "g_exit1"),
            ("pre-g_garbage", "g_garbage"),
        )
        for reason in _hook(run, hook, tool)
    ]
    problems = _not_run(run, "g_exit2", SecurityIds.EXIT2, "its hook exited 2")
    block = _result(run, SecurityIds.EXIT2)
    if block is not None and "blocked by the suite hook" not in checks.result_text(block):
        problems.append(
            f"the exit-2 hook's stderr did not reach the model: {checks.result_text(block)[:200]!r}"
        )
    problems += _ran(run, "g_exit1", "its hook only exited 1 (a non-blocking error)")
    problems += _ran(run, "g_garbage", "its hook printed non-JSON and exited 0")
    problems += _not_run(run, "g_hookdeny", SecurityIds.HOOK_DENY, "its hook's JSON said deny")
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("EXEC-1", "MUST")
def test_invalid_input_reaches_no_hook(wire: WireRunner) -> None:
    """EXEC-1: a built-in called with input that fails its schema never reaches the PreToolUse hooks."""
    run = wire("security")
    read = run.names.builtin("read")
    unproven = [] if checks.offered(run, read) else [f"no {read} tool"]
    unproven += _hook(run, "pre-all", "g_free")  # the catch-all hook ran, so it would have seen the call
    problems = (
        [f"the catch-all PreToolUse hook was given {read} with invalid input"]
        if checks.hook_saw(run, "pre-all", read)
        else []
    )
    block = _result(run, SecurityIds.INVALID)
    if block is None or block.get("is_error") is not True:
        problems.append(f"{read} without its required input did not fail: {block!r}"[:300])
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("EXEC-2", "MUST")
def test_hook_updated_input_is_what_runs(wire: WireRunner) -> None:
    """EXEC-2: a PreToolUse hook's updatedInput is the input the tool is called with."""
    run = wire("security")
    unproven = _hook(run, "pre-g_rewrite", "g_rewrite")
    ran = [
        e.get("arguments")
        for e in run.mcp_calls
        if e.get("event") == "start" and e.get("tool") == "g_rewrite"
    ]
    problems = (
        [] if ran == [{"text": REWRITTEN_TEXT}] else [f"g_rewrite ran with {ran}, not the hook's input"]
    )
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("EXEC-5", "MUST")
def test_post_hook_context_reaches_the_model(wire: WireRunner) -> None:
    """EXEC-5: a PostToolUse hook's additionalContext is in the next request, after the tool's result."""
    run = wire("security")
    unproven = _hook(run, "post-g_context", "g_context") + _ran(run, "g_context", "it is allowed")
    mains = checks.main_requests(run.requests)
    later = mains[1:] if len(mains) > 1 else []
    problems = (
        []
        if any(CONTEXT_MARK in r.body.decode("utf-8", "replace") for r in later)
        else [f"the PostToolUse hook's additionalContext ({CONTEXT_MARK}) was never sent to the model"]
    )
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("PERM-10", "MUST")
def test_tool_denied_as_a_whole_is_hidden(wire: WireRunner) -> None:
    """PERM-10: an MCP tool a deny rule names as a whole is not in any request's tools."""
    run = wire("security")
    unproven = checks.served_unproven(run, ["g_deny", "g_free"])
    offered = sorted(
        n for n, served in checks.served_tool_names(run.requests, run.served).items() if served == "g_deny"
    )
    problems = [f"the wholly denied tool is offered to the model as {offered}"] if offered else []
    problems += ["g_deny ran although a deny rule names it"] if checks.called(run, "g_deny") else []
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("PERM-7", "MUST")
def test_dont_ask_denies_what_would_be_asked(wire: WireRunner) -> None:
    """PERM-7: in dontAsk mode an MCP tool no rule allows is denied (never run), an allowed one runs."""
    run = wire("mode-dontAsk")
    unproven = _ran(run, "m_allowed", "an allow rule names it")
    offered = set(checks.served_tool_names(run.requests, run.served).values())
    unproven += [] if "m_unruled" in offered else ["the unruled tool was never offered"]
    judge(run, _not_run(run, "m_unruled", ModeIds.UNRULED, "dontAsk denies what would be asked"), unproven)


@requires("wire")
@pytest.mark.requirement("PERM-9", "SHOULD")
def test_plan_mode_refuses_writes(wire: WireRunner) -> None:
    """PERM-9: in plan mode the write tool does not write (its file is never created); reads run."""
    run = wire("mode-plan")
    unproven = _ran(run, "m_allowed", "an allow rule names it (a read-only tool)")
    unproven += [] if checks.offered(run, run.names.builtin("write")) else ["no write tool"]
    problems = []
    if run.workdir is not None and (run.workdir / PLAN_FILE).exists():
        problems.append(f"Write created {PLAN_FILE} in plan mode")
    block = _result(run, ModeIds.WRITE)
    if block is None or block.get("is_error") is not True:
        problems.append(f"the Write call in plan mode is not an error: {block!r}"[:300])
    judge(run, problems, unproven)


def _scheduled(run: Any) -> list[str]:
    spans = checks.intervals(run)
    missing = [tool for tool, _, _ in SCHEDULING_TOOLS if tool not in spans]
    return [f"the MCP server never ran {', '.join(missing)} to the end"] if missing else []


@requires("wire")
@pytest.mark.requirement("CONC-1", "MUST")
def test_unsafe_calls_overlap_nothing(wire: WireRunner) -> None:
    """CONC-1: a call that is not concurrency safe overlaps no other call (the server's call times)."""
    run = wire("scheduling")
    problems = [
        f"{tool} (not concurrency safe) overlapped {checks.overlapping(run, tool)}"
        for tool, _, read_only in SCHEDULING_TOOLS
        if not read_only and checks.overlapping(run, tool)
    ]
    judge(run, problems, _scheduled(run))


@requires("wire")
@pytest.mark.requirement("CONC-2", "SHOULD")
def test_adjacent_safe_calls_run_together(wire: WireRunner) -> None:
    """CONC-2: the two adjacent read-only calls overlap in time."""
    run = wire("scheduling")
    together = "c_fast_safe" in checks.overlapping(run, "c_slow_safe")
    problems = (
        []
        if together
        else ["the adjacent read-only calls c_slow_safe and c_fast_safe ran one after the other"]
    )
    judge(run, problems, _scheduled(run))


@requires("wire")
@pytest.mark.requirement("CONC-3", "MUST")
def test_undeclared_tools_are_not_concurrency_safe(wire: WireRunner) -> None:
    """CONC-3: two adjacent tools that declare nothing (no readOnlyHint) are not run together."""
    run = wire("scheduling")
    problems = (
        ["c_plain_a and c_plain_b (declaring nothing) ran at the same time"]
        if "c_plain_b" in checks.overlapping(run, "c_plain_a")
        else []
    )
    judge(run, problems, _scheduled(run))


_COMMON_FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input")


@requires("wire")
@pytest.mark.requirement("HOOK-6", "SHOULD")
def test_hook_input_carries_the_common_fields(wire: WireRunner) -> None:
    """HOOK-6: a PreToolUse hook's input has the common fields, the validated input and the tool_use id."""
    run = wire("security")
    entries = [e for e in run.hook_calls if e.get("hook") == "pre-g_rewrite"]
    unproven = [] if entries else ["the suite's pre-g_rewrite hook never ran"]
    problems = []
    for entry in entries[:1]:
        data = entry.get("input") if isinstance(entry.get("input"), dict) else {}
        missing = [f for f in (*_COMMON_FIELDS, "permission_mode", "tool_use_id") if f not in data]
        if missing:
            problems.append(f"the PreToolUse input lacks {missing}: {sorted(data)}")
        if data.get("hook_event_name") != "PreToolUse":
            problems.append(f"hook_event_name is {data.get('hook_event_name')!r}, not 'PreToolUse'")
        if data.get("tool_use_id") != SecurityIds.REWRITE:
            problems.append(
                f"tool_use_id is {data.get('tool_use_id')!r}, not the model's {SecurityIds.REWRITE}"
            )
        if data.get("tool_input") != {"text": "from the model to g_rewrite"}:
            problems.append(f"tool_input is {data.get('tool_input')!r}, not the model's input")
    judge(run, problems, unproven)


def _seen(run: Any, hook: str) -> set[str]:
    """The suite tools (by their served names) the hook ``hook`` was asked about."""
    seen = set()
    for entry in run.hook_calls:
        data = entry.get("input") if isinstance(entry.get("input"), dict) else {}
        if entry.get("hook") == hook:
            name = str(data.get("tool_name", ""))
            seen.add(checks.served_tool_names(run.requests, run.served).get(name, name))
    return seen


@requires("wire")
@pytest.mark.requirement("HOOK-1", "MUST")
def test_hook_matchers(wire: WireRunner) -> None:
    """HOOK-1: exact names, alternatives (a|b), a regular expression and * each match what they say."""
    run = wire("security")
    reached = _seen(run, "pre-all")
    unproven = (
        []
        if {"g_free", "g_rewrite", "g_hookdeny", "g_exit1"} <= reached
        else [f"the catch-all hook saw only {sorted(reached)}"]
    )
    expected = {
        "pre-alt": {"g_hookdeny", "g_exit1"},
        "pre-regex": {"g_free", "g_rewrite"},
        "pre-g_free": {"g_free"},
        "pre-g_exit2": {"g_exit2"},
    }
    problems = [
        f"the {hook} hook matched {sorted(_seen(run, hook))}, expected {sorted(tools)}"
        for hook, tools in expected.items()
        if _seen(run, hook) != tools
    ]
    served_reached = {t for t in reached if t in run.served}
    offered = set(checks.served_tool_names(run.requests, run.served).values()) - {"g_deny"}
    if served_reached != offered:
        problems.append(f"the * hook saw {sorted(served_reached)}, but the calls were {sorted(offered)}")
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("HOOK-2", "MUST")
def test_most_restrictive_hook_decision_wins(wire: WireRunner) -> None:
    """HOOK-2: one hook denies and another allows the same call: the call is denied."""
    run = wire("security")
    unproven = _hook(run, "pre-g_hookdeny", "g_hookdeny") + _hook(run, "pre-alt", "g_hookdeny")
    judge(run, _not_run(run, "g_hookdeny", SecurityIds.HOOK_DENY, "one of its hooks denied it"), unproven)


@requires("wire")
@pytest.mark.requirement("PERM-6", "MUST")
def test_undecided_becomes_ask_not_allow(wire: WireRunner) -> None:
    """PERM-6: a tool no rule or hook decides is asked about; nobody can be asked, so it never runs."""
    run = wire("mode-default")
    unproven = _ran(run, "m_allowed", "an allow rule names it")
    offered = set(checks.served_tool_names(run.requests, run.served).values())
    unproven += [] if "m_unruled" in offered else ["the unruled tool was never offered"]
    judge(run, _not_run(run, "m_unruled", ModeIds.UNRULED, "nothing allowed it"), unproven)


@requires("wire")
@pytest.mark.requirement("PERM-5", "MUST")
def test_bypass_permissions_still_honours_deny_rules(wire: WireRunner) -> None:
    """PERM-5: bypassPermissions runs a tool no rule names, but not a shell command a deny rule names."""
    run = wire("mode-bypassPermissions")
    shell = run.names.builtin("shell")
    # The proof the mode took effect: the tool nothing allowed ran.
    unproven = _ran(run, "m_unruled", "bypassPermissions allows what no rule names")
    unproven += [] if checks.offered(run, shell) else [f"no {shell} tool"]
    problems = (
        [f"the denied shell command ran in bypassPermissions: {DENIED_FILE} exists"]
        if _shell_ran(run)
        else []
    )
    block = _result(run, ModeIds.SHELL_DENY)
    if block is None or block.get("is_error") is not True:
        problems.append(f"the denied shell call's result is not an error: {block!r}"[:300])
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("HOOK-5", "MUST")
def test_continue_false_stops_after_the_turn(wire: WireRunner) -> None:
    """HOOK-5: PostToolUse ``continue: false`` stops the loop; the stopReason never reaches the model.

    The next turn's call never runs, the stopping turn's other call still does.
    """
    run = wire("stop")
    unproven = _hook(run, "post-s_stop", "s_stop") + _ran(run, "s_stop", "it is allowed")
    problems = []
    if checks.called(run, "s_after"):
        problems.append("the loop went on after continue: false: the next turn's s_after ran")
    if any(STOP_REASON in r.body.decode("utf-8", "replace") for r in run.message_requests):
        problems.append("the stopReason was sent to the model")
    answered = checks.tool_results(run.requests)
    if StopIds.AFTER in answered:
        problems.append("the turn after continue: false was answered as if the loop went on")
    judge(run, problems, unproven)


def _kept_result(run: Any, tool: str, tool_use_id: str, why: str) -> list[str]:
    """Problems when the call of ``tool`` did not come back as its own successful output."""
    block = _result(run, tool_use_id)
    if block is None:
        return [f"{tool_use_id} ({tool}) got no result"]
    if block.get("is_error") is True or f"{tool}-ran" not in json.dumps(block.get("content")):
        return [f"{tool_use_id} ({tool}) ran and {why}, but its result is not its output: {block!r}"[:400]]
    return []


@requires("wire")
@pytest.mark.requirement("HOOK-4", "MUST")
def test_post_hook_block_does_not_undo_the_call(wire: WireRunner) -> None:
    """HOOK-4: a PostToolUse ``decision: block`` after the call ran leaves its result the tool's output.

    The suite's MCP server shows the call ran and the hook's log that the hook answered; the result
    must not be turned into a denial after the fact.
    """
    run = wire("post")
    unproven = _hook(run, "post-p_done", "p_done") + _ran(run, "p_done", "it is allowed")
    judge(run, _kept_result(run, "p_done", PostIds.BLOCKED_AFTER, "a PostToolUse hook blocked it"), unproven)


@requires("wire")
@pytest.mark.requirement("PERM-8", "MUST")
def test_permission_request_hook_decides_when_nobody_can_ask(wire: WireRunner) -> None:
    """PERM-8: with no way to ask (print mode), a PermissionRequest hook's allow lets the unruled call run."""
    run = wire("post")
    unproven = _hook(run, "permission", "p_unruled")
    problems = _ran(run, "p_unruled", "the PermissionRequest hook allowed it") + _kept_result(
        run, "p_unruled", PostIds.PERMISSION, "the PermissionRequest hook allowed it"
    )
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("HOOK-7", "SHOULD")
def test_session_start_and_prompt_hooks_fire_and_their_context_reaches_the_model(wire: WireRunner) -> None:
    """HOOK-7: SessionStart and UserPromptSubmit fire once each; their additionalContext is in the first request.

    Proven fired from each hook's own log (its input's ``hook_event_name``); the UserPromptSubmit input
    carries the prompt.
    """
    run = wire("stop")
    unproven = [
        f"the suite's {event} hook never ran"
        for event in ("SessionStart", "UserPromptSubmit")
        if not checks.hook_fired(run, f"life-{event}", event)
    ]
    problems = [
        f"{event} fired {count} times for one prompt"
        for event in ("SessionStart", "UserPromptSubmit")
        if (count := checks.hook_fired(run, f"life-{event}", event)) > 1
    ]
    prompts = [e["input"].get("prompt") for e in run.hook_calls if e.get("hook") == "life-UserPromptSubmit"]
    if prompts and prompts[0] != "Use the tools as the conversation asks.":
        problems.append(f"the UserPromptSubmit input's prompt is {prompts[0]!r}, not the prompt")
    mains = checks.main_requests(run.requests)
    first = mains[0].body.decode("utf-8", "replace") if mains else ""
    problems += [
        f"the {event} hook's additionalContext ({context}) is not in the first request"
        for event, context in (("SessionStart", SESSION_CONTEXT), ("UserPromptSubmit", PROMPT_CONTEXT))
        if context not in first
    ]
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("HOOK-8", "SHOULD")
def test_async_plugin_and_http_hooks_follow_the_command_hook_rules(wire: WireRunner) -> None:
    """HOOK-8: an async hook's deny never decides; a plugin's deny blocks; an unreachable http hook doesn't."""
    run = wire("hook-sources")
    problems, unproven = checks.judge_hook_sources(run)
    judge(run, problems, unproven)
