"""Checks of a drawn wire scenario's run (:class:`~pytest_toolharness.wire.scenarios.DrawnScenario`).

The same judgements as the fixed scenarios': whether a shell command ran is read from the marker
file it creates (anywhere under the working directory: a drawn line may ``cd`` first), whether a
call was refused from its result, pairing from the requests (:func:`check_pairing`,
:func:`check_answered`). The proof that a run exercised the rules is the control's directory
(``mkdir``, which the drawn rules allow) or any shell marker: without it the run says nothing about
whether a refused command would have run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_toolharness.wire.checks._evidence import offered
from pytest_toolharness.wire.checks._requests import (
    check_answered,
    check_pairing,
    is_unsent_at_end,
    result_text,
    tool_results,
)
from pytest_toolharness.wire.checks._runs import Judgement
from pytest_toolharness.wire.scenarios import (
    DRAWN_MCP_KINDS,
    INTERRUPTED_TOOL,
    SHELL_SLEEP_SECONDS,
    DrawnCall,
    DrawnScenario,
    drawn_call_id,
)
from pytest_toolharness.wire.targets import REQUESTS_DIR

if TYPE_CHECKING:
    from pytest_toolharness.wire.targets import WireRun

__all__ = ["judge_drawn_interrupt", "judge_drawn_pairing", "judge_drawn_rules", "marker_created"]

# A start this soon after the SIGINT is not blamed: file time granularity, a process's start-up,
# a timed line's sleep overrunning. The interrupted call had been running 0.5 s (INTERRUPT_DELAY).
_CLOCK_MARGIN = 0.25


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


def judge_drawn_rules(
    run: WireRun, drawn: DrawnScenario, cannot_run_touch: Callable[[str], str | None] | None = None
) -> Judgement:
    """PERM-17 (and PERM-1, PERM-4): a command the drawn rules refuse never runs and its result is an error.

    Only when :meth:`DrawnScenario.catches_touch` says the rules refuse ``touch``; a run where no
    shell command ran at all is not exercised. ``cannot_run_touch(line)`` says why a line can't run
    ``touch`` at all (the bash oracle's word) or None: an allowed line it clears is no finding (a
    carrier mined from a manual page may run nothing); without it every drawn line is taken to run
    what it was composed to.
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
            continue
        blocks = results.get(call_id, [])
        if flagged and blocks and blocks[0].get("is_error") is not True:
            # Allowed, and touch did not run: a finding only if the line can run touch at all (a
            # carrier mined from a manual page may not run anything); bash, not the grammar, says so.
            cannot = cannot_run_touch(call.carried or call.command) if cannot_run_touch else None
            if cannot is not None:
                unproven.append(f"{call_id}: allowed, but {cannot}")
                continue
            problems.append(
                f"{call_id}: {call.command!r}: its result is not an error: {result_text(blocks[0])[:160]!r}"
            )
    return problems, unproven


def judge_drawn_pairing(run: WireRun, drawn: DrawnScenario) -> Judgement:
    """PAIR-2: in every drawn batch (failures, unknown names, slow tools, refusals, timeouts), each call gets one result.

    A call that outlived its timeout must also have an error result saying so (PAIR-3,
    :func:`_judge_timeouts`). Exercised when the harness answered the first turn. The calls of a
    turn after the last one the harness answered are not asked for (the run may end early: a
    harness stops at a refusal).
    """
    asked, unproven = _asked(run, drawn)
    broken = _judge_broken_stream(run, drawn)
    if broken:  # seen whatever else the run shows: a call ran and its result never came
        return broken + check_pairing(run.requests), []
    # A run that ends after a turn's calls (a harness stops at a refusal) sends no request that could carry
    # their results: not observable on the wire, so not blamed (as for an exit on SIGINT), and not a pass.
    pairing = check_pairing(run.requests)
    ended = [p for p in pairing if is_unsent_at_end(p)]
    pairing = [p for p in pairing if p not in ended]
    problems = pairing + check_answered(run.requests, asked) + _judge_timeouts(run, drawn)
    unproven = [*unproven, *(f"not observable: {p} (the run ended there)" for p in ended)]
    return problems, unproven


