"""Prompt-cache stability of requests in a session: CACHE-5 (one message marker), CACHE-6 (beta latch)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import (
    Session,
    beta_values,
    builtin,
    builtin_specs,
    mcp,
    mcp_specs,
    message_cache_markers,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec

_MODES = [None, "true", "false", "auto:1", "auto:100"]
_MARKER = {"type": "ephemeral"}
# Where a block copied from an earlier request may still carry a cache marker: a message's own text,
# a tool_use, a tool_result, and a block inside a tool_result's content (text or image).
PREMARKED_PLACES = (
    "assistant text",
    "user text",
    "tool_use",
    "tool_result",
    "tool_result text",
    "tool_result image",
)
_PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _premarked(place: str, index: int, tool_name: str) -> list[dict[str, Any]]:
    """An assistant message and a user message, one of whose blocks carries a marker at ``place``."""
    tool_use_id = f"toolu_premarked_{index}"
    if place in ("assistant text", "user text"):
        marked = {"type": "text", "text": f"noted {index}", "cache_control": _MARKER}
        plain = {"type": "text", "text": f"ok {index}"}
        first, second = (marked, plain) if place == "assistant text" else (plain, marked)
        return [{"role": "assistant", "content": [first]}, {"role": "user", "content": [second]}]
    use: dict[str, Any] = {"type": "tool_use", "id": tool_use_id, "name": tool_name, "input": {}}
    inner: dict[str, Any] = (
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PIXEL}}
        if place == "tool_result image"
        else {"type": "text", "text": f"out {index}"}
    )
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": [inner]}
    {"tool_use": use, "tool_result": result}.get(place, inner)["cache_control"] = _MARKER
    return [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]


@requires("conversation")
@pytest.mark.requirement("CACHE-5", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(),
    modes=st.lists(st.sampled_from(_MODES), min_size=1, max_size=5),
    premarked=st.lists(st.sampled_from(PREMARKED_PLACES), max_size=3),
    decoded=st.booleans(),
    data=st.data(),
)
def test_one_message_cache_marker_per_request(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    modes: list[str | None],
    premarked: list[str],
    decoded: bool,
    data: st.DataObject,
) -> None:
    """CACHE-5 property.

    CACHE-5: every request carries exactly one cache_control marker in its messages (system and tools markers
    don't count), request after request, whatever the transcript's blocks carried before: markers left on
    blocks copied from earlier requests, at any depth (a message's text, a tool_use, a tool_result, a text
    or image block inside a tool_result), one or several at once; the transcript as built in memory or as
    decoded from JSON (a resumed session's, whose strings are equal to the literals but not the same objects).
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    tool_name = builtins[0].name if builtins else "ReadFile"
    for index, place in enumerate(premarked):
        messages = _premarked(place, index, tool_name)
        for message in json.loads(json.dumps(messages)) if decoded else messages:
            harness.append_message(message)
    if premarked:
        session.conversation.user("go on")
    for mode in modes:
        session.step(data)
        request = session.render(enable_tool_search=mode)
        markers = message_cache_markers(request)
        assert len(markers) == 1, (
            f"CACHE-5: expected exactly one message-level cache_control marker, found {len(markers)}: {markers}"
            + session.where()
        )


@requires("conversation")
@pytest.mark.requirement("CACHE-6", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(
    mcps=mcp_specs(min_size=1),
    modes=st.lists(st.sampled_from([*_MODES, "compact"]), min_size=2, max_size=7),
)
def test_beta_header_latched_until_compaction(
    new_harness: Callable[[], Any], mcps: list[ToolSpec], modes: list[str | None]
) -> None:
    """CACHE-6 property.

    CACHE-6: a beta value sent once in a session is sent on every later request of the session (same model),
    even after tool search turns off ("true" then "false"), until compact().
    """
    harness = new_harness()
    session = Session(harness, [builtin("ReadFile")], mcps)
    latched: set[str] = set()
    for mode in ["true", *modes]:
        if mode == "compact":
            harness.compact("Summary so far.")
            latched = set()
            session.log.append("compact()")
            continue
        session.conversation.chat()
        request = session.render(enable_tool_search=mode)
        sent = beta_values(request)
        dropped = sorted(latched - sent)
        assert not dropped, (
            f"CACHE-6: beta value(s) {dropped} were sent earlier in the session but not with "
            f"ENABLE_TOOL_SEARCH={mode!r}; headers now: {dict(request.headers)}" + session.where()
        )
        latched |= sent


@requires("conversation")
@pytest.mark.requirement("CACHE-6", "SHOULD")
def test_beta_header_stays_when_tool_search_turns_off(new_harness: Callable[[], Any]) -> None:
    """CACHE-6: the beta header of a tool-search request is still sent after switching to "false".

    The first request uses tool search, which needs the tool-search beta header (000 §5.4): without
    one there would be nothing to latch.
    """
    harness = new_harness()
    session = Session(harness, [builtin("ReadFile")], [mcp("gh", "issues")])
    first = beta_values(session.render(enable_tool_search="true"))
    assert first, "CACHE-6: a request with tool search on sent no anthropic-beta value (000 §5.4 needs one)"
    session.conversation.chat()
    second = beta_values(session.render(enable_tool_search="false"))
    assert first <= second, (
        f"CACHE-6: first request sent betas {sorted(first)}, the next only {sorted(second)}"
    )
