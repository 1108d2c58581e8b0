"""Hooks through ``execute``: HOOK-1, HOOK-2, HOOK-3, HOOK-4 and HOOK-8.

Matchers, the aggregation of several PreToolUse hooks, the command-hook protocol (real
subprocesses), and PostToolUse hooks after the call.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    TOOL_OUTPUT,
    host_answering,
    mcp_tool_spec,
    plain_tool,
    run_calls,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import STDOUT_BESIDE_STATUS_REASON, hook_command, requires
from pytest_toolharness.specs import HookSpec, RuleSpec, SettingsSpec, ToolBehavior, ToolSpec

BUILTIN_NAMES = st.from_regex(
    r"[A-Z][a-z]{2,6}([A-Z][a-z]{2,5})?", fullmatch=True, alphabet=ths.utf8_characters()
)
LOWER = st.from_regex(r"[a-z]{2,6}", fullmatch=True, alphabet=ths.utf8_characters())


def pre(outcome: str, **fields: Any) -> HookSpec:
    return HookSpec(event="PreToolUse", outcome=outcome, **fields)  # type: ignore[arg-type]


# A hook drawn to hang waits out its whole timeout, so it gets a short one; a hook that answers gets a
# generous one, so that a slow start on a loaded machine is never taken for a timeout.
HANG_TIMEOUT_S = 0.25
ANSWER_TIMEOUT_S = 10.0


def run_deploy_allowed(harness: Any, hook: HookSpec, host: Any = None) -> Any:
    """One call of the tool ``Deploy``, which an allow rule allows, with ``hook`` installed."""
    return run_calls(
        harness, [plain_tool("Deploy")], [("Deploy", {"x": "1"})], rules=[RuleSpec("Deploy", "allow")],
        hooks=[hook], host=host,
    )  # fmt: skip


def timeout_for(outcome: str) -> float:
    """The hook timeout for a hook of ``outcome``: short when it is meant to hang."""
    return HANG_TIMEOUT_S if outcome == "hang" else ANSWER_TIMEOUT_S


@st.composite
def matcher_cases(draw: st.DrawFn) -> tuple[ToolSpec, str, bool]:
    """(a tool, a matcher, whether the matcher selects the tool).

    Non-matching matchers include names that collide with the tool's after normalisation (another
    letter case, a single ``_`` for the MCP separator ``__``).
    """
    matching = draw(st.booleans())
    if draw(st.booleans()):
        name = draw(BUILTIN_NAMES)
        return plain_tool(name), draw(ths.hook_matchers(name, matching=matching)), matching
    server, tool = draw(LOWER), draw(LOWER)
    name = f"mcp__{server}__{tool}"
    if matching:
        forms = [f"^mcp__{server}__", f"mcp__{server}__.*", name, f"mcp__.*__{tool}$", "", "*"]
    else:
        forms = [
            f"^mcp__{server}x__",
            f"mcp__{server}__{tool}_.*",
            f"mcp__{server}",
            f"Read|mcp__{server}x__{tool}",
            # The same name but for its letter case or a separator: another tool to an exact matcher.
            f"mcp__{server.upper()}__{tool}",
            f"Read|mcp__{server}__{tool.capitalize()}",
            f"mcp__{server}_{tool}",
        ]
    return mcp_tool_spec(server, tool), draw(st.sampled_from(forms)), matching


# Every event whose hooks take a tool matcher, with the answer that shows whether the hook ran: a deny
# where the hook decides, an additional context where it comments on a result (a raised failure and a
# returned error result both reach PostToolUseFailure).
MATCHED_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure")
FAILURES = ("raise", "error_result")
MATCH_MARKER = "matched-hook-context-5b2d"


def check_matched_hook(
    harness: Any,
    event: str,
    tool: ToolSpec,
    matcher: str | None,
    matching: bool,
    failure: str,
    *,
    as_command: bool = False,
) -> None:
    """One call of ``tool`` with one hook on ``event``: it must apply iff ``matching``.

    A PreToolUse or PermissionRequest hook denies (the call runs iff the matcher misses); a
    PostToolUse or PostToolUseFailure hook (after ``failure``: a raise or a returned error result)
    adds a context that reaches the model iff the matcher selects the tool.
    """
    decides = event in ("PreToolUse", "PermissionRequest")
    if event == "PostToolUseFailure":
        tool = dataclasses.replace(tool, behavior=ToolBehavior(failure, message="tool failed here"))  # type: ignore[arg-type]
    hook = HookSpec(
        event=event,  # type: ignore[arg-type]
        outcome="deny" if decides else "context",
        matcher=matcher,
        context=MATCH_MARKER,
        as_command=as_command,
        timeout=ANSWER_TIMEOUT_S,
    )
    run = run_calls(
        harness,
        [tool],
        [(tool.name, {"x": "1"})],
        # A PermissionRequest hook is asked only where the rules leave the call to ask.
        rules=[] if event == "PermissionRequest" else [RuleSpec(tool.name, "allow")],
        hooks=[hook],
        host=host_answering("allow"),
    )
    why = f"{event} {'command' if as_command else 'callback'} hook with matcher {matcher!r} on {tool.name}"
    if decides:
        assert run.ran() == (0 if matching else 1), (
            f"{why}: its deny must apply {'' if matching else 'not '}to the call: {run.describe()}"
        )
    else:
        assert run.ran() == 1, f"{why}: the call must have run: {run.describe()}"
        assert (MATCH_MARKER in run.all_text()) == matching, (
            f"{why}: it must {'' if matching else 'not '}run (its context reaches the model iff it does): "
            f"{run.describe()}"
        )


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("HOOK-1", "MUST")
@settings(max_examples=48, deadline=None)
@given(case=matcher_cases(), event=st.sampled_from(MATCHED_EVENTS), failure=st.sampled_from(FAILURES))
@example(case=(plain_tool("Deploy"), "epl.y", True), event="PreToolUse", failure="raise")
@example(case=(plain_tool("Deploy"), "Read", False), event="PostToolUseFailure", failure="error_result")
@example(case=(plain_tool("Deploy"), "Read|Deploy", True), event="PermissionRequest", failure="raise")
def test_matcher_selects_exactly_the_matching_tools(
    new_harness: Callable[[], Any], case: tuple[ToolSpec, str, bool], event: str, failure: str
) -> None:
    """HOOK-1: on every event with a tool matcher (PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure) a hook applies to a tool its matcher selects (exact name, ``A|B``, regex, ``""``, ``*``) and to no other.

    A PreToolUse or PermissionRequest hook denies (the call runs iff the matcher misses); a
    PostToolUse or PostToolUseFailure hook (after a success, after a raised failure or a returned
    error result) adds a context that reaches the model iff the matcher selects the tool.
    """
    tool, matcher, matching = case
    check_matched_hook(new_harness(), event, tool, matcher, matching, failure)


# Every spelling of "every tool": no matcher at all, the empty string, ``*`` and regexes that match any
# name. Each is crossed with every event that takes a matcher (parametrized, so no cell is left to chance).
MATCH_ALL_SPELLINGS = (None, "", "*", ".*", "^.*$")


@st.composite
def any_tool(draw: st.DrawFn) -> ToolSpec:
    """A built-in-looking tool or an MCP tool ``mcp__server__tool``, either letter case."""
    if draw(st.booleans()):
        return plain_tool(draw(BUILTIN_NAMES))
    server, tool = draw(LOWER), draw(LOWER)
    return mcp_tool_spec(server, tool.upper() if draw(st.booleans()) else tool)


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("HOOK-1", "MUST")
@pytest.mark.parametrize("event", MATCHED_EVENTS)
@pytest.mark.parametrize("matcher", MATCH_ALL_SPELLINGS, ids=repr)
@settings(max_examples=3, deadline=None)
@given(tool=any_tool(), as_command=st.booleans(), failure=st.sampled_from(FAILURES))
def test_match_all_spellings_select_every_tool_on_every_event(
    new_harness: Callable[[], Any],
    event: str,
    matcher: str | None,
    tool: ToolSpec,
    as_command: bool,
    failure: str,
) -> None:
    """HOOK-1: a missing matcher, ``""``, ``*`` and an any-name regex select every tool (built-in or MCP) on every event with a matcher, for callback and command hooks alike.

    Property: the hook runs (its deny applies, or its context reaches the model) for every call.
    """
    check_matched_hook(new_harness(), event, tool, matcher, True, failure, as_command=as_command)


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("HOOK-1", "MUST")
@pytest.mark.parametrize(
    ("matcher", "tool_name"),
    [
        ("Bash", "BashOutput"),
        ("Read", "ReadMcpResource"),
        ("Bash|Read", "BashOutput"),
        ("Edit|Write", "NotebookEdit"),
        ("mcp__srv", "mcp__srv__tool"),
    ],
)
def test_exact_name_matcher_does_not_select_a_longer_name(
    new_harness: Callable[[], Any], matcher: str, tool_name: str
) -> None:
    """HOOK-1: a matcher of plain names (``Bash``, ``A|B``) matches whole tool names only, never a part of one."""
    tool = mcp_tool_spec("srv", "tool") if tool_name == "mcp__srv__tool" else plain_tool(tool_name)
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"x": "1"})],
        rules=[RuleSpec(tool.name, "allow")],
        hooks=[pre("deny", matcher=matcher)],
        host=host_answering("allow"),
    )
    assert run.ran() == 1, (
        f"deny hook with matcher {matcher!r} must not apply to {tool_name} (not an exact name): {run.describe()}"
    )


# What each PreToolUse answer decides, in every dialect: the hookSpecificOutput permissionDecision,
# the legacy top-level ``decision`` (approve / block), an allow with updatedInput, exit 2 (a command
# hook's block) and answers without a decision.
DECIDES = {
    "allow": "allow",
    "update_input": "allow",
    "legacy_approve": "allow",
    "ask": "ask",
    # "defer" hands the call to a decider outside the harness: with a host, the host (an ask).
    "defer": "ask",
    "deny": "deny",
    "legacy_block": "deny",
    "exit2": "deny",
    "none": "none",
    "context": "none",
    "system_message": "none",
}


@st.composite
def pre_tool_use_stacks(draw: st.DrawFn) -> list[HookSpec]:
    """2-4 PreToolUse hooks on one call, each answering in any dialect, as a callback or a command.

    Answers in JSON sometimes carry further fields (additionalContext, systemMessage, suppressOutput).
    """
    hooks = []
    for i in range(draw(st.integers(2, 4))):
        outcome = draw(st.sampled_from(sorted(DECIDES)))
        json_answer = outcome != "exit2"
        also = draw(st.sampled_from([(), ("context",), ("system_message",), ("suppress_output",)]))
        hooks.append(
            pre(
                outcome,
                reason=f"hook {i} says {outcome}",
                as_command=outcome == "exit2" or draw(st.integers(0, 3)) == 0,
                updated_input={"x": f"from-hook-{i}"} if outcome == "update_input" else None,
                also=also if json_answer and not (outcome == "system_message" and "context" in also) else (),
                timeout=ANSWER_TIMEOUT_S,
            )
        )
    return hooks


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("HOOK-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(hooks=pre_tool_use_stacks(), host_allows=st.booleans())
@example(hooks=[pre("deny"), pre("allow")], host_allows=True)
@example(hooks=[pre("ask"), pre("none"), pre("allow")], host_allows=False)
@example(hooks=[pre("allow"), pre("allow")], host_allows=False)
@example(hooks=[pre("allow"), pre("ask")], host_allows=False)
@example(hooks=[pre("legacy_block"), pre("allow")], host_allows=True)
@example(hooks=[pre("update_input", updated_input={"x": "2"}), pre("legacy_block")], host_allows=True)
@example(hooks=[pre("legacy_approve"), pre("ask")], host_allows=False)
@example(hooks=[pre("allow"), pre("defer")], host_allows=True)
def test_several_pre_tool_use_hooks_combine_to_the_most_restrictive(
    new_harness: Callable[[], Any], hooks: list[HookSpec], host_allows: bool
) -> None:
    """HOOK-2: with several PreToolUse hooks on one call, deny beats ask beats allow, whatever their order and dialect.

    A legacy ``decision: "block"`` and an exit 2 deny like ``permissionDecision: "deny"``, a legacy
    ``decision: "approve"`` and an allow with updatedInput allow like ``"allow"``; hooks answering
    without a decision (nothing, a context, a system message) leave the call to the others, and with
    no allow at all, to the host.
    """
    decided = [DECIDES[h.outcome] for h in hooks]
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "1"})], hooks=hooks, host=host)
    why = f"hooks {[(h.outcome, h.as_command, h.also) for h in hooks]}, host {'allows' if host_allows else 'denies'}"
    if "deny" in decided:
        assert (run.ran(), run.asked) == (0, []), f"{why}: a deny must win without asking: {run.describe()}"
        assert run.is_error(), f"{why}: the denied call's result must be an error: {run.describe()}"
    elif "ask" in decided or "allow" not in decided:
        assert len(run.asked) == 1, f"{why}: the host must be asked once: {run.describe()}"
        assert run.ran() == (1 if host_allows else 0), (
            f"{why}: the host's answer must decide: {run.describe()}"
        )
    else:
        assert (run.ran(), run.asked) == (1, []), f"{why}: all deciding hooks allowed: {run.describe()}"


COMMAND_OUTCOMES = ("allow", "ask", "deny", "exit2", "exit1", "garbage", "crash", "hang")
REASONS = st.from_regex(r"[a-z]{4,8} [a-z]{4,8} [0-9]{2}", fullmatch=True, alphabet=ths.utf8_characters())


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@pytest.mark.parametrize("outcome", COMMAND_OUTCOMES)
@settings(max_examples=2, deadline=None)
@given(reason=REASONS)
def test_command_hook_protocol(new_harness: Callable[[], Any], outcome: str, reason: str) -> None:
    """HOOK-3: a command hook's exit-0 JSON decision applies; exit 2 blocks with its stderr shown to the model; exit 1, garbage, a crash or a timeout are non-blocking and crash nothing."""
    hook = pre(outcome, as_command=True, reason=reason, timeout=timeout_for(outcome))
    # Decisions are checked without rules (so the hook decides); failures beside an allow rule.
    rules = [] if outcome in ("allow", "ask") else [RuleSpec("Deploy", "allow")]
    host = host_answering("deny")
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "1"})], rules=rules, hooks=[hook], host=host
    )
    why = f"command hook {outcome} (reason {reason!r})"
    assert_decided_like_a_command_hook(run, outcome, why)
    if outcome == "exit2":
        assert reason in run.result_text(), f"{why}: stderr must reach the model: {run.result_text()!r}"


