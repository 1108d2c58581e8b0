"""Frozen result replacements across requests and resume: RESULT-4."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
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
    scenario = ExecutionScenario(
        tools=specs,
        tool_uses=[
            {"type": "tool_use", "id": tool_use_id, "name": spec.name, "input": {}}
            for (tool_use_id, _), spec in zip(calls, specs, strict=True)
        ],
        recorder=CallRecorder(),
        cwd=session_dir.parent,
        session_dir=session_dir,
        rules=[RuleSpec(s.name, "allow") for s in specs],
    )
    result = asyncio.run(harness.execute(scenario))
    return {
        str(b["tool_use_id"]): canonical({k: v for k, v in b.items() if k != "cache_control"})
        for b in result.user_content
        if isinstance(b, Mapping) and b.get("type") == "tool_result"
    }


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
