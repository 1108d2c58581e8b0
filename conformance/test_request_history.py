"""What a request's messages tell the model about deferred tools: DEFER-2 after discovery, DELTA-2, DELTA-3, DEFER-8.

The other side of the request checks in ``test_requests.py``: a tool the model discovered stays
loaded (its ``tool_reference`` is still in the messages, or it is sent in full), the notices a
request carries, read as the model reads them, leave it knowing the pool's deferred tools, the
notice a request carries is the one the harness applied, and with tool search off nothing is
announced as deferred.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
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
from pytest_toolharness.specs import Notice, ToolSpec
from pytest_toolharness.wire import validate_messages_request

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


# 000 §10.3: a deferred_tools_delta notice as the model reads it, one part per heading, a name per line.
_NOTICE_HEADINGS = {
    "The following deferred tools are now available via ToolSearch:": "added",
    "The following deferred tools are no longer available:": "removed",
}


def notice_parts(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each notice part of ``texts`` in order: ``("added" | "removed", names)``, a name per line."""
    parts: list[tuple[str, list[str]]] = []
    for text in texts:
        names: list[str] | None = None  # the open part's names
        for line in text.splitlines():
            if line in _NOTICE_HEADINGS:
                names = []
                parts.append((_NOTICE_HEADINGS[line], names))
            elif not line.strip() or line.startswith("</system-reminder>"):
                names = None
            elif names is not None:
                names.append(line.split()[0])
    return parts


@requires("notices", "conversation", "classification")
@pytest.mark.requirement("DELTA-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    steps=st.integers(min_value=1, max_value=6),
    data=st.data(),
)
def test_the_notices_a_request_carries_leave_the_model_knowing_the_pool(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    steps: int,
    data: st.DataObject,
) -> None:
    """DELTA-2 property through requests: the notices in a request's messages, read in order, fold to the pool.

    The model knows the deferred tools only from the notices it reads (000 §10.3's rendering: a
    heading, then a name per line). Folding every notice part of a request in order (added, then
    removed: DELTA-1) must give a set that holds every deferred tool of the pool (announced and not
    withdrawn since) and nothing that left the pool (a tool that left was withdrawn); no part is a
    heading without names. Between two requests one to three things happen (servers connect, leave
    and come back, the model searches and calls, the conversation is compacted), so one notice may
    add and remove at once.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    for _ in range(steps):
        # Several changes between two requests; a server replaced by another: a notice that adds and
        # removes at once.
        for _ in range(data.draw(st.integers(min_value=1, max_value=3), label="changes")):
            session.step(data, kinds=("connect", "drop", "search", "call", "chat", "compact"))
        if data.draw(st.booleans(), label="a server replaced"):
            session.step(data, kinds=("drop",))
            session.step(data, kinds=("connect",))
        parts = notice_parts(message_texts(session.render()))
        empty = [kind for kind, names in parts if not names]
        assert not empty, (
            f"DELTA-2: a notice has an empty {empty[0]} part (a heading, no name)" + session.where()
        )
        known: set[str] = set()
        for kind, names in parts:
            known = known | set(names) if kind == "added" else known - set(names)
        pool = {s.name for s in session.specs()}
        deferred = {s.name for s in session.specs() if harness.is_deferred(s)}
        assert deferred <= known, (
            f"DELTA-2: the request's notices leave {sorted(deferred - known)} unannounced or withdrawn, but they "
            f"are deferred tools of the pool; notices: {parts}" + session.where()
        )
        assert known <= pool, (
            f"DELTA-2: the request's notices leave {sorted(known - pool)} available, but they left the pool "
            f"(no notice withdrew them); notices: {parts}" + session.where()
        )


def _record_all(harness: Any, records: Sequence[Notice]) -> None:
    for record in records:
        harness.record_notice(record)


@requires("notice_records", "transcript")
@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    calls=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=4),
    json_messages=st.booleans(),
    data=st.data(),
)
def test_notices_stored_while_a_tool_ran_leave_its_results_first(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    calls: list[tuple[bool, bool]],
    json_messages: bool,
    data: st.DataObject,
) -> None:
    """PAIR-1 property: notice records stored between a tool_use and its result don't come before the result.

    A session's transcript keeps entries in the order they happened: a notice recorded while a tool
    ran (an MCP server connected or left; a resumed session's records) sits between the assistant's
    tool_use and its tool_result. The request is one the Messages API accepts
    (``validate_messages_request``: the turn after a tool_use begins with its results), with one or
    two records in between, after a chat turn or not; the messages may come decoded from JSON.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps, json_messages=json_messages)
    names = [s.name for s in session.specs()]
    for between, twice in calls:
        records = [
            Notice(
                added=tuple(data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))),
                removed=(),
            )
            for _ in range(int(between) + int(between and twice))
        ]
        name = names[data.draw(st.integers(0, len(names) - 1))]
        session.conversation.call(name, between=functools.partial(_record_all, harness, records))
        session.log.append(f"call {name}, notice records stored while it ran: {records}")
        if data.draw(st.booleans(), label="chat after"):
            session.conversation.chat()
        problem = validate_messages_request(session.render().body)
        assert problem is None, f"PAIR-1: the request is rejected: {problem}" + session.where()


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
