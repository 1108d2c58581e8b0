"""Frozen result replacements across requests and resume: RESULT-4."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import canonical, message_blocks
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import (
    CallRecorder,
    ExecutionScenario,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
    WireRequest,
)


def _results(request: WireRequest, ids: list[str]) -> dict[str, str]:
    """The wire text of each tool_result block with one of ``ids`` (without its cache marker)."""
    found: dict[str, str] = {}
    for block in message_blocks(request):
        if block.get("type") == "tool_result" and block.get("tool_use_id") in ids:
            found[str(block["tool_use_id"])] = canonical(
                {k: v for k, v in block.items() if k != "cache_control"}
            )
    return found


@requires("conversation", "execution", "result_persistence", "permissions")
@pytest.mark.requirement("RESULT-4", "MUST")
@settings(max_examples=8, deadline=None)
@given(
    sizes=st.lists(st.sampled_from([10, 2_000, 60_000, 120_000]), min_size=1, max_size=3),
    renders=st.integers(min_value=1, max_value=3),
)
def test_replacements_frozen_across_requests_and_resume(
    new_harness: Callable[[], Any], sizes: list[int], renders: int
) -> None:
    """RESULT-4 property.

    RESULT-4: after a batch with results over 50,000 characters, every later request and every request of the
    resumed session send byte-identical tool_result blocks for those tool_use ids.
    """
    if 60_000 not in sizes and 120_000 not in sizes:
        sizes = [*sizes, 60_000]
    harness = new_harness()
    specs = [
        ToolSpec(
            name=f"Dump{i}",
            description="Dumps a lot.",
            read_only=True,
            behavior=ToolBehavior(kind="text", chars=size, fill="abcdefghij\n"),
        )
        for i, size in enumerate(sizes)
    ]
    harness.set_tools(specs, [])
    harness.append_message({"role": "user", "content": "Dump everything."})
    ids = [f"toolu_dump_{i}" for i in range(len(specs))]
    tool_uses = [
        {"type": "tool_use", "id": i, "name": s.name, "input": {}} for i, s in zip(ids, specs, strict=True)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=specs,
            tool_uses=tool_uses,
            recorder=CallRecorder(),
            cwd=Path(tmp),
            session_dir=Path(tmp) / "s",
            # Allowed by rule: without it nobody can be asked, every call is denied and nothing is large.
            rules=[RuleSpec(s.name, "allow") for s in specs],
        )
        result = asyncio.run(harness.execute(scenario))
        assert sorted(scenario.recorder.started()) == sorted(ids), (
            f"RESULT-4: the calls allowed by rule did not all run: {scenario.recorder.started()} of {ids}"
        )
        answered = {
            str(b["tool_use_id"]): canonical({k: v for k, v in b.items() if k != "cache_control"})
            for b in result.user_content
            if isinstance(b, Mapping) and b.get("type") == "tool_result"
        }
        first = _results(harness.render_request(), ids)
        assert set(first) == set(ids), (
            f"RESULT-4: the request lacks tool_results for {sorted(set(ids) - set(first))}"
        )
        for tool_use_id in ids:
            assert first[tool_use_id] == answered.get(tool_use_id), (
                f"RESULT-4: the request re-decided the result of {tool_use_id}: execute() answered "
                f"{answered.get(tool_use_id, '')[:200]!r}..., the request sends {first[tool_use_id][:200]!r}..."
            )
        sessions = [("same session", harness)]
        for _ in range(renders):
            sessions.append(("same session", harness))
        sessions.append(("resumed session", harness.resume()))
        sessions.append(("resumed twice", sessions[-1][1].resume()))
        for label, session in sessions:
            later = _results(session.render_request(), ids)
            changed = sorted(i for i in ids if later.get(i) != first[i])
            assert not changed, (
                f"RESULT-4: in the {label}, the tool_result bytes of {changed} differ from the first request: "
                + "; ".join(
                    f"{i}: {first[i][:120]!r} -> {later.get(i, '<missing>')[:120]!r}" for i in changed
                )
            )


# Under the per-tool limit (50,000) each, so only the per-message budget (200,000) replaces them.
BUDGET_SIZES = st.sampled_from([10, 30_000, 45_000, 49_000])


@st.composite
def batch_sequences(draw: st.DrawFn) -> list[list[tuple[str, int]]]:
    """2-3 batches of (tool_use id, result size): ids new or repeated from earlier batches.

    A repeated id is the model answering under an id it used before: its decision (replaced, or sent
    inline) was made once and holds for that id forever.
    """
    batches: list[list[tuple[str, int]]] = []
    used: list[str] = []
    for b in range(draw(st.integers(2, 3))):
        batch: list[tuple[str, int]] = []
        for i in range(draw(st.integers(1, 6))):
            fresh = f"toolu_b{b}_{i}"
            earlier = [u for u in used if u not in {t for t, _ in batch}]
            repeat = bool(earlier) and draw(st.booleans())
            batch.append((draw(st.sampled_from(earlier)) if repeat else fresh, draw(BUDGET_SIZES)))
        used.extend(t for t, _ in batch if t not in used)
        batches.append(batch)
    return batches


def _text(result: Mapping[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content or () if isinstance(b, Mapping))


def _fill(b: int, i: int) -> str:
    return f"batch {b} part {i}\n"


def _dump_scenario(specs: list[ToolSpec], ids: list[str], session_dir: Path) -> ExecutionScenario:
    """One batch: call ``ids[i]`` of tool ``specs[i]``, every tool allowed."""
    return ExecutionScenario(
        tools=specs,
        tool_uses=[
            {"type": "tool_use", "id": tool_use_id, "name": spec.name, "input": {}}
            for tool_use_id, spec in zip(ids, specs, strict=True)
        ],
        recorder=CallRecorder(),
        cwd=session_dir.parent,
        session_dir=session_dir,
        rules=[RuleSpec(spec.name, "allow") for spec in specs],
    )


def _run_batches(
    harness: Any, batches: list[list[tuple[str, int]]], session_dir: Path, resume_before: set[int]
) -> list[list[dict[str, Any]]]:
    """Each batch's user content, resuming the session before the batches in ``resume_before``."""
    answered = []
    for b, batch in enumerate(batches):
        if b in resume_before:
            harness = harness.resume()
        specs = [
            ToolSpec(
                name=f"Dump{i}",
                description="Dumps a lot.",
                read_only=True,
                behavior=ToolBehavior(kind="text", chars=size, fill=_fill(b, i)),
            )
            for i, (_, size) in enumerate(batch)
        ]
        harness.set_tools(specs, [])
        harness.append_message({"role": "user", "content": f"Dump batch {b}."})
        scenario = _dump_scenario(specs, [t for t, _ in batch], session_dir)
        answered.append(list(asyncio.run(harness.execute(scenario)).user_content))
    return answered