# Where readers of a pipe cut: the atomic write (PIPE_BUF), a pipe's buffer and asyncio's default stream
# limit (64 KiB), and past them; a JSON decision is drawn at each, one byte either side.
PIPE_BOUNDARIES = (4096, 65536, 131072, 262144)


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@settings(max_examples=12, deadline=None)
@given(
    outcome=st.sampled_from(["allow", "ask", "deny"]),
    boundary=st.sampled_from(PIPE_BOUNDARIES),
    offset=st.integers(-1, 1),
    reason=REASONS,
)
def test_a_large_json_decision_is_still_a_decision(
    new_harness: Callable[[], Any], outcome: str, boundary: int, offset: int, reason: str
) -> None:
    """HOOK-3: exit 0 with JSON on stdout is a decision whatever its size.

    A decision whose JSON is drawn at the sizes where pipe readers cut (4 KiB, 64 KiB, 128 KiB,
    256 KiB, one byte either side; a long reason) applies exactly as a short one does.
    """
    short = pre(outcome, as_command=True, reason=reason, timeout=ANSWER_TIMEOUT_S)
    size = len(json.dumps(short.output_json()).encode())
    padded = f"{reason} {'x' * (boundary + offset - size - 1)}"
    hook = dataclasses.replace(short, reason=padded)
    assert len(json.dumps(hook.output_json()).encode()) == boundary + offset
    run = run_calls(
        new_harness(),
        [plain_tool("Deploy")],
        [("Deploy", {"x": "1"})],
        hooks=[hook],
        host=host_answering("deny"),
    )
    assert_decided_like_a_command_hook(
        run, outcome, f"command hook {outcome} in {boundary + offset} bytes of JSON"
    )


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@settings(max_examples=len(ths.NON_BLOCKING_EXIT_CODES), deadline=None)
@given(exit_code=st.sampled_from(ths.NON_BLOCKING_EXIT_CODES), reason=REASONS)
def test_every_exit_code_but_0_and_2_is_non_blocking(
    new_harness: Callable[[], Any], exit_code: int, reason: str
) -> None:
    """HOOK-3: exit 2 alone blocks: a command hook exiting 1, 3 (one past 2), 126, 127 or 255 is a non-blocking error.

    The call runs with its own result; the hook's stderr does not become the model's error text.
    """
    hook = pre("exit1", as_command=True, reason=reason, exit_code=exit_code, timeout=ANSWER_TIMEOUT_S)
    run = run_deploy_allowed(new_harness(), hook, host=host_answering("deny"))
    assert_decided_like_a_command_hook(run, "exit1", f"command hook exiting {exit_code} (stderr {reason!r})")