def _ran(run: WireRun, drawn: DrawnScenario, call: DrawnCall) -> bool:
    """Whether ``call`` is seen to have run: its marker, or (an MCP kind called once in the scenario) its server's log."""
    if call.kind in ("shell", "control"):
        return marker_created(run, call.marker) is not None
    if call.kind in DRAWN_MCP_KINDS and sum(c.kind == call.kind for _, c in drawn.calls()) == 1:
        return any(e.get("event") == "start" and e.get("tool") == call.kind for e in run.mcp_calls)
    return False


def _judge_broken_stream(run: WireRun, drawn: DrawnScenario) -> list[str]:
    """PAIR-2: a call the harness ran from a turn whose stream broke mid-way gets exactly one result.

    The blocks before the break arrived whole (the turn's text first, then its calls in order); a
    harness may run them, discard them and retry (the retry is answered whole, with the same ids),
    or not run them, or end the run with an error; but a call that ran is owed one result in the
    conversation that follows, and a run that ends as if the turn were whole owes it too.
    """
    if drawn.interrupt not in ("stream_cut", "stream_error"):
        return []
    broke = next((r.index for r in run.message_requests if r.turn is not None and r.turn.fault), None)
    later = broke is not None and any(r.index > broke for r in run.message_requests)
    if not later and run.outcome.exit_code != 0:
        # It ended on the broken stream with an error: it owed no next request (nothing to judge).
        return []
    results = tool_results(run.requests)
    problems = []
    for i, call in enumerate(drawn.turns[drawn.interrupt_turn]):
        call_id = drawn_call_id(drawn.interrupt_turn, i)
        count = len(results.get(call_id, []))
        if i + 1 < drawn.interrupt_after and count != 1 and _ran(run, drawn, call):
            problems.append(
                f"{call_id}: a {call.kind} call ran from turn {drawn.interrupt_turn + 1}, whose stream broke "
                f"({drawn.interrupt} after {drawn.interrupt_after} blocks), but got {count} tool_result blocks, "
                "expected exactly 1 (the model was never told what it did)"
            )
    return problems


def _asked(run: WireRun, drawn: DrawnScenario) -> tuple[list[str], list[str]]:
    """The ids of every call up to the last turn the harness answered; why nothing is, if it answered none."""
    answered = tool_results(run.requests)
    turn_of = {drawn_call_id(t, i): t for t, turn in enumerate(drawn.turns) for i in range(len(turn))}
    reached = max((turn_of[i] for i in answered if i in turn_of), default=-1)
    unproven = [] if reached >= 0 else ["the harness never answered the first drawn turn"]
    # The calls past a broken stream's break reached the harness only if a retry was answered whole.
    delivered = {
        b.id
        for r in run.message_requests
        if r.turn is not None and r.turn.fault is None
        for b in r.turn.tool_uses
    }
    unsent = set()
    if drawn.interrupt in ("stream_cut", "stream_error"):
        turn = drawn.turns[drawn.interrupt_turn]
        unsent = {
            drawn_call_id(drawn.interrupt_turn, i)
            for i in range(max(drawn.interrupt_after - 1, 0), len(turn))
        }
    return [i for i, t in turn_of.items() if t <= reached and (i not in unsent or i in delivered)], unproven


def judge_drawn_interrupt(run: WireRun, drawn: DrawnScenario) -> Judgement:
    """CONC-5 (with PAIR-2): after SIGINT mid-batch no call starts, and each call it cut off gets one result.

    Not exercised when the SIGINT was never sent (the slow tool never ran). A harness may exit on
    SIGINT before it can send the interrupted turn's results: then what it owed is not observable
    (neither a failure nor a pass) unless a call started after the abort; what it sent on a next
    request is judged.
    """
    interrupted_at = run.outcome.interrupted_at
    if interrupted_at is None:
        return [], [f"not interrupted: no {INTERRUPTED_TOOL} call ran, so the SIGINT was never sent"]
    asked, unproven = _asked(run, drawn)
    turn = drawn.interrupted_turn()
    answered_turn = turn is not None and any(i == drawn_call_id(turn, 0) for i in asked)
    # The request the harness never sent is not blamed on it: an exit on SIGINT may be how it stops.
    pairing = [p for p in check_pairing(run.requests) if not is_unsent_at_end(p)]
    problems = _judge_interrupt(run, drawn, interrupted_at) + pairing + check_answered(run.requests, asked)
    if problems or answered_turn:
        return problems, []
    return [], [
        *unproven,
        f"not observable: the harness got SIGINT during turn {(turn or 0) + 1} and sent no request with that "
        "turn's results (it exited, or ended the run), so whether each call it cut off got one result is unseen",
    ]


