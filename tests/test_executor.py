"""The streaming executor with real asyncio and real tool-like coroutines (CONC-1..5, PAIR-1..5, EXEC-4)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from anthropic.types import ToolResultBlockParam, ToolUseBlockParam
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import DuplicateToolUseIdError, StreamingToolExecutor, ToolState
from reference_impl.execution import CallControl, ToolRunOutcome

T = TypeVar("T")
GUARD = 10.0  # a hang guard, never a timing assertion


def run(coro: Coroutine[Any, Any, T]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(coro, GUARD)

    return asyncio.run(guarded())


def tool_use(index: int, name: str = "Tool", **tool_input: Any) -> ToolUseBlockParam:
    return {"type": "tool_use", "id": f"toolu_{index:03d}", "name": name, "input": tool_input}


def ok(tool_use_id: str, text: str = "ok", **extra: Any) -> ToolRunOutcome:
    return ToolRunOutcome({"type": "tool_result", "tool_use_id": tool_use_id, "content": text}, **extra)


def error(tool_use_id: str, text: str) -> ToolRunOutcome:
    result: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": text,
        "is_error": True,
    }
    return ToolRunOutcome(result, failed=True)


def text_of(outcome: ToolRunOutcome) -> str:
    content = outcome.result.get("content")
    assert isinstance(content, str)
    return content


def by_input(key: str) -> Callable[[ToolUseBlockParam], bool]:
    def predicate(block: ToolUseBlockParam) -> bool:
        return bool(dict(block["input"]).get(key))

    return predicate


def executor(run_one: Any, **options: Any) -> StreamingToolExecutor:
    options.setdefault("is_concurrency_safe", by_input("safe"))
    options.setdefault("is_shell", by_input("shell"))
    options.setdefault("grace_period", 0.0)
    return StreamingToolExecutor(run_one, **options)


# -- the property over generated batches ------------------------------------------------------

BEHAVIOURS = ("ok", "slow", "fail", "raise", "hang", "stubborn")


@dataclass
class Harness:
    """A run_one with real coroutines that logs start/end/abort events in the order they happen."""

    specs: dict[str, tuple[bool, bool, str]]
    log: list[tuple[str, str]] = field(default_factory=list)

    async def run_one(self, block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        tool_use_id = block["id"]
        behaviour = self.specs[tool_use_id][2]
        self.log.append(("start", tool_use_id))
        try:
            await asyncio.sleep(0)
            if behaviour == "slow":
                for _ in range(5):
                    await asyncio.sleep(0)
            elif behaviour == "fail":
                return error(tool_use_id, f"failed {tool_use_id}")
            elif behaviour == "raise":
                raise RuntimeError(f"boom {tool_use_id}")
            elif behaviour == "hang":  # cooperative: returns once signalled
                await control.abort.wait()
                return ok(tool_use_id, "late")
            elif behaviour == "stubborn":  # ignores its abort event; only cancellation ends it
                await asyncio.sleep(3600)
            return ok(tool_use_id, f"ok {tool_use_id}")
        finally:
            self.log.append(("end", tool_use_id))


calls_strategy = st.lists(
    st.tuples(st.booleans(), st.booleans(), st.sampled_from(BEHAVIOURS)), min_size=1, max_size=8
)
abort_strategy = st.one_of(
    st.none(), st.tuples(st.sampled_from(["adds", "results"]), st.integers(min_value=0, max_value=8))
)


@settings(max_examples=120, deadline=None)
@given(calls=calls_strategy, abort_at=abort_strategy, yields=st.lists(st.integers(0, 3), max_size=8))
def test_every_path_pairs_orders_and_never_overlaps(calls, abort_at, yields):
    """For any batch (safe/unsafe, shell or not; succeed/fail/raise/hang/slow/ignore-abort), streamed with
    any interleaving and an abort injected at any point:

    - every tool_use id gets exactly one result, in tool_use order (PAIR-1, PAIR-2, PAIR-5);
    - every error result has is_error and non-empty text (PAIR-3); failing calls are errors;
    - no call starts after the abort, and every call that never ran gets a synthetic error (CONC-5);
    - a call that is not concurrency safe never overlaps another call (CONC-1, from the event log);
    - calls start in tool_use order, and nothing after a non-safe call starts before it has ended;
    - a shell call that fails cancels every shell sibling that had not finished: each gets an error (CONC-4);
    - no call's task outlives the executor.
    """
    blocks = [
        tool_use(i, "Bash" if shell else "Tool", safe=safe, shell=shell)
        for i, (safe, shell, _) in enumerate(calls)
    ]
    harness = Harness({b["id"]: spec for b, spec in zip(blocks, calls, strict=True)})
    safe_of = {b["id"]: spec[0] for b, spec in zip(blocks, calls, strict=True)}

    async def scenario() -> list[ToolRunOutcome]:
        before = asyncio.all_tasks()
        ex = executor(harness.run_one, call_timeout=0.02)

        def do_abort() -> None:
            harness.log.append(("abort", ""))
            ex.abort()

        async def produce() -> None:
            for i, block in enumerate(blocks):
                if abort_at == ("adds", i):
                    do_abort()
                ex.add_tool_use(block)
                for _ in range(yields[i] if i < len(yields) else 0):
                    await asyncio.sleep(0)
            if abort_at == ("adds", len(blocks)):
                do_abort()
            ex.finish_stream()

        producer = asyncio.create_task(produce())
        outcomes: list[ToolRunOutcome] = []
        async for outcome in ex.results():
            if abort_at == ("results", len(outcomes)):
                do_abort()
            outcomes.append(outcome)
        await producer
        assert asyncio.all_tasks() <= before, "a call outlived the executor"
        return outcomes

    outcomes = run(scenario())
    ids = [b["id"] for b in blocks]

    # PAIR-1/2/5: exactly one result per id, in tool_use order.
    assert [o.result["tool_use_id"] for o in outcomes] == ids
    started = {x for event, x in harness.log if event == "start"}
    by_id = dict(zip(ids, outcomes, strict=True))
    for tool_use_id, outcome in by_id.items():
        behaviour = harness.specs[tool_use_id][2]
        text = text_of(outcome)
        if outcome.result.get("is_error"):
            assert text.strip(), "PAIR-3: an error needs text"
        else:
            assert behaviour in ("ok", "slow")
            assert text == f"ok {tool_use_id}"
        if behaviour in ("fail", "raise", "hang", "stubborn"):
            assert outcome.result.get("is_error") is True
        if tool_use_id not in started:
            assert outcome.synthetic
            assert outcome.result.get("is_error") is True

    # CONC-5: nothing starts after the abort.
    if ("abort", "") in harness.log:
        after = harness.log[harness.log.index(("abort", "")) :]
        assert not [x for event, x in after if event == "start"]

    # CONC-1: replay the log; a non-safe call is alone whenever it runs.
    active: set[str] = set()
    for event, x in harness.log:
        if event == "start":
            assert not (active and (not safe_of[x] or any(not safe_of[a] for a in active))), harness.log
            active.add(x)
        elif event == "end":
            active.discard(x)

    # Queued calls start in tool_use order, and a non-safe call is a barrier: a later call starts only
    # after it has ended (or it never runs).
    starts = [x for event, x in harness.log if event == "start"]
    assert starts == sorted(starts)
    start_at = {x: i for i, (event, x) in enumerate(harness.log) if event == "start"}
    end_at = {x: i for i, (event, x) in enumerate(harness.log) if event == "end"}
    for later in start_at:
        for earlier in ids[: ids.index(later)]:
            if not safe_of[earlier] and earlier in start_at:
                assert end_at[earlier] < start_at[later], harness.log

    # CONC-4: a shell call's own failure cancels the shell siblings that had not finished.
    for tool_use_id, outcome in by_id.items():
        _safe, shell, behaviour = harness.specs[tool_use_id]
        own_failure = behaviour == "fail" and text_of(outcome) == f"failed {tool_use_id}"
        own_failure |= behaviour == "raise" and f"boom {tool_use_id}" in text_of(outcome)
        if not (shell and own_failure):
            continue
        for other, other_outcome in by_id.items():
            if (
                other != tool_use_id
                and harness.specs[other][1]
                and end_at.get(other, 10**9) > end_at[tool_use_id]
            ):
                assert other_outcome.result.get("is_error") is True, (other, harness.log)


# -- scheduling -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5])
def test_adjacent_safe_calls_overlap(n):
    """CONC-2: N adjacent concurrency-safe calls all run at once: each waits until all N have started."""
    started: list[str] = []

    async def scenario() -> list[ToolRunOutcome]:
        all_started = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            started.append(block["id"])
            if len(started) == n:
                all_started.set()
            await all_started.wait()  # deadlocks (and the guard fails the test) unless they overlap
            return ok(block["id"])

        return await executor(run_one).run_batch([tool_use(i, safe=True) for i in range(n)])

    outcomes = run(scenario())
    assert [text_of(o) for o in outcomes] == ["ok"] * n
    assert len(started) == n


def test_unsafe_call_is_a_barrier():
    """CONC-1: [safe A, unsafe B, safe C]: B waits for A, C waits for B, although C is safe."""
    log: list[str] = []

    async def scenario() -> None:
        release_a = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            log.append(f"start {block['id']}")
            if block["id"] == "toolu_000":
                await release_a.wait()
            await asyncio.sleep(0)
            log.append(f"end {block['id']}")
            return ok(block["id"])

        ex = executor(run_one)
        for block in (tool_use(0, safe=True), tool_use(1, safe=False), tool_use(2, safe=True)):
            ex.add_tool_use(block)
        ex.finish_stream()
        for _ in range(5):
            await asyncio.sleep(0)
        assert log == ["start toolu_000"]  # B and C are held back while A runs
        release_a.set()
        [o async for o in ex.results()]

    run(scenario())
    assert log == [
        "start toolu_000",
        "end toolu_000",
        "start toolu_001",
        "end toolu_001",
        "start toolu_002",
        "end toolu_002",
    ]


def test_a_streamed_call_starts_before_the_stream_ends():
    """add_tool_use starts a call at once when it can run; no need to wait for the whole message."""

    async def scenario() -> list[ToolRunOutcome]:
        started = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            started.set()
            return ok(block["id"])

        ex = executor(run_one)
        ex.add_tool_use(tool_use(0))
        await started.wait()  # would hang if calls waited for finish_stream()
        ex.finish_stream()
        return [o async for o in ex.results()]

    assert len(run(scenario())) == 1


def test_results_keep_tool_use_order_even_when_later_calls_finish_first():
    """PAIR-5: a later call finishing first is held back until the earlier one's result is yielded."""
    events: list[str] = []

    async def scenario() -> None:
        release_first = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            if block["id"] == "toolu_000":
                await release_first.wait()
            events.append(f"end {block['id']}")
            if block["id"] == "toolu_001":
                release_first.set()
            return ok(block["id"])

        ex = executor(run_one)
        ex.add_tool_use(tool_use(0, safe=True))
        ex.add_tool_use(tool_use(1, safe=True))
        ex.finish_stream()
        async for outcome in ex.results():
            events.append(f"yield {outcome.result['tool_use_id']}")

    run(scenario())
    assert events == ["end toolu_001", "end toolu_000", "yield toolu_000", "yield toolu_001"]