# One call's output: text, or a list of two text blocks (a shape that is not a plain string), of a size
# below the per-tool limit (inline), just past it (persisted), or large enough that a few of them pass
# the per-message budget together.
@dataclass(frozen=True)
class Output:
    """What a call returns: ``size`` characters, as text or as two text blocks."""

    size: int
    blocks: bool

    def behavior(self) -> ToolBehavior:
        if not self.blocks:
            return ToolBehavior(kind="text", chars=self.size, fill="abcdefghij\n")
        half = self.size // 2
        return ToolBehavior(
            kind="json",
            value=[{"type": "text", "text": "k" * half}, {"type": "text", "text": "l" * (self.size - half)}],
        )


OUTPUTS = st.builds(Output, st.sampled_from([10, 30_000, 45_000, 49_000, 50_001]), st.booleans())
PER_TOOL_LIMIT = 50_000


def _run_batch(harness: Any, calls: list[tuple[str, Output]], session_dir: Path) -> dict[str, str]:
    """Execute one batch (each call its own tool) and return each id's tool_result bytes."""
    specs = [
        ToolSpec(
            name=f"Dump{index}",
            description="Dumps a lot.",
            read_only=True,
            behavior=output.behavior(),
            max_result_size_chars=PER_TOOL_LIMIT,
        )
        for index, (_, output) in enumerate(calls)
    ]
    harness.set_tools(specs, [])
    scenario = _dump_scenario(specs, [tool_use_id for tool_use_id, _ in calls], session_dir)
    result = asyncio.run(harness.execute(scenario))
    return {
        str(b["tool_use_id"]): canonical({k: v for k, v in b.items() if k != "cache_control"})
        for b in result.user_content
        if isinstance(b, Mapping) and b.get("type") == "tool_result"
    }


