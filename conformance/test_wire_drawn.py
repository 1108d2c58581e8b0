"""Black-box conformance on scenarios Hypothesis draws: rules x commands x modes x batch shapes.

The fixed wire scenarios try one rule set, one batch shape and a list of spellings; these draw them
(``_strategies_wire``: the composing shell grammar's lines, deny and ask rules in every settings
source the target reads, every permission mode it takes, batches of parallel calls that fail, answer
slowly, carry an image or name no tool), run each against the target through the scripted model
server, and judge it with the fixed scenarios' checks (``judge_drawn_*``). The budget, the replay
file and the command that runs a failure again are ``_wire_drawn``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance._strategies_wire import drawn_scenarios
from conformance._wire_drawn import faults_of, oracle_cannot_run_touch, run_drawn
from pytest_toolharness.adapters import requires
from pytest_toolharness.wire import checks


def _roles(harness: Any) -> frozenset[str] | None:
    roles = getattr(harness, "roles", None)
    return frozenset(roles) if roles is not None else None


@requires("wire")
@pytest.mark.requirement("PERM-17", "MUST")
def test_drawn_refusals_hold_however_the_command_is_composed(
    new_harness: Callable[[], Any], toolharness_wire_budget: Any
) -> None:
    """PERM-17 (with PERM-1, PERM-4): a deny or ask rule on touch refuses every composed line running it.

    In any settings source, under any mode, in batches of parallel calls: no marker file, an error result.
    """
    harness = new_harness()
    roles = _roles(harness)
    if roles is not None and not {"shell_tool", "permission_rules"} <= roles:
        pytest.skip(f"not checked: {harness.target.name} takes no permission rules for its shell tool")
    run_drawn(
        harness,
        toolharness_wire_budget,
        "drawn-refusals",
        "PERM-17",
        drawn_scenarios(roles, refusing=True),
        lambda run, drawn: checks.judge_drawn_rules(run, drawn, oracle_cannot_run_touch),
    )


@requires("wire")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_drawn_batches_keep_every_call_paired(
    new_harness: Callable[[], Any], toolharness_wire_budget: Any
) -> None:
    """PAIR-2: in drawn batches of parallel calls, every call of an answered turn gets exactly one result.

    The batches: tools that raise, report errors, sleep, answer empty or with an image; unknown names;
    refused shell lines; and, where the target's protocol can express them (``DRAWN_FAULTS``), shell
    commands and MCP calls that outlive their timeout, whose results must be errors saying so (PAIR-3).
    """
    harness = new_harness()
    faults = faults_of(harness)
    run_drawn(
        harness,
        toolharness_wire_budget,
        "drawn-batches",
        "PAIR-2",
        drawn_scenarios(_roles(harness), refusing=False, faults=faults),
        checks.judge_drawn_pairing,
    )


@requires("wire")
@pytest.mark.requirement("CONC-5", "MUST")
def test_drawn_interrupts_start_no_call_after_the_abort(
    new_harness: Callable[[], Any], toolharness_wire_budget: Any
) -> None:
    """CONC-5 (with PAIR-2): SIGINT while a slow tool runs mid-batch: no call starts after it.

    The drawn batches go on after the slow tool (shell lines, MCP calls, later turns); a call that
    starts after the SIGINT (its marker's time, the MCP server's log) fails. What the harness sends
    on a next request must pair each call it cut off with one result; a harness that exits on
    SIGINT without one is "not observable" for that scenario (skipped with the reason when none was).
    """
    harness = new_harness()
    faults = faults_of(harness)
    if "sigint" not in faults.interrupts:
        pytest.skip(f"not checked: the target can't be interrupted: {faults.why}")
    run_drawn(
        harness,
        toolharness_wire_budget,
        "drawn-interrupts",
        "CONC-5",
        drawn_scenarios(_roles(harness), refusing=False, faults=faults, interrupting=True),
        checks.judge_drawn_interrupt,
    )