def test_context_change_of_a_non_concurrent_call_applies_to_later_calls():
    """EXEC-4: an unsafe call's context modifier is applied before the next call starts; a safe call's is not."""
    seen: dict[str, ToolState] = {}

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        seen[block["id"]] = control.state
        step = dict(block["input"])["step"]
        return ok(
            block["id"],
            context_modifier=lambda state: state.with_value("steps", [*state.values["steps"], step]),
        )

    async def scenario() -> StreamingToolExecutor:
        ex = executor(run_one, state=ToolState(values={"steps": []}))
        await ex.run_batch([tool_use(0, step="a"), tool_use(1, step="b", safe=True), tool_use(2, step="c")])
        return ex

    ex = run(scenario())
    assert seen["toolu_000"].values == {"steps": []}
    assert seen["toolu_001"].values == {"steps": ["a"]}
    assert seen["toolu_002"].values == {"steps": ["a"]}  # the safe call's change was not applied
    assert ex.state.values == {"steps": ["a", "c"]}


# -- aborts, failures, timeouts ---------------------------------------------------------------


def test_user_abort_interrupts_running_and_queued_calls():
    """CONC-5: after abort() the running call and the queued ones get synthetic errors; none starts later."""
    started: list[str] = []

    async def scenario() -> list[ToolRunOutcome]:
        running = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            started.append(block["id"])
            running.set()
            await control.abort.wait()
            return ok(block["id"], "noticed the abort")  # discarded: the call was interrupted

        ex = executor(run_one)
        for i in range(3):
            ex.add_tool_use(tool_use(i))
        ex.finish_stream()
        await running.wait()
        ex.abort()
        return [o async for o in ex.results()]

    outcomes = run(scenario())
    assert started == ["toolu_000"]
    assert [text_of(o) for o in outcomes] == ["<tool_use_error>Interrupted by user</tool_use_error>"] * 3
    assert all(o.result.get("is_error") is True and o.synthetic for o in outcomes)