# Every JSON answer a hook may print on stdout: decisions in both dialects, and answers without one.
STDOUT_ANSWERS = (
    "allow",
    "ask",
    "deny",
    "none",
    "legacy_approve",
    "legacy_block",
    "update_input",
    "context",
    "stop",
)


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@settings(max_examples=16, deadline=None)
@given(
    exit_code=st.sampled_from((2, *ths.NON_BLOCKING_EXIT_CODES)),
    answer=st.sampled_from(STDOUT_ANSWERS),
    ruled=st.booleans(),
    reason=REASONS,
)
@example(exit_code=2, answer="allow", ruled=True, reason="exit twox json 22")
@example(exit_code=2, answer="legacy_approve", ruled=False, reason="exit twoy json 23")
@example(exit_code=1, answer="deny", ruled=True, reason="exit onexx json 11")
@example(exit_code=1, answer="ask", ruled=True, reason="exit oneyy json 12")
def test_json_on_stdout_beside_a_non_zero_status_is_ignored(
    new_harness: Callable[[], Any], exit_code: int, answer: str, ruled: bool, reason: str
) -> None:
    """HOOK-3: the exit status alone decides: a command hook's stdout JSON is read on exit 0 only.

    A hook exiting 2 blocks with its stderr as the reason whatever JSON it also printed (an allow, an
    approve, an ask...); one exiting 1, 3, 126, 127 or 255 is a non-blocking error whatever JSON it
    printed (a deny, a block, an ask, ``continue: false``): the call runs as the rules say, with its
    own result. The JSON's reason never reaches the model.
    """
    outcome = "exit2" if exit_code == 2 else "exit1"
    hook = pre(
        outcome,
        as_command=True,
        reason=reason,
        exit_code=1 if exit_code == 2 else exit_code,
        stdout_outcome=answer,
        updated_input={"x": "from-stdout"} if answer == "update_input" else None,
        timeout=ANSWER_TIMEOUT_S,
    )
    # Without rules the host (which denies) decides what the hook does not; with an allow rule, it runs.
    rules = [RuleSpec("Deploy", "allow")] if ruled else []
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "1"})], rules=rules, hooks=[hook],
        host=host_answering("deny"),
    )  # fmt: skip
    why = f"command hook exiting {exit_code} with {answer!r} JSON on stdout ({'allow rule' if ruled else 'no rule'})"
    assert STDOUT_BESIDE_STATUS_REASON not in run.all_text(), f"{why}: its stdout was read: {run.describe()}"
    if exit_code == 2:
        assert_decided_like_a_command_hook(run, "exit2", why)
        assert reason in run.result_text(), f"{why}: stderr must be the reason shown: {run.result_text()!r}"
    elif ruled:
        assert_decided_like_a_command_hook(run, "exit1", why)
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), (
            f"{why}: the hook decides nothing, so the host must be asked (and its deny kept): {run.describe()}"
        )


