"""Cache-break hash, beta latch and the message cache marker (CACHE-1, CACHE-5, CACHE-6)."""

from __future__ import annotations

import copy
from typing import Any, cast

import pytest
from anthropic.types import MessageParam, ToolParam
from hypothesis import given
from hypothesis import strategies as st

from reference_impl.request import (
    ADVANCED_TOOL_USE_BETA,
    TOOL_SEARCH_TOOL_BETA,
    BetaLatch,
    cache_break_hash,
    place_message_cache_marker,
    tool_search_beta_header,
)


def _tool(name: str, description: str = "d", *, deferred: bool = False) -> ToolParam:
    param: ToolParam = {"name": name, "description": description, "input_schema": {"type": "object"}}
    if deferred:
        param["defer_loading"] = True
    return param


def _request(tools: list[ToolParam]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You are helpful."}],
        "messages": [{"role": "user", "content": "hi"}],
        "tools": tools,
    }


_names = st.text("abcdefgh", min_size=1, max_size=4)


@given(
    loaded=st.lists(_names, min_size=1, max_size=5, unique=True),
    deferred=st.lists(_names.map(lambda n: "mcp__" + n), max_size=5, unique=True),
    extra=st.lists(_names.map(lambda n: "mcp__x" + n), max_size=3, unique=True),
    new_description=st.text(min_size=1, max_size=10),
)
def test_hash_ignores_deferred_tools(
    loaded: list[str], deferred: list[str], extra: list[str], new_description: str
) -> None:
    """CACHE-1: adding, removing or changing deferred tools keeps the hash; a loaded tool's change breaks it."""
    base_tools = [_tool(n) for n in loaded] + [_tool(n, deferred=True) for n in deferred]
    base = cache_break_hash(_request(base_tools))
    added = base_tools + [_tool(n, deferred=True) for n in extra]
    assert cache_break_hash(_request(added)) == base
    removed = [t for t in base_tools if not t.get("defer_loading")]
    assert cache_break_hash(_request(removed)) == base
    changed = [
        _tool(t["name"], "changed " + new_description, deferred=True) if t.get("defer_loading") else t
        for t in base_tools
    ]
    assert cache_break_hash(_request(changed)) == base
    broken = [_tool(loaded[0], "d" + new_description), *base_tools[1:]]
    assert cache_break_hash(_request(broken)) != base


def test_hash_covers_system_and_model() -> None:
    request = _request([_tool("Read")])
    base = cache_break_hash(request)
    assert cache_break_hash({**request, "model": "claude-opus-4-5"}) != base
    assert cache_break_hash({**request, "system": [{"type": "text", "text": "Other."}]}) != base
    assert cache_break_hash({**request, "messages": []}) == base  # messages are not part of it
    assert len(base) == 64


@pytest.mark.parametrize(
    ("provider", "header"),
    [
        ("firstParty", ADVANCED_TOOL_USE_BETA),
        ("foundry", ADVANCED_TOOL_USE_BETA),
        ("vertex", TOOL_SEARCH_TOOL_BETA),
        ("bedrock", TOOL_SEARCH_TOOL_BETA),
    ],
)
def test_header_per_provider(provider: Any, header: str) -> None:
    assert tool_search_beta_header(provider) == header
    assert header in {"advanced-tool-use-2025-11-20", "tool-search-tool-2025-10-19"}


def test_unknown_provider_is_named() -> None:
    with pytest.raises(ValueError, match="unknown API provider 'azure'"):
        BetaLatch("azure")  # type: ignore[arg-type]


@given(st.lists(st.booleans(), max_size=12))
def test_latch_once_sent_keeps_sending(switches: list[bool]) -> None:
    """CACHE-6: after the first request with tool search, every request has the header until reset."""
    latch = BetaLatch("firstParty")
    seen_on = False
    for enabled in switches:
        seen_on = seen_on or enabled
        assert latch.betas(tool_search_enabled=enabled) == ((ADVANCED_TOOL_USE_BETA,) if seen_on else ())
    latch.reset()
    assert latch.betas(tool_search_enabled=False) == ()
    assert not latch.latched


def test_bedrock_latches_without_header() -> None:
    latch = BetaLatch("bedrock")
    assert latch.betas(tool_search_enabled=True) == ()
    assert latch.latched
    assert latch.header == TOOL_SEARCH_TOOL_BETA


def _markers(messages: list[MessageParam]) -> list[tuple[int, int]]:
    found = []
    for i, message in enumerate(messages):
        content = message["content"]
        if isinstance(content, str):
            continue
        for j, block in enumerate(content):
            b: Any = block
            if "cache_control" in b:
                found.append((i, j))
            for item in b.get("content", []) if isinstance(b.get("content"), list) else []:
                if "cache_control" in item:
                    found.append((i, -1))
    return found


_blocks = st.lists(
    st.fixed_dictionaries(
        {"type": st.just("text"), "text": st.text(min_size=1, max_size=5)},
        optional={"cache_control": st.just({"type": "ephemeral"})},
    ),
    min_size=1,
    max_size=3,
)


@given(st.lists(st.one_of(st.text(min_size=1, max_size=5), _blocks), min_size=1, max_size=5))
def test_exactly_one_marker_on_last_block(contents: list[Any]) -> None:
    """CACHE-5: one message-level marker, on the last block of the last message; input untouched."""
    messages = [
        cast(MessageParam, {"role": "user" if i % 2 == 0 else "assistant", "content": c})
        for i, c in enumerate(contents)
    ]
    original = copy.deepcopy(messages)
    marked = place_message_cache_marker(messages)
    assert messages == original
    last_content = marked[-1]["content"]
    assert not isinstance(last_content, str)
    assert _markers(marked) == [(len(marked) - 1, len(list(last_content)) - 1)]
    last_block: Any = list(last_content)[-1]
    assert last_block["cache_control"] == {"type": "ephemeral"}


def test_markers_inside_tool_results_are_removed() -> None:
    messages: list[MessageParam] = [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t",
                    "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
                },
                {"type": "text", "text": "after"},
            ],
        }
    ]
    marked = place_message_cache_marker(messages)
    assert _markers(marked) == [(0, 1)]


def test_empty_and_unmarkable() -> None:
    assert place_message_cache_marker([]) == []
    thinking_only: list[MessageParam] = [
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]}
    ]
    with pytest.raises(ValueError, match="no content block that can carry"):
        place_message_cache_marker(thinking_only)
