"""Prompt-cache stability of requests in a session: CACHE-5 (one message marker), CACHE-6 (beta latch)."""

from __future__ import annotations

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


@requires("conversation")
@pytest.mark.requirement("CACHE-5", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(),
    modes=st.lists(st.sampled_from(_MODES), min_size=1, max_size=5),
    premarked=st.booleans(),
    data=st.data(),
)
def test_one_message_cache_marker_per_request(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    modes: list[str | None],
    premarked: bool,
    data: st.DataObject,
) -> None:
    """CACHE-5 property.

    CACHE-5: every request carries exactly one cache_control marker in its messages (system and tools markers
    don't count), request after request, whatever the transcript's blocks carried before.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    if premarked:
        # Transcript blocks that already carry a marker (e.g. copied from an earlier request): a text
        # block, and a text block inside a tool result's content.
        harness.append_message(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "noted", "cache_control": {"type": "ephemeral"}},
                    {"type": "tool_use", "id": "toolu_premarked", "name": "Premarked", "input": {}},
                ],
            }
        )
        harness.append_message(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_premarked",
                        "content": [{"type": "text", "text": "done", "cache_control": {"type": "ephemeral"}}],
                    },
                    {"type": "text", "text": "go on"},
                ],
            }
        )
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