def assert_decided_like_a_command_hook(run: Any, outcome: str, why: str) -> None:
    """The call's fate under one PreToolUse hook of ``outcome`` (a deny-the-host, allow-rule setup).

    An allow applies, an ask reaches the host, a deny or exit 2 blocks with an error result; any
    failure (exit 1, garbage, a crash, a timeout) is non-blocking: the call runs, its result intact.
    """
    if outcome == "allow":
        assert (run.ran(), run.asked) == (1, []), f"{why}: its allow must apply: {run.describe()}"
    elif outcome == "ask":
        assert (run.ran(), len(run.asked)) == (0, 1), f"{why}: its ask must reach the host: {run.describe()}"
    elif outcome in ("deny", "exit2"):
        assert run.ran() == 0, f"{why}: must block the call: {run.describe()}"
        assert run.is_error(), f"{why}: the blocked call's result must be an error: {run.describe()}"
    else:
        assert run.ran() == 1, f"{why}: a failing hook is non-blocking, the call must run: {run.describe()}"
        assert (run.is_error(), TOOL_OUTPUT in run.result_text()) == (False, True), (
            f"{why}: the call's own result must come back: {run.describe()}"
        )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("HOOK-4", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    outcome=st.sampled_from(["block", "legacy_block"]),
    reason=REASONS,
    matcher=st.sampled_from([None, "", "*", "Deploy"]),
    via=st.sampled_from(["rule", "hook_allow", "host"]),
)
def test_post_tool_use_block_does_not_undo_the_call(
    new_harness: Callable[[], Any], outcome: str, reason: str, matcher: str | None, via: str
) -> None:
    """HOOK-4: a PostToolUse block after the call leaves the call run exactly once and its result in place, with the block's reason added; it is not turned into a denial."""
    rules = [RuleSpec("Deploy", "allow")] if via == "rule" else []
    hooks = [HookSpec(event="PostToolUse", outcome=outcome, matcher=matcher, reason=reason)]  # type: ignore[arg-type]
    if via == "hook_allow":
        hooks.append(pre("allow"))
    run = run_calls(
        new_harness(),
        [plain_tool("Deploy")],
        [("Deploy", {"x": "1"})],
        rules=rules,
        hooks=hooks,
        host=host_answering("allow"),
    )
    why = f"PostToolUse {outcome} (allowed via {via})"
    assert run.ran() == 1, f"{why}: the call must have run exactly once: {run.describe()}"
    assert TOOL_OUTPUT in run.result_text(), f"{why}: the call's result must stay in place: {run.describe()}"
    assert reason in run.all_text(), f"{why}: the block's reason must reach the model: {run.describe()}"
    decision = run.decision()
    assert decision.get("behavior", "allow") == "allow", (
        f"{why}: the decision was changed afterwards: {decision}"
    )