def test_outside_abort_event_aborts_the_batch_and_later_additions():
    """CONC-5: the abort event given to the executor works like abort(), also for calls added afterwards."""

    async def scenario() -> list[ToolRunOutcome]:
        abort = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            abort.set()
            await asyncio.sleep(3600)  # ignores its own abort: cancelled after the grace period
            raise AssertionError("unreachable")

        ex = executor(run_one, abort=abort)
        ex.add_tool_use(tool_use(0))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        ex.add_tool_use(tool_use(1))
        ex.finish_stream()
        return [o async for o in ex.results()]

    outcomes = run(scenario())
    assert [o.result["tool_use_id"] for o in outcomes] == ["toolu_000", "toolu_001"]
    assert all(o.result.get("is_error") and "Interrupted by user" in text_of(o) for o in outcomes)


def test_failing_shell_call_cancels_shell_siblings_only():
    """CONC-4: a failed shell call cancels running, queued and later shell siblings; other calls go on."""

    async def scenario() -> list[ToolRunOutcome]:
        sibling_running = asyncio.Event()

        async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
            role = str(dict(block["input"])["role"])
            if role == "sibling":
                sibling_running.set()
                await control.abort.wait()
                return ok(block["id"], "finished anyway")
            if role == "failer":
                await sibling_running.wait()
                return error(block["id"], "exit code 1")
            return ok(block["id"], role)

        ex = executor(run_one)
        ex.add_tool_use(tool_use(0, "Bash", safe=True, shell=True, role="sibling"))
        ex.add_tool_use(tool_use(1, "Bash", safe=True, shell=True, role="failer"))
        ex.add_tool_use(tool_use(2, "Read", safe=True, role="reader"))
        ex.add_tool_use(tool_use(3, "Bash", shell=True, role="queued shell"))
        await sibling_running.wait()
        for _ in range(5):
            await asyncio.sleep(0)
        ex.add_tool_use(tool_use(4, "Bash", safe=True, shell=True, role="late shell"))
        ex.add_tool_use(tool_use(5, "Read", safe=True, role="late reader"))
        ex.finish_stream()
        return [o async for o in ex.results()]

    outcomes = run(scenario())
    cancelled = "<tool_use_error>Cancelled: parallel tool call Bash(toolu_001) errored</tool_use_error>"
    assert [text_of(o) for o in outcomes] == [
        cancelled,
        "exit code 1",
        "reader",
        cancelled,
        cancelled,
        "late reader",
    ]
    assert [bool(o.result.get("is_error")) for o in outcomes] == [True, True, False, True, True, False]


