"""Discovered tools survive compaction: DEFER-7."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import Session, builtin_specs, mcp_specs, wire_tool_names
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec


@requires("conversation")
@pytest.mark.requirement("DEFER-7", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    rounds=st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=3),
    data=st.data(),
)
def test_discovered_tools_survive_compaction(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    rounds: list[int],
    data: st.DataObject,
) -> None:
    """DEFER-7 property.

    DEFER-7: every tool a ToolSearch result referenced is discovered, stays discovered through one or more
    compactions, and is still in the tools array of the next request.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    for steps in rounds:
        for _ in range(steps):
            session.step(data, kinds=("search", "search", "call", "chat"))
        before = set(harness.discovered_tools())
        missed = sorted(session.discovered - before)
        assert not missed, (
            f"DEFER-7: referenced by tool_reference but not discovered: {missed}" + session.where()
        )
        harness.compact("Summary of the conversation so far.")
        session.log.append("compact()")
        after = set(harness.discovered_tools())
        lost = sorted(before - after)
        assert not lost, f"DEFER-7: compaction lost discovered tools {lost}" + session.where()
        session.conversation.chat()
        request = session.render()
        sent = set(wire_tool_names(request))
        absent = sorted(session.discovered - sent)
        assert not absent, (
            f"DEFER-7: discovered tools {absent} are missing from the request after compaction"
            + session.where()
        )