@requires("execution", "permissions", "hooks", "command_hooks")
@pytest.mark.requirement("HOOK-4", "MUST")
@settings(max_examples=2, deadline=None)
@given(outcome=st.sampled_from(["block", "exit2"]), reason=REASONS)
def test_post_tool_use_command_hook_block_does_not_undo_the_call(
    new_harness: Callable[[], Any], outcome: str, reason: str
) -> None:
    """HOOK-4: a PostToolUse command hook that blocks (JSON block or exit 2) leaves the call run once and its result in place."""
    hook = HookSpec(event="PostToolUse", outcome=outcome, reason=reason, as_command=True)  # type: ignore[arg-type]
    run = run_deploy_allowed(new_harness(), hook)
    assert run.ran() == 1, f"PostToolUse {outcome}: the call must have run exactly once: {run.describe()}"
    assert TOOL_OUTPUT in run.result_text(), f"PostToolUse {outcome}: the result must stay: {run.describe()}"
    assert re.search(re.escape(reason), run.all_text()), (
        f"PostToolUse {outcome}: reason not shown: {run.describe()}"
    )


SOURCED_OUTCOMES = ("allow", "ask", "deny", "exit2", "exit1", "garbage", "hang")


def deploy(harness: Any, hooks: list[HookSpec], rules: list[RuleSpec], host: Any = None) -> Any:
    """One call of a plain ``Deploy`` tool under these hooks and rules."""
    return run_calls(
        harness, [plain_tool("Deploy")], [("Deploy", {"x": "1"})], rules=rules, hooks=hooks, host=host
    )