def test_a_call_over_its_timeout_gets_a_timeout_error():
    """PAIR-2: a call that runs too long gets a timeout error (and is cancelled); the next call still runs."""

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        if block["id"] == "toolu_000":
            await asyncio.sleep(3600)
        return ok(block["id"])

    outcomes = run(executor(run_one, call_timeout=0.05).run_batch([tool_use(0), tool_use(1)]))
    assert text_of(outcomes[0]) == "<tool_use_error>Tool call timed out after 0.05 s</tool_use_error>"
    assert outcomes[0].result.get("is_error") is True
    assert text_of(outcomes[1]) == "ok"


@pytest.mark.parametrize(
    ("behaviour", "expected"),
    [
        ("raise", "<tool_use_error>Error: ValueError: bad input</tool_use_error>"),
        ("wrong type", "<tool_use_error>run_one returned dict, not a ToolRunOutcome</tool_use_error>"),
        (
            "wrong id",
            "<tool_use_error>run_one returned a result that is not a tool_result for toolu_000</tool_use_error>",
        ),
        ("empty error", "<tool_use_error>Tool failed without a message</tool_use_error>"),
    ],
)
def test_broken_run_one_still_pairs(behaviour, expected):
    """PAIR-2, PAIR-3: a run_one that raises or returns garbage gives an error result with text."""

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> Any:
        if behaviour == "raise":
            raise ValueError("bad input")
        if behaviour == "wrong type":
            return {"type": "tool_result", "tool_use_id": block["id"]}
        if behaviour == "wrong id":
            return ok("toolu_999")
        return error(block["id"], "  ")

    outcomes = run(executor(run_one).run_batch([tool_use(0), tool_use(1, safe=True)]))
    assert text_of(outcomes[0]) == expected
    assert outcomes[0].result.get("is_error") is True
    assert [o.result["tool_use_id"] for o in outcomes] == ["toolu_000", "toolu_001"]