def _judge_timeouts(run: WireRun, drawn: DrawnScenario) -> list[str]:
    """PAIR-3: a call that outlived its timeout and was answered has an error result with text.

    The call did not finish when its effect is missing: a ``shell_timeout`` line's directory (made
    only after its sleep), a ``d_hang`` call's ``ok`` end in the MCP server's log (a refused call
    did not finish either, and its result is an error as well). A call whose
    harness ignored the timeout and let it finish is not a timeout, and is not judged here.
    """
    results = tool_results(run.requests)
    flagged = all(r.view is None for r in run.message_requests)
    finished_mcp = {
        e.get("call") for e in run.mcp_calls if e.get("event") == "end" and e.get("outcome") == "ok"
    }
    hang_calls = [
        e.get("call") for e in run.mcp_calls if e.get("event") == "start" and e.get("tool") == "d_hang"
    ]
    hang_ids = iter(i for i, call in drawn.calls() if call.kind == "d_hang")
    unfinished: set[str] = set()
    for number in hang_calls:  # the server numbers the calls as they start, in the batch's order
        call_id = next(hang_ids, None)
        if call_id is not None and number not in finished_mcp:
            unfinished.add(call_id)
    problems = []
    for call_id, call in drawn.calls():
        blocks = results.get(call_id, [])
        if call.kind == "shell_timeout" and blocks and marker_created(run, call.marker) is None:
            unfinished.add(call_id)
        if call_id not in unfinished or not blocks:
            continue
        text = result_text(blocks[0])
        if flagged and blocks[0].get("is_error") is not True:
            problems.append(
                f"{call_id}: PAIR-3: a {call.kind} call that did not finish (its timeout passed) got a result that is not "
                f"an error (is_error={blocks[0].get('is_error')!r}): {text[:200]!r}"
            )
        if not text.strip():
            problems.append(
                f"{call_id}: a {call.kind} call that timed out got a result with no text saying so"
            )
    return problems


def _judge_interrupt(run: WireRun, drawn: DrawnScenario, interrupted_at: float) -> list[str]:
    """CONC-5: after the SIGINT no call of the interrupted batch starts: no shell marker, no MCP call.

    A plain composed line makes its marker as it starts; a ``shell_timeout`` line makes its directory
    ``SHELL_SLEEP_SECONDS`` after it starts. A margin of :data:`_CLOCK_MARGIN` seconds covers file
    time granularity and start-up (the interrupt's shell lines are plain ``touch``). A harness whose
    session goes on after the interrupt (as Claude Code's does) runs the later turns' calls: those
    it was sent may start after the SIGINT (an MCP call is known by its start, not its turn, so as
    many starts as it was sent later MCP calls are not counted).
    """
    interrupted_turn = drawn.interrupted_turn() or 0
    problems = []
    for t, turn in enumerate(drawn.turns[: interrupted_turn + 1]):
        for i, call in enumerate(turn):
            if call.kind not in ("shell", "control", "shell_timeout"):
                continue
            where = marker_created(run, call.marker)
            if where is None:
                continue
            started = where.lstat().st_mtime - (SHELL_SLEEP_SECONDS if call.kind == "shell_timeout" else 0)
            if started > interrupted_at + _CLOCK_MARGIN:
                problems.append(
                    f"{drawn_call_id(t, i)}: {call.command!r} started {started - interrupted_at:.2f} s after the "
                    "harness got SIGINT (after an abort no call of its batch may start)"
                )
    later_mcp = {
        drawn_call_id(t, i)
        for t, turn in enumerate(drawn.turns)
        for i, call in enumerate(turn)
        if t > interrupted_turn and call.kind not in ("shell", "control", "shell_timeout")
    }
    sent_later = sum(
        1 for r in run.message_requests if r.turn is not None for b in r.turn.tool_uses if b.id in later_mcp
    )
    late = [
        e
        for e in run.mcp_calls
        if e.get("event") == "start" and float(e.get("time", 0)) > interrupted_at + _CLOCK_MARGIN
    ]
    for event in late[: max(len(late) - sent_later, 0)]:
        problems.append(
            f"the MCP tool {event.get('tool')!r} was called {float(event['time']) - interrupted_at:.2f} s "
            "after the harness got SIGINT (after an abort no call of its batch may start)"
        )
    return problems