@st.composite
def sourced_hooks(draw: st.DrawFn) -> tuple[str, str, str | None]:
    """(where the hook comes from, its outcome, a plain hook's outcome beside it or None).

    ``http`` (a real endpoint on 127.0.0.1) or ``plugin`` (``hooks/hooks.json`` naming its program
    through ``${CLAUDE_PLUGIN_ROOT}``); every outcome of a command hook, with an http ``exit2`` answering
    a ``decision: "block"``; and sometimes a second, plain hook on the same call.
    """
    source = draw(st.sampled_from(["http", "plugin"]))
    outcome = draw(st.sampled_from(SOURCED_OUTCOMES))
    beside = draw(st.sampled_from([None, "none", "allow"]))
    return source, outcome, beside


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback", "hook_sources")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=14, deadline=None)
@given(case=sourced_hooks(), reason=REASONS)
def test_http_and_plugin_hooks_follow_the_command_hook_rules(
    new_harness: Callable[[], Any], case: tuple[str, str, str | None], reason: str
) -> None:
    """HOOK-8: http and plugin hooks decide like command hooks; one that fails, answers garbage or times out never decides.

    An allow applies, an ask reaches the host, a deny or block blocks; a 500, garbage, an exit 1 or a
    timeout leave the call to the rules (here an allow rule), also beside another hook on the call.
    """
    source, outcome, beside = case
    hook = pre(
        outcome,
        reason=reason,
        timeout=timeout_for(outcome),
        as_command=True,
        hook_type="http" if source == "http" else "command",
        from_plugin=source == "plugin",
    )
    hooks = [hook] if beside is None else [hook, pre(beside)]
    rules = [] if outcome in ("allow", "ask") else [RuleSpec("Deploy", "allow")]
    run = deploy(new_harness(), hooks, rules, host_answering("deny"))
    assert_decided_like_a_command_hook(run, outcome, f"{source} hook {outcome} beside {beside}")


@requires("execution", "permissions", "hooks", "command_hooks", "hook_sources")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=6, deadline=None)
@given(outcome=st.sampled_from(["deny", "exit2"]), beside=st.sampled_from([None, "deny", "allow"]))
def test_async_hooks_never_decide(new_harness: Callable[[], Any], outcome: str, beside: str | None) -> None:
    """HOOK-8: an async command hook runs in the background: its deny or exit 2 blocks nothing; a plain hook beside it still decides."""
    hooks = [pre(outcome, as_command=True, run_async=True, reason="async says no")]
    if beside is not None:
        hooks.append(pre(beside, reason="sync hook"))
    run = deploy(new_harness(), hooks, [RuleSpec("Deploy", "allow")])
    expected = 0 if beside == "deny" else 1
    assert run.ran() == expected, f"async {outcome} beside {beside}: {run.describe()}"


# How a hook fails (an exit status other than 0 and 2, a crash, a timeout; an http hook's 500 for the
# first two), and exit-0 answers that are not failures: output that is not JSON, nothing, a context.
HOOK_FAILURES = ("exit1", "crash", "hang")
NOT_FAILURES = ("garbage", "none", "context")
HANGING_BLOCKER = pre("hang", as_command=True, timeout=HANG_TIMEOUT_S, on_failure="block")