def _fresh(text: str) -> str:
    # A copy that is equal but not the same object (interned literals would hide `is` for `==`).
    return "".join([text[:1], text[1:]]) if len(text) > 1 else text


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(min_value=1, max_value=4),
    data=st.data(),
    result_type=st.one_of(
        st.just("tool_result"), st.sampled_from(("tool_use", "text", "image", "tool_results")), st.none()
    ),
)
def test_run_one_result_for_another_id_or_of_another_type_is_replaced(size, data, result_type):
    """PAIR-1, PAIR-2: run_one's result passes through only when it is a tool_result for its own call's
    id; a result for any other id (before or after its own in order) or of any other type is replaced
    by a synthetic error, so each id is still answered exactly once."""
    own = data.draw(st.integers(min_value=0, max_value=size - 1), label="own")
    answered = data.draw(st.integers(min_value=0, max_value=9), label="answered")
    own_id = f"toolu_{own:03d}"

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        if block["id"] != own_id:
            return ok(block["id"])
        result: Any = {
            "type": None if result_type is None else _fresh(result_type),
            "tool_use_id": _fresh(f"toolu_{answered:03d}"),
            "content": "own",
        }
        return ToolRunOutcome(result)

    outcomes = run(executor(run_one).run_batch([tool_use(i, safe=True) for i in range(size)]))
    assert [o.result["tool_use_id"] for o in outcomes] == [f"toolu_{i:03d}" for i in range(size)]
    if result_type == "tool_result" and answered == own:
        assert text_of(outcomes[own]) == "own"
        assert not outcomes[own].synthetic
    else:
        expected = f"run_one returned a result that is not a tool_result for {own_id}"
        assert text_of(outcomes[own]) == f"<tool_use_error>{expected}</tool_use_error>"
        assert outcomes[own].result.get("is_error") is True
    assert all(text_of(o) == "ok" for i, o in enumerate(outcomes) if i != own)


