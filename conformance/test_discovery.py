"""Discovered tools survive compaction (DEFER-7), and no tool_result loses its tool_use to it (PAIR-1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import Session, builtin_specs, mcp_specs, wire_tool_names
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec
from pytest_toolharness.wire import validate_messages_request

Conversation = tuple[list[ToolSpec], list[ToolSpec], list[int]]


@st.composite
def conversations(draw: st.DrawFn, least: int, most: int) -> Conversation:
    """Built-in and MCP tools, and 1-3 rounds of ``least``-``most`` steps, each round ended by a compaction."""
    rounds = draw(st.lists(st.integers(min_value=least, max_value=most), min_size=1, max_size=3))
    return draw(builtin_specs()), draw(mcp_specs(min_size=1)), rounds


@requires("conversation")
@pytest.mark.requirement("DEFER-7", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(conversation=conversations(0, 3), json_messages=st.booleans(), data=st.data())
def test_discovered_tools_survive_compaction(
    new_harness: Callable[[], Any], conversation: Conversation, json_messages: bool, data: st.DataObject
) -> None:
    """DEFER-7 property.

    DEFER-7: every tool a ToolSearch result referenced is discovered, stays discovered through one or more
    compactions, and is still in the tools array of the next request; also when the messages come
    decoded from JSON (a resumed transcript: equal strings, not the suite's objects).
    """
    builtins, mcps, rounds = conversation
    harness = new_harness()
    session = Session(harness, builtins, mcps, json_messages=json_messages)
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


@requires("conversation")
@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=30, deadline=None)
@given(conversation=conversations(1, 4), json_messages=st.booleans(), data=st.data())
def test_compaction_keeps_every_tool_result_with_its_tool_use(
    new_harness: Callable[[], Any], conversation: Conversation, json_messages: bool, data: st.DataObject
) -> None:
    """PAIR-1: a request after a compaction is one the Messages API accepts: no tool_result lost its tool_use.

    Compaction keeps the end of the transcript; wherever the drawn conversation (searches, calls,
    chat, MCP servers dropped and connected, requests whose notices are entries too, so the end may
    be notices only) puts the cut, a kept tool_result must keep the assistant turn that asked for it
    (the API's own validation, ``validate_messages_request``, judges the request), and the
    discovered tools stay discovered (DEFER-7). The messages may come decoded from JSON.
    """
    builtins, mcps, rounds = conversation
    harness = new_harness()
    session = Session(harness, builtins, mcps, json_messages=json_messages)
    for steps in rounds:
        for _ in range(steps):
            session.step(data, kinds=("search", "call", "call", "chat", "drop", "connect"))
            if data.draw(st.booleans(), label="a request after the step"):
                session.render()  # a notice for a server dropped or connected
        if data.draw(st.booleans(), label="request before the compaction"):
            session.render()  # its notices (an MCP server connected or dropped) are entries too
        harness.compact("Summary of the conversation so far.")
        session.log.append("compact()")
        session.conversation.chat()
        request = session.render()
        problem = validate_messages_request(request.body)
        assert problem is None, (
            f"PAIR-1: the request after compaction is rejected: {problem}" + session.where()
        )
