"""Checks of a drawn wire scenario's run (:class:`~pytest_toolharness.wire.scenarios.DrawnScenario`).

The same judgements as the fixed scenarios': whether a shell command ran is read from the marker
file it creates (anywhere under the working directory: a drawn line may ``cd`` first), whether a
call was refused from its result, pairing from the requests (:func:`check_pairing`,
:func:`check_answered`). The proof that a run exercised the rules is the control's directory
(``mkdir``, which the drawn rules allow) or any shell marker: without it the run says nothing about
whether a refused command would have run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pytest_toolharness.wire.checks._evidence import offered
from pytest_toolharness.wire.checks._requests import check_answered, check_pairing, result_text, tool_results
from pytest_toolharness.wire.checks._runs import Judgement
from pytest_toolharness.wire.scenarios import DrawnScenario, drawn_call_id
from pytest_toolharness.wire.targets import REQUESTS_DIR

if TYPE_CHECKING:
    from pytest_toolharness.wire.targets import WireRun

__all__ = ["judge_drawn_pairing", "judge_drawn_rules", "marker_created"]


def marker_created(run: WireRun, marker: str) -> Path | None:
    """Where ``marker`` was created under the run's working directory (its requests aside), or None."""
    if run.workdir is None:
        return None
    for found in sorted(run.workdir.rglob(marker)):
        if REQUESTS_DIR not in found.relative_to(run.workdir).parts:
            return found
    return None


def _exercised(run: WireRun, drawn: DrawnScenario) -> list[str]:
    reasons = [] if offered(run, run.names.builtin("shell")) else ["the harness offers no shell tool"]
    markers = [c.marker for _, c in drawn.calls() if c.kind in ("shell", "control")]
    if not any(marker_created(run, m) is not None for m in markers):
        reasons.append(
            "no shell command of the scenario ran (no control directory, no marker): "
            "the shell tool was not shown to run anything under these rules"
        )
    return reasons


def judge_drawn_rules(run: WireRun, drawn: DrawnScenario) -> Judgement:
    """PERM-17 (and PERM-1, PERM-4): a command the drawn rules refuse never runs and its result is an error.

    Only when :meth:`DrawnScenario.catches_touch` says the rules refuse ``touch``; a run where no
    shell command ran at all is not exercised.
    """
    why = drawn.catches_touch()
    if why is None:
        return [], ["the drawn rules refuse nothing (no deny or ask rule names touch)"]
    unproven = _exercised(run, drawn)
    results = tool_results(run.requests)
    # Only the Messages API has an is_error flag; on the others (Gemini, Chat Completions) a refusal is
    # text saying so (PAIR-3), so there the marker alone judges.
    flagged = all(r.view is None for r in run.message_requests)
    problems = []
    for call_id, call in drawn.shell_calls():
        where = marker_created(run, call.marker)
        if where is not None:
            problems.append(
                f"{call_id}: {call.command!r} ran although {why}: "
                f"{where.relative_to(run.workdir) if run.workdir else where} exists"
            )
        blocks = results.get(call_id, [])
        if flagged and blocks and blocks[0].get("is_error") is not True:
            problems.append(
                f"{call_id}: {call.command!r}: its result is not an error: {result_text(blocks[0])[:160]!r}"
            )
    return problems, unproven


def judge_drawn_pairing(run: WireRun, drawn: DrawnScenario) -> Judgement:
    """PAIR-2: in every drawn batch (failures, unknown names, slow tools, refusals), each call gets one result.

    Exercised when the harness answered the first turn. The calls of a turn after the last one the
    harness answered are not asked for (the run may end early: a harness stops at a refusal).
    """
    answered = tool_results(run.requests)
    turn_of = {drawn_call_id(t, i): t for t, turn in enumerate(drawn.turns) for i in range(len(turn))}
    reached = max((turn_of[i] for i in answered if i in turn_of), default=-1)
    unproven = [] if reached >= 0 else ["the harness never answered the first drawn turn"]
    asked = [i for i, t in turn_of.items() if t <= reached]
    return check_pairing(run.requests) + check_answered(run.requests, asked), unproven
