"""Running drawn wire scenarios under a budget: replay first, draw, shrink, keep and print what failed.

One drawn test (``test_wire_drawn.py``) is one Hypothesis search over a target: first the failing
scenarios of the replay file for this target and test (CI's profile has no example database: a
committed replay file is how a failure found once is run first next time), then up to
``examples`` drawn ones while the time budget lasts. Each distinct scenario runs once: its verdict is
kept, so Hypothesis's final replay of the shrunk example is the same run (a real CLI is not
deterministic enough to be asked twice). Past the budget no new scenario runs (it passes unrun),
which ends the drawing and the shrinking with the smallest failure found so far.

A failure names the shrunk scenario, adds it to the replay file and prints the one command that
runs it again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_toolharness import strategies as ths
from pytest_toolharness.wire.scenarios import CLAUDE_CODE_NAMES, DRAWN_FAULTS, DrawnFaults, DrawnScenario
from pytest_toolharness.wire.targets import TargetCutOff

__all__ = ["DrawnFailure", "faults_of", "oracle_cannot_run_touch", "read_replay", "run_drawn"]

Judge = Callable[[Any, DrawnScenario], tuple[list[str], list[str]]]


class DrawnFailure(AssertionError):
    """A drawn scenario the target failed: the scenario and the verdict's text.

    One subclass per way of failing (:func:`_failure_kind`): Hypothesis tells bugs apart by the
    exception's type, so each mechanism that got through is reported, and shrunk, on its own,
    rather than every failure shrinking to the simplest one.
    """

    def __init__(self, drawn: DrawnScenario, message: str) -> None:
        super().__init__(message)
        self.drawn = drawn


_KINDS: dict[str, type[DrawnFailure]] = {}


def _failure_kind(drawn: DrawnScenario, problems: list[str]) -> type[DrawnFailure]:
    """The failure's class, named for the first failing call's mechanism (or kind)."""
    origin = "run"
    for call_id, call in drawn.calls():
        if any(problem.startswith(call_id) for problem in problems):
            origin = call.mechanism or call.kind
            break
    if origin not in _KINDS:
        name = "DrawnFailure_" + "".join(c if c.isalnum() else "_" for c in origin)
        _KINDS[origin] = type(name, (DrawnFailure,), {"mechanism": origin})
    return _KINDS[origin]


def oracle_cannot_run_touch(line: str) -> str | None:
    """Why ``line`` can't run ``touch`` (the bash oracle ran it and saw none), or None.

    None too when the oracle can't run here: the line is then taken to run what it was composed to.
    """
    oracle = ths.bash_sandbox()
    if oracle is None:
        return None
    try:
        executed = oracle.running_for_real(ths.composed_real_programs()).executed(line)
    except RuntimeError:
        return None
    if any(record and record[0].rsplit("/", 1)[-1] == "touch" for record in executed):
        return None
    return f"the bash oracle, running {line[:120]!r}, saw no touch run: the line can't run it"


def faults_of(harness: Any) -> DrawnFaults:
    """The timeouts and interrupts the harness's target can express (the in-process adapter: the reference's)."""
    name = getattr(getattr(harness, "target", None), "name", "reference")
    return DRAWN_FAULTS.get(name, DrawnFaults())


def read_replay(path: Path | None, target: str, test: str) -> list[DrawnScenario]:
    """The scenarios of the replay file recorded for ``target`` and ``test``, oldest first.

    A line that is not a drawn scenario is a usage error naming the file and line.
    """
    if path is None or not path.is_file():
        return []
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if entry.get("target") == target and entry.get("test") == test:
                found.append(DrawnScenario.from_json(json.dumps(entry["scenario"])))
        except (ValueError, AttributeError, KeyError) as exc:
            raise pytest.UsageError(f"{path}:{number}: not a drawn wire scenario line: {exc}") from None
    return found


def _record(path: Path | None, target: str, test: str, drawn: DrawnScenario) -> None:
    if path is None:
        return
    line = json.dumps(
        {"target": target, "test": test, "scenario": json.loads(drawn.to_json())}, sort_keys=True
    )
    known = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    if line not in known:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def _leaves(group: BaseExceptionGroup[DrawnFailure]) -> list[DrawnFailure]:
    found: list[DrawnFailure] = []
    for exc in group.exceptions:
        found += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return found


def run_drawn(
    harness: Any,
    budget: Any,
    test: str,
    requirement: str,
    strategy: st.SearchStrategy[DrawnScenario],
    judge: Judge,
) -> None:
    """Replay, then draw ``strategy`` against ``harness``; fail on the shrunk failure, skip if nothing was exercised."""
    target = getattr(getattr(harness, "target", None), "name", "the target")
    verdicts: dict[str, tuple[list[str], list[str]]] = {}
    deadline = time.monotonic() + budget.seconds
    counts = {"run": 0, "exercised": 0, "cut_off": 0}
    reasons: dict[str, None] = {}  # why the runs that exercised nothing did not, in order

    def verdict(drawn: DrawnScenario, *, timed: bool) -> tuple[list[str], list[str]] | None:
        key = drawn.to_json()
        if key not in verdicts:
            if timed and time.monotonic() > deadline:
                return None
            names = getattr(harness, "names", CLAUDE_CODE_NAMES)
            scenario = drawn.scenario(names, name=f"{test}-{counts['run'] + 1}", faults=faults_of(harness))
            run = harness.run_wire(scenario)
            counts["run"] += 1
            if run.workdir is not None:  # beside the kept requests: what was drawn, as the replay file has it
                (run.workdir / "drawn.json").write_text(drawn.to_json() + "\n", encoding="utf-8")
            problems, unproven = judge(run, drawn)
            failure = run.failure()
            cut_off = run.cut_off()
            if (
                cut_off is not None
            ):  # slow, not hung: what it would have done is unknown, so nothing is judged
                problems, unproven = [], [cut_off]
                counts["cut_off"] += 1
            elif failure is not None and not problems:
                # Ended abnormally (Claude Code refuses bypassPermissions as root, exits 1 when plan
                # mode refused calls): what the checks judge was not shown, and is not blamed.
                unproven = [f"the run did not end normally: {failure.splitlines()[0][:300]}"]
            verdicts[key] = (problems, unproven)
            counts["exercised"] += not unproven
            if unproven:
                reasons.setdefault(unproven[-1], None)
        problems, unproven = verdicts[key]
        return (problems, []) if problems and not unproven else ([], unproven)

    def fail(failed: list[DrawnScenario], how: str) -> None:
        parts = []
        for drawn in failed:
            _record(budget.replay, target, test, drawn)
            parts.append(f"{drawn.describe()}\n- " + "\n- ".join(verdicts[drawn.to_json()][0]))
        command = f"toolharness check --target {budget.target or target} --requirement {requirement}"
        if budget.replay is not None:
            command += f" -- --toolharness-wire-replay {budget.replay}"
        plural = "s" if len(failed) > 1 else ""
        pytest.fail(
            f"{target} ({how} drawn scenario{plural}, {counts['run']} run):\n"
            + "\n\n".join(parts)
            + f"\nRun it again (the replay file runs it first): {command}",
            pytrace=False,
        )

    replayed = read_replay(budget.packaged, target, test) + read_replay(budget.replay, target, test)
    still = [d for d in dict.fromkeys(replayed) if (verdict(d, timed=False) or ([], []))[0]]
    if still:
        fail(still, "replayed")

    @settings(
        max_examples=budget.examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(strategy)
    def search(drawn: DrawnScenario) -> None:
        answer = verdict(drawn, timed=True)
        if answer is not None and answer[0]:
            raise _failure_kind(drawn, answer[0])(drawn, "\n".join(answer[0]))

    try:
        search()
    except DrawnFailure as exc:
        fail([exc.drawn], "a shrunk")
    except BaseExceptionGroup as group:  # Hypothesis found several distinct failures
        found, rest = group.split(DrawnFailure)
        if rest is not None or found is None:
            raise
        fail([e.drawn for e in _leaves(found)], "shrunk")
    if not counts["exercised"] and counts["run"] and counts["cut_off"] == counts["run"]:
        raise TargetCutOff(f"every drawn scenario run was cut off while still working: {next(iter(reasons))}")
    if not counts["exercised"]:
        why = "; ".join(list(reasons)[:2]) or "no scenario ran"
        pytest.skip(
            f"not checked: {target}: none of the {counts['run']} drawn scenarios run exercised {requirement} ({why})"
        )
