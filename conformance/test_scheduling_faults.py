"""Scheduling under combined faults: CONC-4 when the failing shell call is one that timed out; CONC-1 across it.

``test_scheduling.py`` fails a shell call by raising; a call that runs past the call timeout has
failed too, and must cancel its shell siblings the same way (and more than one sibling at once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    NAMES,
    check_pairing,
    execute,
    is_error,
    ok_tool,
    scenario_root,
    tool_use,
)
from pytest_toolharness.adapters import CAPABILITIES, requires
from pytest_toolharness.specs import RuleSpec, ToolBehavior, ToolSpec

# Long enough that the calls meant to finish do so on a loaded machine; the hanging one waits it out.
CALL_TIMEOUT = 0.25


def _allow(tools: Sequence[ToolSpec], adapter: Any) -> list[RuleSpec]:
    """An allow rule per tool, unless the adapter says it has no permission engine (then none)."""
    if "permissions" in CAPABILITIES and "permissions" not in frozenset(getattr(adapter, "capabilities", ())):
        return []
    return [RuleSpec(t.name, "allow") for t in tools]


def _run_with_timeout(new_harness: Callable[[], Any], tools: Any, uses: Any, adapter: Any) -> Any:
    """One batch of ``uses`` with every tool allowed and the per-call timeout of these tests."""
    with scenario_root() as root:
        return execute(
            new_harness(), root, tools, uses, rules=_allow(tools, adapter), call_timeout=CALL_TIMEOUT
        )


@pytest.mark.toolharness_heavy
@requires("execution", "timeouts")
@pytest.mark.requirement("CONC-4", "MUST")
@settings(max_examples=4, deadline=None)
@given(siblings=st.integers(1, 3), position=st.integers(0, 3))
@example(siblings=2, position=0)
@example(siblings=3, position=1)
def test_timed_out_shell_call_cancels_shell_siblings(
    new_harness: Callable[[], Any], toolharness_adapter: Any, siblings: int, position: int
) -> None:
    """The CONC-4 property for a timeout, stated below.

    CONC-4: a shell call that runs past the call timeout has failed. The shell calls queued behind
    it (one to three; shell calls that are not concurrency safe run one at a time) never start and
    each gets an error result; the ones that finished before it keep their success.
    """
    count = siblings + 1
    position %= count
    tools = [
        ok_tool(
            NAMES[i],
            ToolBehavior("hang") if i == position else ToolBehavior("text", text=f"{NAMES[i]} done"),
            shell=True,
        )
        for i in range(count)
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(count)]
    run = _run_with_timeout(new_harness, tools, uses, toolharness_adapter)
    check_pairing(run)
    by_id = run.results_by_id()
    timed_out = uses[position]["id"]
    assert is_error(by_id[timed_out]), f"{timed_out} ran past the {CALL_TIMEOUT} s timeout but is no error"
    started = set(run.recorder.started())
    before = [u["id"] for u in uses[:position]]
    after = [u["id"] for u in uses[position + 1 :]]
    failed_early = [i for i in before if is_error(by_id[i])]
    assert not failed_early, (
        f"shell calls {failed_early} finished before {timed_out} timed out, yet got errors"
    )
    ran_on = [i for i in after if i in started or not is_error(by_id[i])]
    assert not ran_on, (
        f"shell call {timed_out} timed out, yet the shell calls queued behind it {ran_on} started or succeeded"
    )


@pytest.mark.toolharness_heavy
@requires("execution", "timeouts")
@pytest.mark.requirement("CONC-1", "MUST")
@settings(max_examples=4, deadline=None)
@given(
    ignores_abort=st.booleans(),
    behind=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=3),
    shell=st.booleans(),
)
@example(ignores_abort=True, behind=[(False, False)], shell=False)
@example(ignores_abort=True, behind=[(True, False), (False, True)], shell=True)
def test_timed_out_call_holds_its_slot_until_it_ends(
    new_harness: Callable[[], Any],
    toolharness_adapter: Any,
    ignores_abort: bool,
    behind: list[tuple[bool, bool]],
    shell: bool,
) -> None:
    """The CONC-1 property across a timeout, stated below.

    CONC-1: a call that is not concurrency safe runs past the call timeout; whether it ends when told
    to (a hang) or ignores its abort signal and runs on for a while (a sleep), the calls behind it
    (safe or not, shell-type or not) overlap it in no way while it is still running: the timeout
    answers the call, but frees its slot only when it has really ended.
    """
    slow = ToolBehavior("sleep", seconds=CALL_TIMEOUT + 0.35) if ignores_abort else ToolBehavior("hang")
    tools = [ok_tool(NAMES[0], slow, shell=shell)]
    tools += [
        ok_tool(NAMES[i], ToolBehavior("text", text="done"), concurrency_safe=s, read_only=s, shell=sh)
        for i, (s, sh) in enumerate(behind, start=1)
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(tools))]
    run = _run_with_timeout(new_harness, tools, uses, toolharness_adapter)
    check_pairing(run)
    assert is_error(run.results_by_id()["toolu_00"]), "the call past the timeout is no error"
    overlaps = [pair for pair in run.recorder.overlapping_pairs() if "toolu_00" in pair]
    assert not overlaps, (
        f"calls started while the timed-out call (which {'ignores' if ignores_abort else 'obeys'} its "
        f"abort) was still running: {overlaps}"
    )
    # Shell calls behind a timed-out shell call are cancelled (CONC-4); every other call runs.
    cancelled = {u["id"] for u, (_, sh) in zip(uses[1:], behind, strict=True) if sh and shell}
    missing = {u["id"] for u in uses[1:]} - cancelled - set(run.recorder.started())
    assert not missing, f"calls {sorted(missing)} behind the timed-out call never ran"