@st.composite
def failing_hooks(draw: st.DrawFn) -> tuple[str, HookSpec, list[HookSpec]]:
    """(the event, a hook that fails or answers on exit 0, with or without ``onFailure: "block"``, hooks beside it).

    A command, http or plugin hook on PreToolUse or PermissionRequest, its failure any of
    :data:`HOOK_FAILURES` (an exit 1 with any non-blocking status), or an exit-0 answer of
    :data:`NOT_FAILURES`; beside it, in any order, hooks that say nothing or fail without blocking.
    """
    event = draw(st.sampled_from(["PreToolUse", "PermissionRequest"]))
    outcome = draw(st.sampled_from([*HOOK_FAILURES, *NOT_FAILURES]))
    if event == "PermissionRequest" and outcome == "context":
        outcome = "none"
    source = draw(st.sampled_from(["command", "http", "plugin"]))
    hook = HookSpec(
        event=event,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        reason="the hook failed",
        timeout=timeout_for(outcome),
        as_command=True,
        hook_type="http" if source == "http" else "command",
        from_plugin=source == "plugin",
        exit_code=draw(st.sampled_from(ths.NON_BLOCKING_EXIT_CODES)) if outcome == "exit1" else 1,
        on_failure=draw(st.sampled_from(["continue", "block"])),
    )
    beside = [
        HookSpec(event=event, outcome=o, as_command=o == "exit1", timeout=ANSWER_TIMEOUT_S)  # type: ignore[arg-type]
        for o in draw(st.lists(st.sampled_from(["none", "exit1"]), max_size=2))
    ]
    return event, hook, draw(st.permutations([hook, *beside]))


@requires(
    "execution", "permissions", "hooks", "command_hooks", "host_callback", "hook_sources", "hook_on_failure"
)
@pytest.mark.requirement("HOOK-3", "MUST")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=16, deadline=None)
@given(case=failing_hooks())
@example(case=("PreToolUse", HANGING_BLOCKER, [HANGING_BLOCKER]))
def test_a_failing_hook_blocks_exactly_when_its_on_failure_says_block(
    new_harness: Callable[[], Any], case: tuple[str, HookSpec, list[HookSpec]]
) -> None:
    """HOOK-3, HOOK-8: a hook's ``onFailure: "block"`` makes its failure block the call; without it a failure decides nothing.

    A command, http or plugin hook that exits with a status other than 0 and 2, crashes (an http
    500) or times out: with ``onFailure: "block"`` the call is refused as by an exit 2 (not run, not
    put to the host, an error result), whatever the rules say (a PreToolUse hook beside an allow rule)
    or the host would (a PermissionRequest hook, the host allowing); with the default, the call goes
    on as if the hook had said nothing. An exit-0 answer (output that is not JSON, nothing, a
    context) is not a failure: ``onFailure`` changes nothing then.
    """
    event, hook, hooks = case
    pre_tool_use = event == "PreToolUse"
    run = deploy(
        new_harness(),
        hooks,
        [RuleSpec("Deploy", "allow")] if pre_tool_use else [],
        host_answering("deny" if pre_tool_use else "allow"),
    )
    source = "http" if hook.hook_type == "http" else "plugin" if hook.from_plugin else "command"
    why = f"{event} {source} hook {hook.outcome} with onFailure {hook.on_failure}, stack {[h.outcome for h in hooks]}"
    if hook.on_failure == "block" and hook.outcome in HOOK_FAILURES:
        assert (run.ran(), run.asked) == (0, []), f"{why}: its failure must block: {run.describe()}"
        assert run.is_error(), f"{why}: the blocked call's result must be an error: {run.describe()}"
    else:
        assert run.ran() == 1, f"{why}: the call must go on as if the hook said nothing: {run.describe()}"
        assert not run.is_error(), f"{why}: the call's result must be its own: {run.describe()}"


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@settings(max_examples=8, deadline=None)
@given(reason=st.sampled_from(["", "\n", "   ", "\t\n"]), ruled=st.booleans())
def test_exit_2_blocks_even_with_nothing_on_stderr(
    new_harness: Callable[[], Any], reason: str, ruled: bool
) -> None:
    """HOOK-3: a command hook exiting 2 blocks whatever its stderr holds: nothing, or blanks only.

    The exit status decides, not the reason: the call does not run, though an allow rule or a host
    that allows everything would let it (a hook read as a non-blocking error would).
    """
    hook = pre("exit2", as_command=True, reason=reason, timeout=ANSWER_TIMEOUT_S)
    rules = [RuleSpec("Deploy", "allow")] if ruled else []
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "1"})], rules=rules, hooks=[hook],
        host=host_answering("allow"),
    )  # fmt: skip
    assert run.ran() == 0, (
        f"a command hook exiting 2 with stderr {reason!r} must block ({'allow rule' if ruled else 'no rule'}): "
        f"{run.describe()}"
    )


