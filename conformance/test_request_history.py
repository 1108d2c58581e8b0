"""What a request's messages tell the model about deferred tools: DEFER-2 after discovery, DELTA-3, DEFER-8.

The other side of the request checks in ``test_requests.py``: a tool the model discovered stays
loaded (its ``tool_reference`` is still in the messages, or it is sent in full), the notice a request
carries is the one the harness applied, and with tool search off nothing is announced as deferred.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import (
    Session,
    builtin_specs,
    mcp_specs,
    mentions,
    message_texts,
    tool_references,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec

# The steps that keep every message the harness was given (no compaction: DEFER-7 covers that).
_KEEPING_STEPS = ("search", "drop", "drop", "connect", "chat", "call")


@requires("conversation")
@pytest.mark.requirement("DEFER-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=2),
    modes=st.lists(st.sampled_from([None, "true", "false"]), min_size=1, max_size=6),
    json_messages=st.booleans(),
    data=st.data(),
)
def test_discovered_tools_stay_loaded(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    modes: list[str | None],
    json_messages: bool,
    data: st.DataObject,
) -> None:
    """DEFER-2 property, after discovery: a discovered tool is loaded in every later request that has it.

    "Until it is discovered" ends when a ToolSearch result references the tool. From then on, each
    request whose tools array holds it either sends it without ``defer_loading`` or keeps a
    ``tool_reference`` naming it in the messages (the API loads a deferred tool that a reference
    names; without either, the model found a tool it can't call). One result references every MCP
    tool, so when a server leaves, a reference to a tool that is gone sits before and after ones that
    are still there; servers reconnect; tool search is switched on and off; the transcript may come
    decoded from JSON. No compaction (DEFER-7 says what it keeps).
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps, json_messages=json_messages)
    session.conversation.search([s.name for s in mcps])
    for mode in modes:
        session.step(data, kinds=_KEEPING_STEPS)
        request = session.render(enable_tool_search=mode)
        tools = {str(t.get("name")): t for t in request.body.get("tools", ())}
        referenced = set(tool_references(request))
        unloaded = sorted(
            name
            for name in session.discovered
            if name in tools and tools[name].get("defer_loading") and name not in referenced
        )
        assert not unloaded, (
            f"DEFER-2: {unloaded} were discovered and are sent with defer_loading, but no tool_reference "
            f"in the request names them (ENABLE_TOOL_SEARCH={mode!r}): the model can't call them"
            + session.where()
        )


@requires("notices", "conversation")
@pytest.mark.requirement("DELTA-3", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(),
    steps=st.integers(min_value=1, max_value=5),
    mode=st.sampled_from([None, "true"]),
    data=st.data(),
)
def test_a_request_applies_its_notice(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    steps: int,
    mode: str | None,
    data: st.DataObject,
) -> None:
    """DELTA-3 property through requests: recomputing after a request that carried the notice gives none.

    A harness that gives notices tells the model with them: each request (tool search on) carries
    the notice for its pool, applied to the session, so asking for the notice of the same pool right
    after it gives none. Servers connect and leave, the model searches and calls in between.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    for _ in range(steps):
        session.step(data, kinds=("connect", "drop", "search", "call", "chat"))
        session.render(enable_tool_search=mode)
        left = harness.notice(session.builtin, session.mcp)
        assert left is None, (
            f"DELTA-3: right after a request (ENABLE_TOOL_SEARCH={mode!r}) the notice for the same pool is "
            f"{left}: the request did not carry (apply) it" + session.where()
        )


@requires("conversation", "classification")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    off=st.lists(st.sampled_from(["false", "auto:100"]), min_size=1, max_size=3),
)
def test_tool_search_off_announces_nothing(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], off: list[str]
) -> None:
    """DEFER-8 with DELTA-2: with tool search off no tool is deferred, so none is announced as deferred.

    A session that starts with ENABLE_TOOL_SEARCH off ("false", "auto:100") sends every tool in full;
    the conversation only chats, so no text of its messages names a tool of the pool (a notice or a
    listing would: DELTA-2's added set holds only deferred tools, and there are none). Switched on,
    the next request names every deferred tool (DEFER-3).
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    names = [s.name for s in session.specs()]
    for mode in off:
        session.conversation.chat()
        texts = message_texts(session.render(enable_tool_search=mode))
        named = [name for name in names if mentions(texts, name)]
        assert not named, (
            f"DEFER-8: with ENABLE_TOOL_SEARCH={mode!r} nothing is deferred, yet the messages name {named}"
            + session.where()
        )
    session.conversation.chat()
    texts = message_texts(session.render())
    unnamed = [s.name for s in session.specs() if harness.is_deferred(s) and not mentions(texts, s.name)]
    assert not unnamed, f"DEFER-3: tool search on, but the deferred tools {unnamed} are not named" + (
        session.where()
    )
