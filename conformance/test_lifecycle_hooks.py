"""Hooks in the agent loop (``agent_loop``): HOOK-6 and HOOK-7 (HOOK-5 is ``test_continue_false.py``).

The harness runs its own loop against a scripted model; the suite reads the requests the model got,
what the harness showed its user, and the inputs its hooks received (the scenario's ``hook_log``).
Inputs carry Claude Code's common fields (HOOK-6); each lifecycle moment fires its event with its
documented effect, alone and with two or three hooks on one event (HOOK-7).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._loop_runs import WORDS, Loop, echo_tool, hook, run_loop, text, tool_use
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ALL_HOOK_EVENTS, HookSpec, ToolBehavior

COMMON_FIELDS = ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")

# Each event's own input fields and their JSON types (Claude Code's hook inputs).
EVENT_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "PreToolUse": {"tool_name": str, "tool_input": dict, "tool_use_id": str},
    "PostToolUse": {
        "tool_name": str,
        "tool_input": dict,
        "tool_use_id": str,
        "tool_response": (str, dict, list),
    },
    "PostToolUseFailure": {
        "tool_name": str,
        "tool_input": dict,
        "tool_use_id": str,
        "error": str,
        "is_interrupt": bool,
    },
    "UserPromptSubmit": {"prompt": str},
    "Stop": {"stop_hook_active": bool},
    "SessionStart": {"source": str},
    "PreCompact": {"trigger": str},
    "SessionEnd": {"reason": str},
}
# The moments a loop scenario can't script: a permission prompt (every tool is allowed), a denial by
# the auto-mode classifier, a subagent, a notification.
UNSCRIPTED_EVENTS = ("PermissionRequest", "PermissionDenied", "SubagentStop", "Notification")
LOOP_EVENTS = tuple(e for e in ALL_HOOK_EVENTS if e not in UNSCRIPTED_EVENTS)
# Claude Code 2.1 sends no permission_mode with these.
WITHOUT_MODE = ("SessionStart", "SessionEnd")


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
    id throughout; PreToolUse gets the validated input and the tool_use id, PostToolUse the response,
    which carries the tool's output.
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
    # In the tool's own shape, whatever that is: it carries what the tool returned ("echoed").
    shapes = [json.dumps(p["tool_response"]) for p in post]
    assert all("echoed" in shape for shape in shapes), (
        f"PostToolUse's tool_response lost the output: {shapes}"
    )
    assert loop.inputs_of("UserPromptSubmit")[0]["prompt"] == "hello"


@requires("agent_loop")
@pytest.mark.requirement("HOOK-6", "SHOULD")
@settings(max_examples=6, deadline=None)
@given(
    calls=st.lists(st.sampled_from(["Echo", "Fail"]), min_size=1, max_size=3),
    mode=st.sampled_from(["default", "acceptEdits", "dontAsk", "bypassPermissions"]),
    compact=st.booleans(),
)
def test_every_event_input_carries_its_fields(
    new_harness: Callable[[], Any], calls: list[str], mode: str, compact: bool
) -> None:
    """HOOK-6: every event the loop fires gets the common fields and its own, for every call.

    A hook on every event the loop fires (tool events and lifecycle moments, from the one list of hook
    events), a turn of calls that succeed and fail, a compaction or not: every input carries
    ``session_id`` (one throughout), ``transcript_path``, ``cwd``, ``hook_event_name`` and, except for
    SessionStart and SessionEnd, ``permission_mode`` (the session's); and its event's own fields with
    their types: each tool event names the call (``tool_name``, the validated ``tool_input``,
    ``tool_use_id``), PostToolUse the ``tool_response``, PostToolUseFailure the ``error`` and
    ``is_interrupt``, and one input per call.
    """
    hooked = LOOP_EVENTS
    tools = [
        echo_tool("Echo"),
        dataclasses.replace(echo_tool("Fail"), behavior=ToolBehavior("raise", message="it broke")),
    ]
    hooks = [
        hook(e, "none", matcher="Echo|Fail" if e in EVENT_FIELDS and "Tool" in e else None) for e in hooked
    ]
    turn = [tool_use(n, name) for n, name in enumerate(calls, start=1)]
    loop = run_loop(
        new_harness(), ["first", "second"], [turn, [text("done")], [text("again")]], hooks, tools=tools,
        compact_after=0 if compact else None, mode=mode,
    )  # fmt: skip
    where = f"hooks on {hooked}, calls {calls}, mode {mode}, compact {compact}: {loop.describe()}"
    inputs = loop.hook_inputs
    assert len({i.get("session_id") for i in inputs}) == 1, f"more than one session id: {where}"
    for payload in inputs:
        event = payload.get("hook_event_name")
        assert event in hooked, f"an input for {event}, which has no hook: {where}"
        for key in COMMON_FIELDS:
            if key == "permission_mode" and event in WITHOUT_MODE:
                continue
            assert isinstance(payload.get(key), str), f"{event} input lacks {key}: {payload}"
        assert payload["cwd"] == str(loop.scenario.cwd), f"{event} input's cwd: {payload}"
        if event not in WITHOUT_MODE:
            assert payload["permission_mode"] == mode, f"{event} input's permission_mode: {payload}"
        for key, kind in EVENT_FIELDS.get(str(event), {}).items():
            assert isinstance(payload.get(key), kind), f"{event} input lacks {key} ({kind}): {payload}"
    expected = {
        "PreToolUse": list(enumerate(calls, start=1)),
        "PostToolUse": [(n, c) for n, c in enumerate(calls, start=1) if c == "Echo"],
        "PostToolUseFailure": [(n, c) for n, c in enumerate(calls, start=1) if c == "Fail"],
    }
    for event, wanted in expected.items():
        if event in hooked:
            got = [(p["tool_use_id"], p["tool_name"], p["tool_input"]) for p in loop.inputs_of(event)]
            assert got == [(f"toolu_loop_{n}", c, {"x": str(n)}) for n, c in wanted], (
                f"{event} inputs {got}: {where}"
            )


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


def _outcomes(hooks: Sequence[HookSpec], *kinds: str) -> list[HookSpec]:
    return [h for h in hooks if h.outcome in kinds]


def _user_only(loop: Loop, shown: Sequence[str], texts: Sequence[str], where: str) -> None:
    """Each of ``texts`` was shown to the user (in ``shown``) and never reached the model."""
    seen = loop.model_saw()
    for message in texts:
        assert any(message in m for m in shown), f"systemMessage {message!r} not shown to the user: {where}"
        assert message not in seen, f"systemMessage {message!r} reached the model: {where}"


PROMPT_STACK_OUTCOMES = (
    "none", "context", "plain_text", "block", "exit2", "system_message", *ths.BROKEN_OUTCOMES
)  # fmt: skip


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=10, deadline=None)
@given(hooks=ths.hook_stacks(event="UserPromptSubmit", outcomes=PROMPT_STACK_OUTCOMES))
@example(
    hooks=[
        hook("UserPromptSubmit", "context", context="C0FIRST"),
        hook("UserPromptSubmit", "context", context="C1SECOND"),
    ]
)
@example(
    hooks=[
        hook("UserPromptSubmit", "context", context="C0CTX"),
        hook("UserPromptSubmit", "block", reason="R1NO"),
    ]
)
@example(
    hooks=[hook("UserPromptSubmit", "garbage"), hook("UserPromptSubmit", "system_message", context="C1SAY")]
)
def test_user_prompt_submit_hooks_combine(new_harness: Callable[[], Any], hooks: list[HookSpec]) -> None:
    """HOOK-7: two or three UserPromptSubmit hooks at once: any block wins, else every context goes along.

    Every hook of the stack runs once on the prompt (its log shows the event and the prompt). A block
    (``decision: "block"`` or exit 2) from any of them keeps the prompt from the model and its reason
    is shown to the user; otherwise the prompt goes to the model with every hook's additionalContext,
    in declaration order, and every plain stdout (exit 0, not JSON: Claude Code adds it as context). A broken hook (exit 1, non-JSON, a crash) changes nothing and its stderr never
    reaches the model; ``systemMessage`` goes to the user only.
    """
    loop = run_loop(new_harness(), ["the prompt"], [[text("answer")]], hooks)
    (only,) = loop.run.prompts
    where = f"UserPromptSubmit hooks {[h.outcome for h in hooks]}: {loop.describe()}"
    fired = loop.inputs_of("UserPromptSubmit")
    assert len(fired) == len(hooks), f"not every UserPromptSubmit hook ran once: {where}"
    assert all(i.get("prompt") == "the prompt" for i in fired), fired
    blockers = _outcomes(hooks, "block", "exit2")
    if blockers:
        assert only.stop_reason == "prompt_blocked", where
        assert loop.run.requests == [], f"a blocked prompt reached the model: {where}"
        for blocker in blockers:
            assert any(blocker.reason in m for m in only.user_messages), (
                f"{blocker.reason!r} not shown: {where}"
            )
    else:
        assert only.stop_reason == "end_turn", where
        (request,) = loop.run.requests
        sent = json.dumps(request["messages"])
        assert "the prompt" in sent, where
        positions = [sent.find(h.context) for h in _outcomes(hooks, "context")]
        assert all(p >= 0 for p in positions), f"a prompt context is missing: {where}"
        assert positions == sorted(positions), f"the contexts are not in declaration order: {where}"
        for plain in _outcomes(hooks, "plain_text"):
            assert plain.context in sent, f"the plain stdout {plain.context!r} is not context: {where}"
    for broken in _outcomes(hooks, "exit1"):
        assert broken.reason not in loop.model_saw(), f"a broken hook's stderr reached the model: {where}"
    _user_only(loop, only.user_messages, [h.context for h in _outcomes(hooks, "system_message")], where)


STOP_STACK_OUTCOMES = ("none", "block_once", "plain_text", "system_message", *ths.BROKEN_OUTCOMES)


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(hooks=ths.hook_stacks(event="Stop", outcomes=STOP_STACK_OUTCOMES))
@example(
    hooks=[
        hook("Stop", "block_once", reason="R0TESTS"),
        hook("Stop", "block_once", reason="R1LINT", as_command=True),
    ]
)
@example(hooks=[hook("Stop", "crash"), hook("Stop", "none")])
def test_stop_hooks_combine_and_refuse_the_stop_once(
    new_harness: Callable[[], Any], hooks: list[HookSpec]
) -> None:
    """HOOK-7: two or three Stop hooks at once: a guarded block refuses the first stop, every reason goes along.

    When any Stop hook blocks, the loop goes on exactly once: the next request carries every blocking
    hook's reason, and the second Stop fires with ``stop_hook_active: true`` (the first with
    ``false``), whereupon the guarded hooks let it stop. Without a block, one request and one Stop.
    Every hook of the stack runs at every Stop (its log shows it); broken hooks change nothing;
    ``systemMessage`` goes to the user only, and so does plain stdout (Stop adds no context).
    """
    loop = run_loop(new_harness(), ["fix it"], [[text("done early")], [text("really done")]], hooks)
    (only,) = loop.run.prompts
    where = f"Stop hooks {[h.outcome for h in hooks]}: {loop.describe()}"
    assert only.stop_reason == "end_turn", where
    blockers = _outcomes(hooks, "block_once")
    stops = 2 if blockers else 1
    assert len(loop.run.requests) == stops, f"the loop did not go on exactly {stops - 1} time(s): {where}"
    active = [i.get("stop_hook_active") for i in loop.inputs_of("Stop")]
    n = len(hooks)
    assert active == [False] * n + [True] * (n * (stops - 1)), f"Stop inputs say {active}: {where}"
    if blockers:
        feedback = json.dumps(loop.run.requests[1]["messages"][-1])
        for blocker in blockers:
            assert blocker.reason in feedback, (
                f"the block reason {blocker.reason!r} did not reach the model: {where}"
            )
        assert all(b.reason not in json.dumps(loop.run.requests[0]) for b in blockers)
    for plain in _outcomes(hooks, "plain_text"):
        assert plain.context not in loop.model_saw(), f"a Stop hook's plain stdout reached the model: {where}"
    _user_only(loop, only.user_messages, [h.context for h in _outcomes(hooks, "system_message")], where)


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(hooks=ths.hook_stacks(event="SessionStart"))
@example(
    hooks=[
        hook("SessionStart", "context", context="C0START"),
        hook("SessionStart", "exit1"),
        hook("SessionStart", "context", context="C2MORE"),
    ]
)
def test_session_start_hooks_combine(new_harness: Callable[[], Any], hooks: list[HookSpec]) -> None:
    """HOOK-7: two or three SessionStart hooks: every context goes with the first prompt, in order.

    Each hook runs once, before the first prompt (``source: "startup"``); every additionalContext
    reaches the model with the first request, in declaration order, and never before its time, and so
    does every plain stdout (exit 0, not JSON); a broken hook changes nothing; ``systemMessage`` goes to
    the user only.
    """
    loop = run_loop(new_harness(), ["hello"], [[text("ok")]], hooks)
    (only,) = loop.run.prompts
    where = f"SessionStart hooks {[h.outcome for h in hooks]}: {loop.describe()}"
    fired = loop.inputs_of("SessionStart")
    assert [i.get("source") for i in fired] == ["startup"] * len(hooks), where
    assert only.stop_reason == "end_turn", where
    (request,) = loop.run.requests
    sent = json.dumps(request["messages"])
    positions = [sent.find(h.context) for h in _outcomes(hooks, "context")]
    assert all(p >= 0 for p in positions), f"a SessionStart context is missing: {where}"
    assert positions == sorted(positions), f"the contexts are not in declaration order: {where}"
    for plain in _outcomes(hooks, "plain_text"):
        assert plain.context in sent, f"the plain stdout {plain.context!r} is not context: {where}"
    _user_only(loop, only.user_messages, [h.context for h in _outcomes(hooks, "system_message")], where)


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


@st.composite
def lifecycle_matchers(
    draw: st.DrawFn, values: tuple[str, ...], others: tuple[str, ...]
) -> tuple[str, frozenset[str]]:
    """A matcher of a lifecycle event, and which of ``values`` (what the scenario's moments carry) it selects.

    Forms: ``""`` or ``*`` (all), a list of exact values (Claude Code reads a matcher of letters,
    digits, ``_`` and ``|`` so), an anchored regex of the alternatives, a regex of their prefixes.
    Among the alternatives, decoys that select none of ``values``: the event's other values, and the
    values in other letter cases.
    """
    form = draw(st.sampled_from(["all", "list", "regex", "prefix"]))
    if form == "all":
        return draw(st.sampled_from(["", "*"])), frozenset(values)
    selected = draw(st.lists(st.sampled_from(values), unique=True))
    recased = [f(v) for v in values for f in (str.upper, str.capitalize)]
    decoys = draw(st.lists(st.sampled_from([*others, *recased]), unique=True, max_size=2)) or [others[0]]
    names = draw(st.permutations([*selected, *decoys]))
    if form == "list":
        return "|".join(names), frozenset(selected)
    if form == "regex":
        return "^(" + "|".join(re.escape(n) for n in names) + ")$", frozenset(selected)
    # A prefix of a value selects it (no value begins another's way); decoys stay whole.
    parts = [
        re.escape(n[: draw(st.integers(1, len(n)))]) + ".*" if n in selected else re.escape(n) + "$"
        for n in names
    ]
    return "^(?:" + "|".join(parts) + ")", frozenset(selected)


@requires("agent_loop")
@pytest.mark.requirement("HOOK-7", "SHOULD")
@settings(max_examples=10, deadline=None)
@given(
    start=lifecycle_matchers(("startup", "compact"), ("resume", "clear")),
    compacting=lifecycle_matchers(("manual",), ("auto",)),
    ignored=st.sampled_from(["Echo", "NoSuchTool", "^nothing$", "resume", "manual|auto"]),
)
@example(start=("compact", frozenset({"compact"})), compacting=("auto", frozenset()), ignored="NoSuchTool")
@example(
    start=("startup", frozenset({"startup"})), compacting=("manual", frozenset({"manual"})), ignored="Echo"
)
def test_lifecycle_matchers_select_the_moments_they_name(
    new_harness: Callable[[], Any],
    start: tuple[str, frozenset[str]],
    compacting: tuple[str, frozenset[str]],
    ignored: str,
) -> None:
    """HOOK-7: a SessionStart matcher selects by ``source``, PreCompact's by ``trigger``; UserPromptSubmit and Stop ignore theirs.

    A session of two prompts with a compaction between them: SessionStart happens with ``startup`` and
    ``compact``, PreCompact with ``manual``. Each hook fires exactly at the moments its matcher selects
    (every form: all, exact lists, regexes; decoys of other values and letter cases select nothing);
    UserPromptSubmit and Stop have no matcher, so theirs, whatever it says, is ignored: they fire at
    every prompt and every stop.
    """
    (start_matcher, sources), (compact_matcher, triggers) = start, compacting
    hooks = [
        hook("SessionStart", "none", matcher=start_matcher),
        hook("PreCompact", "none", matcher=compact_matcher),
        hook("UserPromptSubmit", "none", matcher=ignored),
        hook("Stop", "none", matcher=ignored),
    ]
    loop = run_loop(new_harness(), ["first", "second"], [[text("a")], [text("b")]], hooks, compact_after=0)
    where = f"SessionStart {start_matcher!r}, PreCompact {compact_matcher!r}, others {ignored!r}: {loop.describe()}"
    fired = [i.get("source") for i in loop.inputs_of("SessionStart")]
    assert fired == [s for s in ("startup", "compact") if s in sources], (
        f"SessionStart fired for {fired}: {where}"
    )
    compacted = [i.get("trigger") for i in loop.inputs_of("PreCompact")]
    assert compacted == [t for t in ("manual",) if t in triggers], (
        f"PreCompact fired for {compacted}: {where}"
    )
    assert len(loop.inputs_of("UserPromptSubmit")) == 2, (
        f"a UserPromptSubmit matcher was not ignored: {where}"
    )
    assert len(loop.inputs_of("Stop")) == 2, f"a Stop matcher was not ignored: {where}"


@requires("agent_loop", "hook_sources")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=6, deadline=None)
@given(
    source=st.sampled_from(["http", "plugin"]),
    event=st.sampled_from(["UserPromptSubmit", "SessionStart"]),
    outcome=st.sampled_from(["context", "block", "exit2"]),
)
def test_http_and_plugin_hooks_fire_at_lifecycle_moments_too(
    new_harness: Callable[[], Any], source: str, event: str, outcome: str
) -> None:
    """HOOK-8: an http or plugin hook on UserPromptSubmit or SessionStart fires and acts like a command hook.

    It runs once (its own log shows the event: the endpoint, or the plugin's program, appends the input
    it got); its additionalContext reaches the model with the prompt; a UserPromptSubmit block keeps
    the prompt from the model, where SessionStart can't block and the prompt goes on.
    """
    sourced = hook(
        event,
        outcome,
        reason="SRCBLOCK",
        context="SRCCONTEXT",
        timeout=5.0,
        as_command=True,
        hook_type="http" if source == "http" else "command",
        from_plugin=source == "plugin",
    )
    loop = run_loop(new_harness(), ["the prompt"], [[text("answer")]], [sourced])
    (only,) = loop.run.prompts
    where = f"{source} {event} hook answering {outcome}: {loop.describe()}"
    assert len(loop.inputs_of(event)) == 1, f"the hook's log does not show it fired once: {where}"
    if event == "UserPromptSubmit" and outcome != "context":
        assert only.stop_reason == "prompt_blocked", where
        assert loop.run.requests == [], where
        return
    assert only.stop_reason == "end_turn", where
    (request,) = loop.run.requests
    assert ("SRCCONTEXT" in json.dumps(request["messages"])) == (outcome == "context"), where


# What an async hook's answer may carry: its systemMessage (``system_message`` as the outcome, or
# beside another answer), or nothing it can show (an exit 2, an exit 1, garbage).
ASYNC_SAYING = ("system_message", "none", "context", "decides")
ASYNC_BROKEN = ("exit2", "exit1", "garbage")
# The decision an async hook on each event tries (and can't) make: deny a call, block a prompt.
ASYNC_DECISION = {"UserPromptSubmit": "block", "PreToolUse": "deny", "PostToolUse": "block"}


@requires("agent_loop", "command_hooks", "hook_sources")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=10, deadline=None)
@given(
    event=st.sampled_from(sorted(ASYNC_DECISION)),
    outcome=st.sampled_from(ASYNC_SAYING + ASYNC_BROKEN),
    word=WORDS,
)
def test_an_async_hooks_system_message_reaches_the_user_once_and_it_decides_nothing(
    new_harness: Callable[[], Any], event: str, outcome: str, word: str
) -> None:
    """HOOK-8: an async command hook runs in the background: it decides nothing, and its ``systemMessage`` reaches the user.

    A prompt whose model calls a tool, then answers. The async hook (on UserPromptSubmit, PreToolUse
    or PostToolUse) fires once; whatever it answers (a deny or a block, an exit 2, garbage) the prompt
    and the call go on. Its ``systemMessage`` (as its whole answer, or beside no decision, context or
    a decision) is shown to the user exactly once, with the prompt's messages or when the session
    ends, since an async hook may finish after the prompt's last turn, and never reaches the model; a
    broken async hook's text reaches neither.
    """
    message = f"ASYNCSAYS{word}"
    kind = ASYNC_DECISION[event] if outcome == "decides" else outcome
    fields: dict[str, Any] = {"reason": message} if outcome in ASYNC_BROKEN else {}
    if outcome == "system_message":
        fields["context"] = message
    elif outcome in ASYNC_SAYING:
        fields.update(also=("system_message",), system_message=message)
    spec = hook(event, kind, timeout=10.0, as_command=True, run_async=True, **fields)
    loop = run_loop(new_harness(), ["the prompt"], [[tool_use(1)], [text("done")]], [spec])
    (only,) = loop.run.prompts
    where = f"async {event} hook answering {kind}: {loop.describe()}, at the end {loop.run.ended}"
    assert len(loop.inputs_of(event)) == 1, f"the async hook did not fire once: {where}"
    assert only.stop_reason == "end_turn", f"an async hook stopped the prompt: {where}"
    assert loop.scenario.recorder.started() == ["toolu_loop_1"], f"the call did not run once: {where}"
    assert len(loop.run.requests) == 2, f"the model did not get the call's result: {where}"
    shown = [m for m in (*only.user_messages, *loop.run.ended) if message in m]
    expected = 1 if outcome in ASYNC_SAYING else 0
    assert len(shown) == expected, f"{message!r} shown {len(shown)} time(s), not {expected}: {where}"
    assert message not in loop.model_saw(), f"{message!r} reached the model: {where}"
