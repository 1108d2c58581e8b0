"""``continue: false`` in the agent loop (``agent_loop``): HOOK-5.

A hook's ``continue: false`` stops the loop after the turn's results, every tool_use answered, and what
a hook says to the user (``stopReason``, ``systemMessage``) never reaches the model: from tool hooks
(PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest) and lifecycle hooks (UserPromptSubmit, Stop), each among other hooks.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._loop_runs import echo_tool, hook, run_loop, text, tool_use, user_content
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec, StopReasonGiven, ToolBehavior

# ``{"continue": false}`` stops with or without a reason: one, an empty one, or none.
STOP_REASONS: tuple[StopReasonGiven, ...] = ("text", "text", "empty", "absent")
# "allow" (PreToolUse) and "block" (PostToolUse) let the call run, so a stop may go beside a decision.
SIGNAL_OUTCOMES = ("stop", "system_message", "context", "none", "allow", "block", *ths.BROKEN_OUTCOMES)


def with_a_stop(draw: st.DrawFn, stack: list[HookSpec]) -> list[HookSpec]:
    """``stack`` with at least one ``continue: false`` hook: one hook, drawn, made to stop when none does."""
    if any(h.says("stop") for h in stack):
        return stack
    at = draw(st.integers(0, len(stack) - 1))
    return [dataclasses.replace(h, outcome="stop") if i == at else h for i, h in enumerate(stack)]


def with_an_allow(draw: st.DrawFn, event: str, stack: list[HookSpec]) -> list[HookSpec]:
    """A PermissionRequest ``stack`` with at least one allow (the loop is headless: else nothing runs)."""
    if event != "PermissionRequest":
        return stack
    # The model's own input runs: a rewrite drawn for any schema could be one the tool refuses.
    stack = [dataclasses.replace(h, updated_input=None) for h in stack]
    if any(h.outcome == "allow" for h in stack):
        return stack
    at = draw(st.integers(0, len(stack)))
    allow = hook(event, "allow", matcher="Echo", reason="RALLOWS", as_command=draw(st.booleans()))
    return [*stack[:at], allow, *stack[at:]]


@st.composite
def stopping_turns(draw: st.DrawFn) -> tuple[int, str, list[HookSpec]]:
    """(tool_uses in the turn, the event, a stack of 2-3 hooks on it with at least one ``continue: false``).

    The stack mixes ``continue: false``, ``systemMessage``, context, allow (PreToolUse,
    PermissionRequest), block (PostToolUse), silent and broken hooks, command hooks (real
    subprocesses) and in-process ones, on every tool event: PreToolUse, PostToolUse,
    PostToolUseFailure (the tool fails) and PermissionRequest (no rule allows the tool, so the call is
    asked about, and a hook of the stack allows it); a JSON answer may carry several fields at once.
    """
    calls = draw(st.integers(1, 3))
    event = draw(st.sampled_from(ths.HOOK_EVENTS))
    stack = draw(
        ths.hook_stacks(
            event=event, outcomes=SIGNAL_OUTCOMES, tool_name="Echo", also=ths.ALSO_BY_EVENT[event]
        )
    )
    given = draw(st.sampled_from(STOP_REASONS))
    stops = [
        dataclasses.replace(h, stop_reason_given=given) if h.says("stop") else h
        for h in with_an_allow(draw, event, with_a_stop(draw, stack))
    ]
    return calls, event, stops


FAILURE = "echo failed 5c1d"


def _stop(event: str, i: int, **fields: Any) -> HookSpec:
    return hook(event, "stop", matcher="Echo", reason=f"R{i}STOPS", context=f"C{i}STOPS", **fields)


def _sys(event: str, i: int, **fields: Any) -> HookSpec:
    return hook(event, "system_message", matcher="Echo", reason=f"R{i}SYSMS", context=f"C{i}SYSMS", **fields)


@pytest.mark.toolharness_heavy
@requires("agent_loop")
@pytest.mark.requirement("HOOK-5", "MUST")
@settings(max_examples=12, deadline=None)
@given(case=stopping_turns())
@example(case=(2, "PreToolUse", [_stop("PreToolUse", 0, as_command=True), _sys("PreToolUse", 1)]))
@example(case=(1, "PostToolUse", [_stop("PostToolUse", 0, stop_reason_given="absent", as_command=True)]))
@example(case=(2, "PreToolUse", [_sys("PreToolUse", 0), _stop("PreToolUse", 1, stop_reason_given="empty")]))
@example(case=(2, "PostToolUse", [_sys("PostToolUse", 0), _stop("PostToolUse", 1), _stop("PostToolUse", 2)]))
@example(case=(1, "PreToolUse", [_sys("PreToolUse", 0), _stop("PreToolUse", 1), _sys("PreToolUse", 2)]))
@example(
    case=(
        2,
        "PostToolUseFailure",
        [_sys("PostToolUseFailure", 0), _stop("PostToolUseFailure", 1, as_command=True)],
    )
)
@example(
    case=(
        1,
        "PermissionRequest",
        [hook("PermissionRequest", "allow", matcher="Echo"), _stop("PermissionRequest", 1)],
    )
)
@example(
    case=(
        2,
        "PreToolUse",
        [
            hook(
                "PreToolUse", "allow", matcher="Echo", reason="R0ALLOW", also=("stop",), stop_reason="S0ALLOW"
            )
        ],
    )
)
@example(
    case=(
        1,
        "PostToolUse",
        [
            hook(
                "PostToolUse", "context", matcher="Echo", reason="R0CTX", context="C0CTX",
                also=("system_message", "stop"), stop_reason="S0CTX", system_message="M0CTX",
            )
        ],
    )
)  # fmt: skip
def test_continue_false_stops_after_the_turn_and_only_the_user_sees_why(
    new_harness: Callable[[], Any], case: tuple[int, str, list[HookSpec]]
) -> None:
    """HOOK-5: ``continue: false`` from a tool hook stops the loop after the turn; only the user sees why.

    A PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest hook's ``continue: false``,
    among other hooks on the same calls, ends the loop after the turn's results: no request follows
    for that prompt; every call of the turn still ran (a PreToolUse ``continue: false`` is not a
    deny: Claude Code runs the call and stops after the turn), and the next prompt's request answers
    every tool_use of the stopped turn right after it, with the tool's own output (its failure, after
    a failing call). The first ``continue: false`` hook's ``stopReason`` and every hook's
    ``systemMessage`` reach the user, never the model.
    """
    calls, event, hooks = case
    fails = event == "PostToolUseFailure"
    stopping = next(h for h in hooks if h.says("stop"))
    reason = stopping.stop_text if stopping.stop_reason_given == "text" else None
    messages = [h.system_message_text for h in hooks if h.says("system_message")]
    turn = [text("calling"), *(tool_use(n) for n in range(1, calls + 1))]
    tool = echo_tool()
    if fails:
        tool = dataclasses.replace(tool, behavior=ToolBehavior("raise", message=FAILURE))
    loop = run_loop(
        new_harness(),
        ["first", "second"],
        [turn, [text("second answer")]],
        hooks,
        tools=[tool],
        # A PermissionRequest hook is asked only about a call no rule allows.
        rules=[] if event == "PermissionRequest" else None,
    )
    first, second = loop.run.prompts
    where = f"{event} hooks {[(h.outcome, *h.also) for h in hooks]}: {loop.describe()}"
    assert first.stop_reason == "hook_stopped", where
    if reason is not None:
        assert reason in first.user_messages, f"the stopReason {reason!r} was not shown: {where}"
    for message in messages:
        assert message in first.user_messages, f"systemMessage {message!r} not shown: {where}"
    assert len(loop.run.requests) == 2, f"a request followed continue: false: {where}"
    ran = sorted(e.tool_use_id for e in loop.scenario.recorder.events if e.kind == "end")
    expected = [f"toolu_loop_{n}" for n in range(1, calls + 1)]
    assert ran == expected, f"continue: false must not keep the turn's calls from running: ran {ran}, {where}"
    resumed = loop.run.requests[1]["messages"]
    at = next(i for i, m in enumerate(resumed) if m["role"] == "assistant")
    results = [b for b in user_content(loop.run.requests[1], at + 1) if b["type"] == "tool_result"]
    assert [b["tool_use_id"] for b in results] == expected, where
    for block in results:
        assert bool(block.get("is_error")) == fails, f"a call of the stopped turn: {block}; {where}"
        output = FAILURE if fails else "echoed"
        assert output in json.dumps(block.get("content")), f"not the tool's own output: {block}; {where}"
    seen = loop.model_saw()
    for secret in ([reason] if reason is not None else []) + messages:
        assert secret not in seen, f"{secret!r} is for the user but reached the model: {where}"
    assert second.stop_reason == "end_turn"


@requires("agent_loop")
@pytest.mark.requirement("HOOK-5", "MUST")
def test_post_tool_use_continue_false_from_a_command_hook_stops_the_loop_with_every_tool_use_answered(
    new_harness: Callable[[], Any],
) -> None:
    """HOOK-5 (issue 15's done-when): a PostToolUse command hook's ``continue: false`` stops the loop.

    A real command hook (a subprocess answering ``{"continue": false, "stopReason": ...}`` on stdout)
    on the second of three tool_uses in one turn, in a loop against the scripted Messages API server:
    the loop stops after that turn (no further request for the prompt, ``hook_stopped``), all three
    calls ran, and each of the three tool_uses is answered by its tool_result, in order, in the
    transcript the next prompt sends; the stopReason is shown to the user only.
    """
    tools = [echo_tool("Echo"), echo_tool("Halt")]
    stopper = hook("PostToolUse", "stop", matcher="Halt", reason="HALTREASON", as_command=True, timeout=10.0)
    turn = [text("three calls"), tool_use(1), tool_use(2, "Halt"), tool_use(3)]
    loop = run_loop(
        new_harness(), ["go", "again"], [turn, [text("never")], [text("after")]], [stopper], tools=tools
    )
    first, second = loop.run.prompts
    assert first.stop_reason == "hook_stopped", loop.describe()
    assert "HALTREASON" in first.user_messages, loop.describe()
    assert [i.get("tool_name") for i in loop.inputs_of("PostToolUse")] == ["Halt"], (
        f"the command hook's own log does not show it ran once, for Halt: {loop.describe()}"
    )
    assert len(loop.run.requests) == 2, f"the loop went on after continue: false: {loop.describe()}"
    resumed = loop.run.requests[1]["messages"]
    at = next(i for i, m in enumerate(resumed) if m["role"] == "assistant")
    assert [b["id"] for b in resumed[at]["content"] if b["type"] == "tool_use"] == [
        "toolu_loop_1",
        "toolu_loop_2",
        "toolu_loop_3",
    ]
    answered = [b for b in user_content(loop.run.requests[1], at + 1) if b["type"] == "tool_result"]
    assert [b["tool_use_id"] for b in answered] == ["toolu_loop_1", "toolu_loop_2", "toolu_loop_3"]
    assert all(not b.get("is_error") for b in answered), answered
    assert "HALTREASON" not in loop.model_saw()
    assert second.stop_reason == "end_turn"


@st.composite
def lifecycle_stops(draw: st.DrawFn) -> tuple[str, list[HookSpec]]:
    """(UserPromptSubmit or Stop, a stack of 2-3 of its hooks with at least one ``continue: false``)."""
    event = draw(st.sampled_from(["UserPromptSubmit", "Stop"]))
    given = draw(st.sampled_from(STOP_REASONS))
    stack = with_a_stop(draw, draw(ths.hook_stacks(event=event)))
    return event, [dataclasses.replace(h, stop_reason_given=given) if h.says("stop") else h for h in stack]


@requires("agent_loop")
@pytest.mark.requirement("HOOK-5", "MUST")
@settings(max_examples=10, deadline=None)
@given(case=lifecycle_stops())
@example(
    case=(
        "UserPromptSubmit",
        [hook("UserPromptSubmit", "block", reason="R0BLOCK"), _stop("UserPromptSubmit", 1)],
    )
)
@example(case=("Stop", [hook("Stop", "block_once", reason="R0KEEPON"), _stop("Stop", 1, as_command=True)]))
@example(
    case=("UserPromptSubmit", [_stop("UserPromptSubmit", 0, stop_reason_given="absent", as_command=True)])
)
def test_continue_false_from_a_lifecycle_hook_stops_too(
    new_harness: Callable[[], Any], case: tuple[str, list[HookSpec]]
) -> None:
    """HOOK-5: ``continue: false`` from UserPromptSubmit or Stop stops the loop, whatever the other hooks say.

    From UserPromptSubmit it keeps the prompt from the model, even beside a hook that blocks the
    prompt or adds context (``continue: false`` takes precedence: the prompt ends ``hook_stopped``);
    from Stop it ends the loop even where another Stop hook blocks. The first ``continue: false``
    hook's stopReason is shown, never sent; each hook of the stack ran (its log shows the event).
    """
    event, hooks = case
    stopping = next(h for h in hooks if h.outcome == "stop")
    reason = stopping.reason if stopping.stop_reason_given == "text" else None
    loop = run_loop(new_harness(), ["hello"], [[text("answer")], [text("more")]], hooks)
    (only,) = loop.run.prompts
    where = f"{event} hooks {[h.outcome for h in hooks]} (stopReason {stopping.stop_reason_given}): {loop.describe()}"
    assert only.stop_reason == "hook_stopped", where
    assert reason is None or reason in only.user_messages, where
    assert len(loop.run.requests) == (0 if event == "UserPromptSubmit" else 1), where
    assert len(loop.inputs_of(event)) == len(hooks), f"not every {event} hook ran once: {where}"
    assert reason is None or reason not in loop.model_saw()
