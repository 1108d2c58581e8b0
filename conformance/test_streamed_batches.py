"""CONC-4 across a streamed batch: a shell failure is remembered for the whole batch.

The tool_use blocks of one assistant message stream in; some arrive only after a shell call of the
batch has failed (capability ``streamed_tool_uses``). Composed: where the failure falls in the batch,
how it fails, which calls are shell calls, and which arrive at once or after the failure.
"""

from __future__ import annotations

from collections.abc import Callable
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
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolBehavior

# A call after the failing one: (a shell call?, streams in after the failure?, concurrency safe?).
LATER_CALLS = st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=4)


@requires("execution", "streamed_tool_uses")
@pytest.mark.requirement("CONC-4", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    before=st.lists(st.booleans(), max_size=2),
    later=LATER_CALLS,
    channel=st.sampled_from(["raise", "error_result"]),
    message=st.sampled_from(["exit status 1", ""]),
)
@example(before=[], later=[(True, True, False)], channel="raise", message="exit status 1")
@example(before=[True], later=[(False, True, True), (True, True, True)], channel="error_result", message="")
def test_a_shell_failure_holds_for_calls_streamed_in_later(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    before: list[bool],
    later: list[tuple[bool, bool, bool]],
    channel: str,
    message: str,
) -> None:
    """CONC-4: after a shell call fails, no shell call of the same batch starts, however late it streams in; other calls run on.

    A later call may be concurrency safe (a read-only shell command) or not. Property: calls that ended before the failure keep their success; a shell call present but not
    started, or streamed in after the failure, never starts and gets an error result; a call that is
    not a shell call runs and succeeds whether it was present or streamed in later.
    """
    tools, uses, streamed = [], [], {}
    failing = len(before)
    for i, shell in enumerate(before):
        tools.append(ok_tool(NAMES[i], ToolBehavior("text", text="done before"), shell=shell))
    tools.append(ok_tool(NAMES[failing], ToolBehavior(channel, message=message), shell=True))  # type: ignore[arg-type]
    failed_id = f"toolu_{failing:02d}"
    for j, (shell, late, safe) in enumerate(later):
        i = failing + 1 + j
        tools.append(
            ok_tool(
                NAMES[i], ToolBehavior("text", text="ran"), shell=shell, concurrency_safe=safe, read_only=safe
            )
        )
        if late:
            streamed[f"toolu_{i:02d}"] = failed_id
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(tools))]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            tools,
            uses,
            rules=allow_rules(tools, toolharness_capabilities),
            streamed_after_end=streamed,
        )
    check_pairing(run)
    by_id = run.results_by_id()
    started = set(run.recorder.started())
    assert is_error(by_id[failed_id]), f"the failing shell call ({channel}) has no error result"
    for i in range(failing):
        assert not is_error(by_id[f"toolu_{i:02d}"]), (
            f"toolu_{i:02d} ended before the failure but got an error"
        )
    for j, (shell, late, _safe) in enumerate(later):
        call_id = f"toolu_{failing + 1 + j:02d}"
        how = f"{'shell' if shell else 'non-shell'} call {call_id} {'streamed in after' if late else 'present at'} the failure of {failed_id}"
        if shell:
            assert call_id not in started, f"{how} started: the failure must hold for the whole batch"
            assert is_error(by_id[call_id]), f"{how} did not run but got no error result: {by_id[call_id]}"
        else:
            assert call_id in started, f"{how} never ran: only shell siblings are cancelled"
            assert not is_error(by_id[call_id]), f"{how} failed: {by_id[call_id]}"