@requires("conversation", "execution", "result_persistence", "permissions")
@pytest.mark.requirement("RESULT-4", "MUST")
@settings(max_examples=12, deadline=None)
@given(batches=batch_sequences(), resumes=st.sets(st.integers(1, 2), min_size=1))
@example(
    batches=[
        [(f"toolu_b0_{i}", 45_000) for i in range(5)],
        [*((f"toolu_b0_{i}", 45_000) for i in range(1, 5)), ("toolu_b1_0", 45_000)],
    ],
    resumes={1},
)
def test_budget_decisions_are_the_same_with_or_without_resume(
    new_harness: Callable[[], Any], batches: list[list[tuple[str, int]]], resumes: set[int]
) -> None:
    """RESULT-4: the per-message budget decides each tool_use id once; a resumed session decides exactly as the session that was never interrupted.

    Differential: the same batches (results near the per-tool limit, so that their sum crosses the
    message budget; ids new or repeated from earlier batches) run once straight through and once
    with the session resumed from its transcript before some batches. Every batch's user content is
    byte-identical: a result sent inline stays inline, a replaced one keeps its replacement.
    """
    assume(any(0 < b < len(batches) for b in resumes))
    with tempfile.TemporaryDirectory() as tmp:
        session_dir = Path(tmp) / "s"
        straight = _run_batches(new_harness(), batches, session_dir, set())
        shutil.rmtree(session_dir, ignore_errors=True)
        resumed = _run_batches(new_harness(), batches, session_dir, resumes)
    decided: dict[str, str | None] = {}  # per id: its replacement text, or None when sent inline
    for b, batch in enumerate(batches):
        texts = {
            str(r["tool_use_id"]): _text(r)
            for r in straight[b]
            if isinstance(r, Mapping) and r.get("type") == "tool_result"
        }
        for i, (tool_use_id, size) in enumerate(batch):
            output = ToolBehavior(kind="text", chars=size, fill=_fill(b, i)).output_text()
            now = None if texts[tool_use_id] == output else texts[tool_use_id]
            if tool_use_id in decided:
                assert now == decided[tool_use_id], (
                    f"RESULT-4: {tool_use_id} was {'sent inline' if decided[tool_use_id] is None else 'replaced'} "
                    f"before; in batch {b} it is {'inline' if now is None else 'replaced'} ({(now or '')[:120]!r})"
                )
            decided.setdefault(tool_use_id, now)
    for b, (one, other) in enumerate(zip(map(canonical, straight), map(canonical, resumed), strict=True)):
        assert one == other, (
            f"RESULT-4: batch {b} ({batches[b]}) is answered differently after resuming before "
            f"batches {sorted(resumes)}: {one[:300]!r}... vs {other[:300]!r}..."
        )


@requires("conversation", "execution", "result_persistence", "permissions")
@pytest.mark.requirement("RESULT-4", "MUST")
@settings(max_examples=10, deadline=None)
@given(
    first=st.lists(OUTPUTS, min_size=1, max_size=3),
    again=st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True),
    fresh=st.lists(OUTPUTS, min_size=0, max_size=4),
    resumes=st.integers(0, 2),
    compacted=st.booleans(),
)
@example(
    first=[Output(49_000, False)], again=[0], fresh=[Output(45_000, False)] * 4, resumes=1, compacted=False
)
@example(first=[Output(49_000, True)], again=[0], fresh=[Output(45_000, True)] * 4, resumes=0, compacted=True)
@example(
    first=[Output(10, False), Output(49_000, True)],
    again=[1],
    fresh=[Output(45_000, False)] * 4,
    resumes=2,
    compacted=True,
)
def test_sent_results_keep_their_bytes_in_later_budget_passes(
    new_harness: Callable[[], Any],
    first: list[Output],
    again: list[int],
    fresh: list[Output],
    resumes: int,
    compacted: bool,
) -> None:
    """RESULT-4 property: once a tool_result's bytes were sent, no later budget pass changes them.

    A first batch is sent (its results inline, persisted by the per-tool limit, or as text blocks);
    then (after a compaction or not), in the same session or one resumed ``resumes`` times, a later
    batch answers some of those ids again (the same output: a replayed call) beside fresh calls that
    together may pass the per-message budget. RESULT-4: every id answered again gets exactly the bytes it was sent with
    (its decision, inline or replaced, is frozen per id, and a resumed session rebuilds it, inline
    results included); and the resumed session decides the whole later batch byte for byte as the
    session that was never resumed does.
    """
    again = [index for index in again if index < len(first)] or [0]
    first_calls = [(f"toolu_first_{i}", output) for i, output in enumerate(first)]
    later_calls = [first_calls[i] for i in again] + [(f"toolu_fresh_{i}", o) for i, o in enumerate(fresh)]
    with tempfile.TemporaryDirectory() as tmp:
        session_dir = Path(tmp) / "session"
        harness = new_harness()
        harness.append_message({"role": "user", "content": "Dump everything."})
        sent = _run_batch(harness, first_calls, session_dir)
        if compacted:
            harness.compact("The dumps so far.")
        resumed = harness
        for _ in range(resumes):
            resumed = resumed.resume()
        later = _run_batch(resumed, later_calls, session_dir)
        for tool_use_id, _ in later_calls[: len(again)]:
            assert later[tool_use_id] == sent[tool_use_id], (
                f"RESULT-4: after {resumes} resume(s), {tool_use_id}'s result was re-decided: sent as "
                f"{sent[tool_use_id][:160]!r}..., now {later[tool_use_id][:160]!r}..."
            )
        if resumes:
            unresumed = _run_batch(harness, later_calls, session_dir)
            assert later == unresumed, (
                f"RESULT-4: the resumed session decides the later batch unlike the session it came from: "
                f"{sorted(i for i in later if later[i] != unresumed.get(i))}"
            )
