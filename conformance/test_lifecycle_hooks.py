"""Hooks in the agent loop (``agent_loop``): HOOK-5, HOOK-6 and HOOK-7.

The harness runs its own loop against a scripted model; the suite reads the requests the model got,
what the harness showed its user, and the inputs its hooks received (the scenario's ``hook_log``).
``continue: false`` stops the loop after the turn's results, and what a hook says to the user never
reaches the model (HOOK-5); inputs carry Claude Code's common fields (HOOK-6); each lifecycle moment
fires its event with its documented effect (HOOK-7).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import fresh_dir
from pytest_toolharness.adapters._capabilities import requires
from pytest_toolharness.adapters._specs import (
    CallRecorder,
    HookSpec,
    LoopRun,
    LoopScenario,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
)

SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
WORDS = st.from_regex(r"[A-Z]{3,8}", fullmatch=True)
COMMON_FIELDS = ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")


def echo_tool(name: str = "Echo") -> ToolSpec:
    return ToolSpec(
        name=name,
        description="Echoes x.",
        input_schema=SCHEMA,
        behavior=ToolBehavior(kind="text", text="echoed"),
    )


def tool_use(n: int, name: str = "Echo") -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_loop_{n}", "name": name, "input": {"x": str(n)}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def hook(event: str, outcome: str, **fields: Any) -> HookSpec:
    return HookSpec(event=event, outcome=outcome, **fields)  # type: ignore[arg-type]


@dataclass
class Loop:
    """A finished loop scenario: what the harness did, and the hook inputs it logged."""

    run: LoopRun
    scenario: LoopScenario

    @property
    def hook_inputs(self) -> list[dict[str, Any]]:
        log = self.scenario.hook_log
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def inputs_of(self, event: str) -> list[dict[str, Any]]:
        return [i for i in self.hook_inputs if i.get("hook_event_name") == event]

    def model_saw(self) -> str:
        """Every request the model got, as one JSON text."""
        return json.dumps(self.run.requests)

    def describe(self) -> str:
        endings = [(p.stop_reason, p.user_messages) for p in self.run.prompts]
        events = [i.get("hook_event_name") for i in self.hook_inputs]
        return f"{len(self.run.requests)} request(s), endings {endings}, hook events {events}"


def run_loop(
    harness: Any,
    prompts: Sequence[str],
    turns: Sequence[Sequence[Mapping[str, Any]]],
    hooks: Sequence[HookSpec] = (),
    *,
    tools: Sequence[ToolSpec] = (),
    compact_after: int | None = None,
    mode: str = "default",
) -> Loop:
    root = fresh_dir()
    (root / "work").mkdir()
    (root / "session").mkdir()
    scenario = LoopScenario(
        prompts=list(prompts),
        turns=[list(t) for t in turns],
        tools=list(tools) or [echo_tool()],
        recorder=CallRecorder(),
        cwd=root / "work",
        session_dir=root / "session",
        hook_log=root / "hooks.jsonl",
        rules=[RuleSpec("Echo", "allow")],
        mode=mode,
        hooks=list(hooks),
        compact_after=compact_after,
    )
    return Loop(asyncio.run(harness.run_loop(scenario)), scenario)


def user_content(request: Mapping[str, Any], index: int) -> list[dict[str, Any]]:
    message = request["messages"][index]
    assert message["role"] == "user"
    content = message["content"]
    return [text(content)] if isinstance(content, str) else list(content)


# -- HOOK-5 ---------------------------------------------------------------------------------------


@st.composite
def stopping_turns(draw: st.DrawFn) -> tuple[int, list[HookSpec], list[str], str]:
    """(tool_uses in the turn, hooks, the systemMessages, the first stopReason).

    One or two ``continue: false`` hooks on PreToolUse or PostToolUse (the first in declaration
    order is the reason shown), zero to two ``systemMessage`` hooks, and a context hook of another
    kind on the same call.
    """
    calls = draw(st.integers(1, 3))
    event = draw(st.sampled_from(["PreToolUse", "PostToolUse"]))
    reasons = draw(st.lists(WORDS, min_size=1, max_size=2, unique=True))
    messages = draw(st.lists(WORDS.map(lambda w: f"SYS{w}"), max_size=2, unique=True))
    hooks = [hook(event, "stop", matcher="Echo", reason=f"STOP{r}") for r in reasons]
    hooks += [hook("PostToolUse", "system_message", matcher="Echo", context=m) for m in messages]
    if draw(st.booleans()):
        hooks.append(hook("PostToolUse", "context", matcher="Echo", context="CTXFROMPOST"))
    order = draw(st.permutations(range(len(hooks))))
    # The stop hooks keep their relative order: the first declared one's reason is shown.
    stops = iter(h for h in hooks if h.outcome == "stop")
    others = iter(h for h in hooks if h.outcome != "stop")
    arranged = [next(stops) if hooks[i].outcome == "stop" else next(others) for i in order]
    return calls, arranged, messages, f"STOP{reasons[0]}"


@requires("agent_loop")
@pytest.mark.requirement("HOOK-5", "MUST")
@settings(max_examples=12, deadline=None)
@given(case=stopping_turns())
def test_continue_false_stops_after_the_turn_and_only_the_user_sees_why(
    new_harness: Callable[[], Any], case: tuple[int, list[HookSpec], list[str], str]
) -> None:
    """HOOK-5: ``continue: false`` from a tool hook stops the loop after the turn; only the user sees why.

    A tool hook's ``continue: false`` ends the loop after the turn's results: no request
    follows for that prompt; the next prompt's request answers every tool_use of the stopped turn
    right after it; ``stopReason`` and every hook's ``systemMessage`` reach the user, never the model.
    """
    calls, hooks, messages, reason = case
    turn = [text("calling"), *(tool_use(n) for n in range(1, calls + 1))]
    loop = run_loop(new_harness(), ["first", "second"], [turn, [text("second answer")]], hooks)
    first, second = loop.run.prompts
    assert first.stop_reason == "hook_stopped", loop.describe()
    assert reason in first.user_messages, f"the stopReason {reason!r} was not shown: {loop.describe()}"
    for message in messages:
        assert message in first.user_messages, f"systemMessage {message!r} not shown: {loop.describe()}"
    assert len(loop.run.requests) == 2, f"a request followed continue: false: {loop.describe()}"
    resumed = loop.run.requests[1]["messages"]
    at = next(i for i, m in enumerate(resumed) if m["role"] == "assistant")
    answered = [
        b["tool_use_id"] for b in user_content(loop.run.requests[1], at + 1) if b["type"] == "tool_result"
    ]
    assert answered == [f"toolu_loop_{n}" for n in range(1, calls + 1)], loop.describe()
    seen = loop.model_saw()
    for secret in (reason, *messages):
        assert secret not in seen, f"{secret!r} is for the user but reached the model"
    assert second.stop_reason == "end_turn"


@requires("agent_loop")
@pytest.mark.requirement("HOOK-5", "MUST")
@pytest.mark.parametrize("event", ["UserPromptSubmit", "Stop"])
def test_continue_false_from_a_lifecycle_hook_stops_too(new_harness: Callable[[], Any], event: str) -> None:
    """HOOK-5: ``continue: false`` from UserPromptSubmit or Stop stops the loop too.

    ``continue: false`` from UserPromptSubmit keeps the prompt from the model; from Stop it
    ends the loop even where another Stop hook blocks; the stopReason is shown, never sent.
    """
    hooks = [hook(event, "stop", reason="STOPLIFE")]
    if event == "Stop":
        hooks.append(hook("Stop", "block_once", reason="KEEPGOING"))
    loop = run_loop(new_harness(), ["hello"], [[text("answer")], [text("more")]], hooks)
    (only,) = loop.run.prompts
    assert only.stop_reason == "hook_stopped", loop.describe()
    assert "STOPLIFE" in only.user_messages
    assert len(loop.run.requests) == (0 if event == "UserPromptSubmit" else 1), loop.describe()
    assert "STOPLIFE" not in loop.model_saw()


# -- HOOK-6 ---------------------------------------------------------------------------------------


@requires("agent_loop")
@pytest.mark.requirement("HOOK-6", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(
    mode=st.sampled_from(["default", "acceptEdits", "dontAsk", "bypassPermissions"]), calls=st.integers(1, 2)
)
def test_hook_inputs_carry_the_common_fields(new_harness: Callable[[], Any], mode: str, calls: int) -> None:
    """HOOK-6: the prompt and tool events' inputs carry the common fields and the call's own.

    Every input of the prompt and tool events has ``session_id``, ``transcript_path``,
    ``cwd`` (the session's), ``permission_mode`` (the session's mode), ``hook_event_name``; one session
    id throughout; PreToolUse gets the validated input and the tool_use id, PostToolUse the response.
    """
    events = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]
    hooks = [hook(e, "none", matcher="Echo" if "Tool" in e else None) for e in events]
    turns = [[*(tool_use(n) for n in range(1, calls + 1))], [text("done")]]
    loop = run_loop(new_harness(), ["hello"], turns, hooks, mode=mode)
    inputs = loop.hook_inputs
    assert [
        i.get("hook_event_name") for i in inputs if i.get("hook_event_name") in ("UserPromptSubmit", "Stop")
    ] == [
        "UserPromptSubmit",
        "Stop",
    ], loop.describe()
    for payload in inputs:
        event = payload.get("hook_event_name")
        if event not in events:
            continue
        for key in COMMON_FIELDS:
            assert isinstance(payload.get(key), str), f"{event} input lacks {key}: {payload}"
        assert payload["cwd"] == str(loop.scenario.cwd)
        assert payload["permission_mode"] == mode
    assert len({p["session_id"] for p in inputs}) == 1
    pre = loop.inputs_of("PreToolUse")
    assert [(p["tool_name"], p["tool_input"], p["tool_use_id"]) for p in pre] == [
        ("Echo", {"x": str(n)}, f"toolu_loop_{n}") for n in range(1, calls + 1)
    ]
    post = loop.inputs_of("PostToolUse")
    assert len(post) == calls
    assert all("tool_response" in p for p in post)
    assert loop.inputs_of("UserPromptSubmit")[0]["prompt"] == "hello"


# -- HOOK-7 ---------------------------------------------------------------------------------------


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(contexts=st.lists(WORDS, max_size=2, unique=True), block_first=st.booleans(), exit2=st.booleans())
def test_user_prompt_submit_blocks_the_prompt_whatever_the_other_hooks_say(
    new_harness: Callable[[], Any], contexts: list[str], block_first: bool, exit2: bool
) -> None:
    """HOOK-7: a UserPromptSubmit block keeps the prompt from the model, whatever other hooks say.

    A UserPromptSubmit block (``decision: "block"`` or exit 2) keeps the prompt from the
    model, even beside hooks that add context; its reason is shown to the user.
    """
    blocker = hook("UserPromptSubmit", "exit2" if exit2 else "block", reason="NOPROMPT")
    others = [hook("UserPromptSubmit", "context", context=f"CTX{c}") for c in contexts]
    hooks = [blocker, *others] if block_first else [*others, blocker]
    loop = run_loop(new_harness(), ["the secret prompt"], [[text("never")]], hooks)
    (only,) = loop.run.prompts
    assert only.stop_reason == "prompt_blocked", loop.describe()
    assert loop.run.requests == [], f"a blocked prompt reached the model: {loop.describe()}"
    assert any("NOPROMPT" in m for m in only.user_messages), loop.describe()


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(prompt_contexts=st.lists(WORDS, min_size=1, max_size=2, unique=True), start=st.booleans())
def test_prompt_and_session_start_context_reach_the_model(
    new_harness: Callable[[], Any], prompt_contexts: list[str], start: bool
) -> None:
    """HOOK-7: UserPromptSubmit and SessionStart context reaches the model with the prompt.

    Every UserPromptSubmit hook's and the SessionStart hook's additionalContext goes to the
    model with the prompt, in declaration order.
    """
    hooks = [hook("UserPromptSubmit", "context", context=f"UPS{c}") for c in prompt_contexts]
    if start:
        hooks.append(hook("SessionStart", "context", context="SESSIONCTX"))
    loop = run_loop(new_harness(), ["hello"], [[text("ok")]], hooks)
    (request,) = loop.run.requests
    sent = json.dumps(request["messages"])
    positions = [sent.find(f"UPS{c}") for c in prompt_contexts]
    assert all(p >= 0 for p in positions), f"a prompt context is missing: {sent[:2000]}"
    assert positions == sorted(positions)
    assert ("SESSIONCTX" in sent) == start
    assert "hello" in sent


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=6, deadline=None)
@given(second=st.sampled_from(["none", "block_once", "context"]), as_command=st.booleans())
def test_stop_hook_refuses_once_and_stop_hook_active_ends_it(
    new_harness: Callable[[], Any], second: str, as_command: bool
) -> None:
    """HOOK-7: a Stop hook refuses the stop once; ``stop_hook_active`` ends it.

    A Stop hook's block sends its reason to the model and the loop goes on; the next Stop
    input says ``stop_hook_active: true`` and a guarded hook lets it stop. A second Stop hook on the
    same stop never cancels the block. The guarded hook is sometimes a real command hook.
    """
    guarded = hook("Stop", "block_once", reason="RUNTESTS", as_command=as_command, timeout=10.0)
    hooks = [guarded, hook("Stop", second, reason="ALSO", context="C")]
    loop = run_loop(new_harness(), ["fix it"], [[text("done early")], [text("tests pass")]], hooks)
    (only,) = loop.run.prompts
    assert only.stop_reason == "end_turn", loop.describe()
    assert len(loop.run.requests) == 2, (
        f"the Stop block did not continue the loop exactly once: {loop.describe()}"
    )
    assert "RUNTESTS" in json.dumps(loop.run.requests[1]["messages"][-1])
    active = [p.get("stop_hook_active") for p in loop.inputs_of("Stop")]
    assert active[0] is False, active
    assert active[-1] is True, active
    assert "RUNTESTS" not in json.dumps(loop.run.requests[0])


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
def test_pre_compact_session_start_and_session_end_fire_at_their_moments(
    new_harness: Callable[[], Any],
) -> None:
    """HOOK-7: SessionStart, PreCompact, SessionStart (compact) and SessionEnd fire at their moments.

    SessionStart before the first prompt, PreCompact (trigger manual) before a compaction,
    SessionStart (source compact) after it, SessionEnd when the session ends, last.
    """
    hooks = [hook(e, "none") for e in ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")]
    loop = run_loop(new_harness(), ["first", "second"], [[text("a")], [text("b")]], hooks, compact_after=0)
    events = [i.get("hook_event_name") for i in loop.hook_inputs]
    assert events == [
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "SessionStart",
        "UserPromptSubmit",
        "SessionEnd",
    ], events
    (compacting,) = loop.inputs_of("PreCompact")
    assert compacting.get("trigger") == "manual"
    assert [s.get("source") for s in loop.inputs_of("SessionStart")] == ["startup", "compact"]
    assert isinstance(loop.inputs_of("SessionEnd")[0].get("reason"), str)
