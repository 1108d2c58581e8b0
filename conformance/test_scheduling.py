"""Scheduling: CONC-1, CONC-2, CONC-4, CONC-5 (an abort, and a deny that interrupts; CONC-3 is in test_pool.py).

Overlap is judged from the call recorder's sequence numbers, never from wall-clock time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    NAMES,
    allow_rules,
    check_pairing,
    execute,
    is_error,
    ok_tool,
    scenario_root,
    text_of,
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import (
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    RuleSpec,
    ToolBehavior,
)

FALLBACK_GATE = 2.0
"""Seconds after which a gate opens anyway, so a harness that serialises calls finishes (and fails)."""


# What a call of the CONC-1 draw does: return at once or after a while (a sleep that ignores its abort
# signal, so an interrupted call runs on to its end), or fail by either channel (which, for a shell
# call, interrupts its shell siblings: CONC-4).
SCHEDULED_KINDS = st.sampled_from(["text", "quick", "quick", "slow", "raise", "error_result"])
SLOW_SECONDS = 0.06


def scheduled_behavior(kind: str) -> ToolBehavior:
    if kind in ("raise", "error_result"):
        return ToolBehavior(kind, message="exit status 1")  # type: ignore[arg-type]
    seconds = {"text": 0.0, "quick": 0.002, "slow": SLOW_SECONDS}[kind]
    return ToolBehavior("sleep", seconds=seconds)


@requires("execution")
@pytest.mark.requirement("CONC-1", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    calls=st.lists(st.tuples(st.booleans(), st.booleans(), SCHEDULED_KINDS), min_size=2, max_size=7),
)
@example(calls=[(True, True, "slow"), (True, True, "raise"), (False, False, "text")])
@example(calls=[(True, True, "slow"), (True, True, "error_result"), (False, True, "text")])
def test_unsafe_call_overlaps_nothing(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    calls: list[tuple[bool, bool, str]],
) -> None:
    """CONC-1: a call that is not concurrency safe overlaps no other call (safe calls may overlap each other).

    Calls (safe or not, shell-type or not) return, sleep, or fail; a failing shell call interrupts its
    running shell siblings, and an interrupted call that ignores its abort signal is still running:
    no call that is not concurrency safe starts until it has really ended.
    """
    safe = [s for s, _, _ in calls]
    tools = [
        ok_tool(NAMES[i], scheduled_behavior(kind), concurrency_safe=s, read_only=s, shell=shell)
        for i, (s, shell, kind) in enumerate(calls)
    ]
    uses = [
        tool_use(f"toolu_{i:02d}_{'safe' if s else 'serial'}", NAMES[i], {"n": i}) for i, s in enumerate(safe)
    ]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    shell_failed = any(shell and kind in ("raise", "error_result") for _, shell, kind in calls)
    # Shell calls may be cancelled before they start (CONC-4); every other call runs. After a call
    # that failed, whether the others still run is PAIR's question (a framework may end the turn
    # there), not CONC-1's: only the overlap of what ran is judged.
    failed = any(kind in ("raise", "error_result") for _, _, kind in calls)
    must_run = (
        []
        if failed
        else [b for b, (_, shell, _) in zip(uses, calls, strict=True) if not (shell and shell_failed)]
    )
    check_serial_calls_alone(run, uses, safe, "calls that are not concurrency safe", must_run=must_run)


def check_serial_calls_alone(
    run: Any,
    uses: list[dict[str, Any]],
    safe: list[bool],
    what: str,
    must_run: list[dict[str, Any]] | None = None,
) -> None:
    """CONC-1 on one run: the calls not marked ``safe`` overlapped no other call, and every call ran.

    ``must_run``: the calls that must have run, when not all of them (default: all).
    """
    unsafe = {b["id"] for b, s in zip(uses, safe, strict=False) if not s}
    bad = [(a, b) for a, b in run.recorder.overlapping_pairs() if a in unsafe or b in unsafe]
    assert not bad, f"{what} overlapped other calls: {bad}"
    missing = {b["id"] for b in (uses if must_run is None else must_run)} - set(run.recorder.started())
    assert not missing, f"calls {sorted(missing)} never ran"


@requires("execution")
@pytest.mark.requirement("CONC-1", "MUST")
@settings(max_examples=25, deadline=None)
@given(safe=st.lists(st.booleans(), min_size=2, max_size=6))
@example(safe=[True, False, True])
@example(safe=[False, True, True, False])
def test_safety_is_judged_for_each_calls_input(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], safe: list[bool]
) -> None:
    """The CONC-1 property for one tool whose safety depends on the input, stated below.

    CONC-1: ``is_concurrency_safe(input)`` is asked of each call's own input: of several calls to
    one tool, those whose input makes them unsafe overlap no other call (the tool is safe for some
    inputs only, as Bash is for ``ls`` and not for ``rm``).
    """
    tool = ok_tool("Search", ToolBehavior("sleep", seconds=0.003), concurrency_safe_when="cached")
    uses = [
        tool_use(
            f"toolu_{i:02d}_{'safe' if s else 'serial'}",
            "Search",
            {"n": i, **({"cached": True} if s else {})},
        )
        for i, s in enumerate(safe)
    ]
    with scenario_root() as root:
        run = execute(new_harness(), root, [tool], uses, rules=allow_rules([tool], toolharness_capabilities))
    check_serial_calls_alone(run, uses, safe, "calls whose input is not concurrency safe")


@requires("execution")
@pytest.mark.requirement("CONC-2", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(count=st.integers(2, 4), after=st.booleans())
def test_calls_made_safe_by_their_input_run_together(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], count: int, after: bool
) -> None:
    """The CONC-2 property for one tool whose safety depends on the input, stated below.

    CONC-2: adjacent calls whose own input makes them concurrency safe run together (each waits at a
    gate that opens once all have started), before an unsafe call of the same tool if there is one.
    """
    gate = asyncio.Event()
    tool = ok_tool("Search", ToolBehavior("text", text="done", gate=gate), concurrency_safe_when="cached")
    serial = [tool_use("toolu_serial", "Search", {"n": 99})] if after else []
    safe_uses = [tool_use(f"toolu_{i:02d}_safe", "Search", {"n": i, "cached": True}) for i in range(count)]
    uses = safe_uses + serial

    def setup(scenario: ExecutionScenario) -> None:
        # The safe calls' gate opens when they have all started, whether or not the serial one has.
        scenario.recorder.trigger_after_starts(count, gate, of=[u["id"] for u in safe_uses])
        asyncio.get_running_loop().call_later(FALLBACK_GATE, gate.set)

    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            uses,
            rules=allow_rules([tool], toolharness_capabilities),
            setup=setup,
        )
    starts = {e.tool_use_id: e.seq for e in run.recorder.events if e.kind == "start"}
    ends = {e.tool_use_id: e.seq for e in run.recorder.events if e.kind == "end"}
    safe_ids = [u["id"] for u in safe_uses]
    assert all(i in starts and i in ends for i in safe_ids), f"not every call ran: {run.recorder.events}"
    first_end = min(ends[i] for i in safe_ids)
    late = [i for i in safe_ids if starts[i] > first_end]
    assert not late, (
        f"calls whose input makes them concurrency safe did not run together: {late} started after "
        f"another had ended"
    )


@requires("execution")
@pytest.mark.requirement("CONC-2", "SHOULD")
@settings(max_examples=15, deadline=None)
@given(count=st.integers(2, 5), before=st.integers(0, 1), after=st.integers(0, 1))
def test_adjacent_safe_calls_run_together(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    count: int,
    before: int,
    after: int,
) -> None:
    """The CONC-2 property, stated below.

    CONC-2: adjacent concurrency-safe calls run together: every one of them has started before any
    of them ends (each waits at a gate that opens once all have started).
    """
    gate = asyncio.Event()
    safe_tools = [
        ok_tool(
            NAMES[before + i],
            ToolBehavior("text", text="done", gate=gate),
            concurrency_safe=True,
            read_only=True,
        )
        for i in range(count)
    ]
    serial = [ok_tool(f"Serial{i}") for i in range(before + after)]
    tools = serial[:before] + safe_tools + serial[before:]
    uses = [tool_use(f"toolu_{i:02d}", t.name, {"n": i}) for i, t in enumerate(tools)]
    safe_ids = [uses[before + i]["id"] for i in range(count)]

    def setup(scenario: ExecutionScenario) -> None:
        # Opens when the safe calls have all started: a serial call after them that a harness started
        # among them (threads racing) must not open it early, nor one before them be waited for.
        scenario.recorder.trigger_after_starts(count, gate, of=safe_ids)
        # A harness that runs them one at a time would wait forever: open the gate late instead.
        asyncio.get_running_loop().call_later(FALLBACK_GATE, gate.set)

    with scenario_root() as root:
        run = execute(
            new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities), setup=setup
        )
    starts = {e.tool_use_id: e.seq for e in run.recorder.events if e.kind == "start"}
    ends = {e.tool_use_id: e.seq for e in run.recorder.events if e.kind == "end"}
    missing = [i for i in safe_ids if i not in starts]
    assert not missing, f"safe calls never started: {missing}"
    first_end = min(ends[i] for i in safe_ids)
    late = [i for i in safe_ids if starts[i] > first_end]
    assert not late, (
        f"adjacent concurrency-safe calls {safe_ids} did not run together: {late} started after one ended"
    )


@requires("execution")
@pytest.mark.requirement("CONC-4", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    count=st.integers(2, 5),
    failing=st.integers(0, 4),
    concurrent=st.booleans(),
    channel=st.sampled_from(["raise", "error_result"]),
    message=st.sampled_from(["exit status 1", "", " \n"]),
)
@example(count=2, failing=0, concurrent=True, channel="error_result", message="exit status 1")
@example(count=3, failing=1, concurrent=False, channel="error_result", message="")
def test_failed_shell_call_cancels_shell_siblings(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    count: int,
    failing: int,
    concurrent: bool,
    channel: str,
    message: str,
) -> None:
    """The CONC-4 property, stated below.

    CONC-4: when a shell call fails, its shell siblings that had not finished do not run on (no start
    after the failure) and each gets an error result. A failure is either channel: the tool raises,
    or it returns an error result (is_error) of its own, with a message or with no output at all.
    """
    failing %= count
    tools = []
    for i in range(count):
        if i == failing:
            behavior = ToolBehavior(channel, message=message)  # type: ignore[arg-type]
        elif i < failing and not concurrent:
            behavior = ToolBehavior("text", text="earlier shell call done")
        else:
            behavior = ToolBehavior("hang")  # only a cancellation ends it
        tools.append(
            ok_tool(NAMES[i], behavior, shell=True, concurrency_safe=concurrent, read_only=concurrent)
        )
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(count)]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    check_pairing(run)
    failed_id = uses[failing]["id"]
    seq = {(e.kind, e.tool_use_id): e.seq for e in run.recorder.events}
    failed_end = seq.get(("end", failed_id))
    assert failed_end is not None, f"the failing shell call {failed_id} never ran"
    by_id = run.results_by_id()
    assert is_error(by_id[failed_id]), f"the shell call that failed ({channel}) has no error result"
    for use in uses:
        sibling = use["id"]
        if sibling == failed_id:
            continue
        end = seq.get(("end", sibling))
        if end is not None and end < failed_end:
            assert not is_error(by_id[sibling]), f"{sibling} finished before the failure but got an error"
            continue
        start = seq.get(("start", sibling))
        assert start is None or start < failed_end, (
            f"shell sibling {sibling} started after {failed_id} failed"
        )
        result = by_id[sibling]
        message = f"shell sibling {sibling} was unfinished when {failed_id} failed but got {result}"
        assert is_error(result), message
        assert text_of(result).strip(), message


@requires("execution", "abort")
@pytest.mark.requirement("CONC-5", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(["text", "wait_abort", "hang", "sleep"]), min_size=1, max_size=6),
    safe=st.lists(st.booleans(), min_size=6, max_size=6),
    after=st.integers(1, 6),
)
def test_abort_starts_nothing_and_answers_unfinished(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    kinds: list[str],
    safe: list[bool],
    after: int,
) -> None:
    """The CONC-5 property, stated below.

    CONC-5: after the abort nothing new starts, and every call that had not finished when it came
    gets an error result (calls that finished before keep their results).
    """
    behaviors = [ToolBehavior(k, seconds=0.001) for k in kinds]  # type: ignore[arg-type]
    blockers = [i for i, k in enumerate(kinds) if k in ("wait_abort", "hang")]
    if not blockers:
        behaviors[0] = ToolBehavior("wait_abort")
        blockers = [0]
    # The calls before the first blocking one start whatever the schedule, so the abort does fire.
    after = min(after, blockers[0] + 1)
    tools = [
        ok_tool(NAMES[i], b, concurrency_safe=safe[i], read_only=safe[i]) for i, b in enumerate(behaviors)
    ]
    uses = [tool_use(f"toolu_{i:02d}_{b.kind}", NAMES[i], {"n": i}) for i, b in enumerate(behaviors)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            tools,
            uses,
            rules=allow_rules(tools, toolharness_capabilities),
            abort_after_starts=after,
        )
    check_pairing(run)
    events = run.recorder.events
    starts = [e for e in events if e.kind == "start"]
    abort_seq = starts[after - 1].seq  # the trigger sets the abort while recording this start
    late = [e.tool_use_id for e in starts if e.seq > abort_seq]
    assert not late, f"calls started after the abort (set at start #{after}): {late}"
    started = {e.tool_use_id for e in starts}
    by_id = run.results_by_id()
    for use, behavior in zip(uses, behaviors, strict=True):
        result = by_id[use["id"]]
        # A call that never started, or that only an abort ends, was unfinished at the abort; a quick
        # call running at that moment may have finished either way.
        if use["id"] not in started or behavior.kind in ("wait_abort", "hang"):
            message = f"{use['id']} had not finished at the abort but got {result}"
            assert is_error(result), message
            assert text_of(result).strip(), message


@requires("execution", "permissions", "host_callback", "host_interrupt")
@pytest.mark.requirement("CONC-5", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    safe=st.lists(st.booleans(), min_size=2, max_size=5),
    position=st.integers(0, 4),
    who=st.sampled_from(["host", "hook"]),
)
@example(safe=[False, False, False], position=1, who="host")
@example(safe=[True, True, True, True], position=1, who="hook")
@example(safe=[True, False, True], position=0, who="host")
def test_interrupting_denial_stops_the_batch(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    safe: list[bool],
    position: int,
    who: str,
) -> None:
    """The CONC-5 property for a deny that interrupts, stated below.

    CONC-5: a user who rejects a prompt and stops the agent (the host's deny with ``interrupt``, or a
    PermissionRequest hook's in the user's place) aborts the batch. That call's result is an error
    carrying the denial's message; no call that had to wait for it starts; every call that never
    started gets an error result; the calls that had to finish before it keep their success.
    """
    if who == "hook" and "hooks" not in toolharness_capabilities:
        who = "host"
    count = len(safe)
    position %= count
    asked_name = NAMES[position]
    tools = [
        ok_tool(NAMES[i], ToolBehavior("sleep", seconds=0.005), concurrency_safe=s, read_only=s)
        for i, s in enumerate(safe)
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(count)]
    rules = [RuleSpec(t.name, "ask" if t.name == asked_name else "allow") for t in tools]
    message = "stop: the user wants to do this differently"

    def answer(name: str, _input: Mapping[str, Any]) -> HostAnswer:
        if name == asked_name and who == "host":
            return HostAnswer("deny", message=message, interrupt=True)
        return HostAnswer("allow")

    hooks = [HookSpec("PermissionRequest", "deny_interrupt", matcher=asked_name, reason=message)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            tools,
            uses,
            rules=rules,
            host=HostSpec(answer=answer),
            hooks=hooks if who == "hook" else (),
        )
    check_pairing(run)
    by_id = run.results_by_id()
    denied = by_id[uses[position]["id"]]
    assert is_error(denied), f"the call the {who} denied got {denied}"
    assert message in text_of(denied), f"the {who}'s message is not in the denied call's result {denied}"
    started = set(run.recorder.started())
    assert uses[position]["id"] not in started, f"{uses[position]['id']} was denied, yet it ran"
    for i in range(count):
        tool_use_id = uses[i]["id"]
        # Calls ordered with the denied one: an unsafe call on either side, or one between, orders them.
        between = safe[min(i, position) : max(i, position) + 1]
        ordered = not all(between)
        if i > position and ordered:
            assert tool_use_id not in started, (
                f"{tool_use_id} had to wait for {uses[position]['id']}, which the {who} denied with an "
                f"interrupt, yet it started (safe flags {safe})"
            )
        if i < position and ordered:
            assert not is_error(by_id[tool_use_id]), (
                f"{tool_use_id} finished before {uses[position]['id']} was asked, yet the interrupt "
                f"turned its result into {by_id[tool_use_id]}"
            )
        if i != position and tool_use_id not in started:
            never_ran = f"{tool_use_id} never ran after the interrupt, but got {by_id[tool_use_id]}"
            assert is_error(by_id[tool_use_id]), never_ran
            assert text_of(by_id[tool_use_id]).strip(), never_ran