@pytest.mark.parametrize("broken", ["raises", "not a ToolState"])
def test_a_context_modifier_that_fails_gives_its_call_an_error_and_the_batch_goes_on(broken):
    """PAIR-2, EXEC-4: an unsafe call whose context modifier raises (or returns something that is not a
    ToolState) gets an error result, the shared state is unchanged, and later calls still run and pair."""

    def modifier(state: ToolState) -> Any:
        if broken == "raises":
            raise KeyError("no steps")
        return {"steps": ["x"]}

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        if block["id"] == "toolu_000":
            return ok(block["id"], context_modifier=modifier)
        return ok(block["id"], f"saw {control.state.values}")

    async def scenario() -> tuple[list[ToolRunOutcome], StreamingToolExecutor]:
        ex = executor(run_one, state=ToolState(values={"steps": []}))
        return await ex.run_batch([tool_use(0), tool_use(1)]), ex

    outcomes, ex = run(scenario())
    assert [o.result["tool_use_id"] for o in outcomes] == ["toolu_000", "toolu_001"]
    assert outcomes[0].result.get("is_error") is True
    assert outcomes[0].synthetic
    assert "Error applying the context change" in text_of(outcomes[0])
    assert text_of(outcomes[1]) == "saw {'steps': []}"
    assert ex.state.values == {"steps": []}


@settings(max_examples=20, deadline=None)
@given(
    reason=st.one_of(
        st.sampled_from(("The request failed", "  Stopped by the host \n")), st.text(max_size=20)
    )
)
def test_abort_reason_is_the_interrupted_calls_message(reason):
    """CONC-5, PAIR-3: abort(reason) gives every unfinished call an error carrying that reason (stripped),
    and a blank reason the default "Interrupted by user"."""

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        await control.abort.wait()
        return ok(block["id"], "discarded")

    async def scenario() -> list[ToolRunOutcome]:
        ex = executor(run_one)
        ex.add_tool_use(tool_use(0))
        ex.add_tool_use(tool_use(1))
        await asyncio.sleep(0)
        ex.abort(reason)
        ex.finish_stream()
        return [o async for o in ex.results()]

    outcomes = run(scenario())
    message = reason.strip() or "Interrupted by user"
    assert [text_of(o) for o in outcomes] == [f"<tool_use_error>{message}</tool_use_error>"] * 2
    assert all(o.result.get("is_error") is True and o.synthetic for o in outcomes)


def test_results_end_only_after_an_interrupted_call_has_finished_its_cleanup():
    """CONC-1 (across turns): results() ends only after the task of an interrupted call has ended, so the
    next turn's calls never overlap it. The call ignores its abort event, is cancelled after the grace
    period and takes a while to clean up; results() waits for it (up to a second past the grace period)."""
    cleaned: list[str] = []

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)  # cleanup after the cancellation, past the grace period
            cleaned.append(block["id"])
            raise
        raise AssertionError("unreachable")

    async def scenario() -> list[ToolRunOutcome]:
        ex = executor(run_one, grace_period=0.1)
        ex.add_tool_use(tool_use(0))
        ex.finish_stream()
        await asyncio.sleep(0)
        ex.abort()
        outcomes = [o async for o in ex.results()]
        assert cleaned == ["toolu_000"], "results() ended while an interrupted call was still running"
        return outcomes

    outcomes = run(scenario())
    assert text_of(outcomes[0]) == "<tool_use_error>Interrupted by user</tool_use_error>"


