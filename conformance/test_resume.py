"""Frozen result replacements across requests and resume: RESULT-4."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
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