# The settings files, lowest precedence first (Claude Code's hierarchy; managed policy last).
SETTINGS_SOURCES = ("userSettings", "projectSettings", "localSettings", "flagSettings", "policySettings")
MANAGED = "policySettings"


@st.composite
def hook_settings_files(draw: st.DrawFn) -> list[tuple[str, int, bool | None, bool | None]]:
    """Settings files from distinct sources, in any order: (source, hooks in it, disableAllHooks, allowManagedHooksOnly).

    Each file holds 0-2 PreToolUse hooks and may set ``disableAllHooks`` (true or false) and
    ``allowManagedHooksOnly`` (true: honoured from managed settings only, dropped elsewhere).
    """
    sources = draw(st.lists(st.sampled_from(SETTINGS_SOURCES), min_size=1, max_size=5, unique=True))
    flag = st.sampled_from([None, True, False])
    return [(s, draw(st.integers(0, 2)), draw(flag), draw(flag)) for s in sources]


def hooks_that_run(files: list[tuple[str, int, bool | None, bool | None]]) -> set[str]:
    """The sources whose hooks run, by the rule the reference documents (``hooks_from_settings_files``).

    Managed ``disableAllHooks: true``: no hook runs. Otherwise the highest-precedence other file that
    sets ``disableAllHooks`` decides, and when it says true only the managed hooks run (a user or
    project file can't turn managed hooks off); a managed ``allowManagedHooksOnly: true`` keeps the
    managed hooks and no other file's.
    """
    if any(s == MANAGED and off is True for s, _, off, _ in files):
        return set()
    setting = sorted(
        (SETTINGS_SOURCES.index(s), off) for s, _, off, _ in files if s != MANAGED and off is not None
    )
    managed_only = (bool(setting) and setting[-1][1] is True) or any(
        s == MANAGED and only is True for s, _, _, only in files
    )
    return {s for s, _, _, _ in files if not managed_only or s == MANAGED}


@requires("execution", "permissions", "hooks", "command_hooks", "settings_files", "settings_hooks")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(files=hook_settings_files())
@example(files=[("projectSettings", 1, True, None), ("policySettings", 1, None, None)])
@example(
    files=[
        ("policySettings", 1, None, None),
        ("userSettings", 1, True, None),
        ("localSettings", 1, False, None),
    ]
)
@example(files=[("localSettings", 1, None, True), ("policySettings", 1, None, True)])
def test_settings_hooks_run_as_disable_all_hooks_and_allow_managed_hooks_only_say(
    new_harness: Callable[[], Any], files: list[tuple[str, int, bool | None, bool | None]]
) -> None:
    """HOOK-8: hooks from several settings sources run as ``disableAllHooks`` and ``allowManagedHooksOnly`` allow.

    Every file's hooks run unless a file turns them off: managed ``disableAllHooks: true`` turns off
    every hook; elsewhere the highest-precedence file that sets ``disableAllHooks`` decides, and true
    there turns off every hook but the managed ones (a project must not silence an organisation's
    hooks); ``allowManagedHooksOnly: true`` in managed settings keeps only the managed hooks, and is
    ignored in any other file. Each hook adds a context of its own, so the model's text shows which ran.
    """
    where = fresh_dir()
    specs: list[SettingsSpec] = []
    markers: dict[str, list[str]] = {}
    for n, (source, count, off, only) in enumerate(files):
        handlers = []
        for k in range(count):
            marker = f"ctx-{source}-{k}-9e41"
            markers.setdefault(source, []).append(marker)
            hook = HookSpec(event="PreToolUse", outcome="context", context=marker, as_command=True)
            handlers.append(
                {"type": "command", "command": hook_command(hook, where, n * 10 + k), "timeout": 10}
            )
        content: dict[str, Any] = {"hooks": {"PreToolUse": [{"matcher": "Deploy", "hooks": handlers}]}}
        if off is not None:
            content["disableAllHooks"] = off
        if only is not None:
            content["allowManagedHooksOnly"] = only
        specs.append(SettingsSpec(source, content))
    run = run_calls(
        new_harness(),
        [plain_tool("Deploy")],
        [("Deploy", {"x": "1"})],
        rules=[RuleSpec("Deploy", "allow")],
        settings=specs,
    )
    expected = sorted(m for s in hooks_that_run(files) for m in markers.get(s, []))
    text = run.all_text()
    ran = sorted(m for ms in markers.values() for m in ms if m in text)
    assert run.ran() == 1, f"settings {files}: the call must run: {run.describe()}"
    assert ran == expected, f"settings {files}: hooks that ran {ran}, expected {expected}: {run.describe()}"