@settings(max_examples=40, deadline=None)
@given(
    tool_use_id=st.one_of(
        st.sampled_from(("toolu_000", "", "x")), st.none(), st.integers(), st.text(max_size=8)
    ),
    name=st.one_of(st.sampled_from(("Bash", "")), st.none(), st.integers()),
)
def test_a_block_without_a_non_empty_string_id_and_a_string_name_is_refused(tool_use_id, name):
    """PAIR-1: a tool_use block is accepted only with a non-empty string id and a string name; any
    other block raises ValueError and nothing runs."""
    ran: list[object] = []

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        ran.append(block["id"])
        return ok(block["id"])

    valid = isinstance(tool_use_id, str) and tool_use_id != "" and isinstance(name, str)

    async def scenario() -> None:
        ex = executor(run_one)
        block: Any = {"type": "tool_use", "id": tool_use_id, "name": name, "input": {}}
        if valid:
            ex.add_tool_use(block)
        else:
            with pytest.raises(ValueError, match="non-empty string 'id' and a string 'name'"):
                ex.add_tool_use(block)
        ex.finish_stream()
        assert [o.result["tool_use_id"] for o in [o async for o in ex.results()]] == (
            [tool_use_id] if valid else []
        )

    run(scenario())
    assert ran == ([tool_use_id] if valid else [])


def test_duplicate_ids_are_refused():
    """PAIR-1: a second block with an id already added is refused; the batch is otherwise unaffected."""
    ran: list[str] = []

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        ran.append(block["id"])
        return ok(block["id"])

    async def scenario() -> list[ToolRunOutcome]:
        with pytest.raises(DuplicateToolUseIdError, match="toolu_000"):
            await executor(run_one).run_batch([tool_use(0), tool_use(0)])
        assert ran == []
        ex = executor(run_one)
        ex.add_tool_use(tool_use(0))
        with pytest.raises(DuplicateToolUseIdError, match="toolu_000"):
            ex.add_tool_use(tool_use(0))
        ex.finish_stream()
        return [o async for o in ex.results()]

    assert [o.result["tool_use_id"] for o in run(scenario())] == ["toolu_000"]


def test_bad_blocks_and_late_additions_are_errors():
    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        return ok(block["id"])

    async def scenario() -> None:
        ex = executor(run_one)
        with pytest.raises(ValueError, match="'id'"):
            ex.add_tool_use({"type": "tool_use", "name": "x", "input": {}})  # type: ignore[typeddict-item]
        ex.finish_stream()
        with pytest.raises(RuntimeError, match="after finish_stream"):
            ex.add_tool_use(tool_use(0))

    run(scenario())
    with pytest.raises(ValueError, match="call_timeout"):
        executor(run_one, call_timeout=0)


def test_a_predicate_that_raises_counts_as_not_concurrency_safe():
    """CONC-3: when is_concurrency_safe fails, the call is treated as unsafe (it runs alone)."""
    log: list[str] = []

    def broken(block: ToolUseBlockParam) -> bool:
        raise KeyError("no such input field")

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        log.append(f"start {block['id']}")
        await asyncio.sleep(0)
        log.append(f"end {block['id']}")
        return ok(block["id"])

    run(executor(run_one, is_concurrency_safe=broken).run_batch([tool_use(0), tool_use(1)]))
    assert log == ["start toolu_000", "end toolu_000", "start toolu_001", "end toolu_001"]


def test_run_one_type_is_accepted_by_the_executor():
    run_one: Callable[[ToolUseBlockParam, CallControl], Awaitable[ToolRunOutcome]]

    async def impl(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        return ok(block["id"], extra_blocks=({"type": "text", "text": "hook context"},))

    run_one = impl
    outcomes = run(executor(run_one).run_batch([tool_use(0)]))
    assert outcomes[0].extra_blocks == ({"type": "text", "text": "hook context"},)
