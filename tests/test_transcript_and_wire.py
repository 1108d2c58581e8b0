from __future__ import annotations

import json

import pytest
from anthropic._utils._json import openapi_dumps
from anthropic.types import MessageParam
from hypothesis import given
from hypothesis import strategies as st

from reference_impl._wire import wire_bytes, wire_json
from reference_impl.request import CompactBoundary, DeferredToolsDelta, to_api_messages

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(json_values)
def test_wire_bytes_match_the_sdk_encoder(value: object) -> None:
    """SNAP-2: our wire bytes are exactly the bytes the anthropic SDK puts in a request body."""
    assert wire_bytes(value) == openapi_dumps(value)
    assert json.loads(wire_json(value)) == value


def test_wire_refuses_sets() -> None:
    with pytest.raises(TypeError, match="set"):
        wire_json({"a": {1, 2}})


def test_delta_renders_as_system_reminder() -> None:
    delta = DeferredToolsDelta(added_names=("A", "B"), added_lines=("A", "B"), removed_names=("C",))
    text = delta.render()
    assert text.startswith("<system-reminder>\n")
    assert text.endswith("\n</system-reminder>")
    assert "The following deferred tools are now available via ToolSearch:\nA\nB" in text
    assert "The following deferred tools are no longer available:\nC" in text


def test_to_api_messages_merges_users_and_keeps_tool_results_first() -> None:
    """PAIR-1: tool results come before any other block of their user message."""
    entries: list[MessageParam | DeferredToolsDelta | CompactBoundary] = [
        CompactBoundary(summary="earlier work", pre_compact_discovered_tools=("X",)),
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "A", "input": {}}]},
        DeferredToolsDelta(added_names=("Z",), added_lines=("Z",), removed_names=()),
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ]
    messages = to_api_messages(entries)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    first = messages[0]["content"]
    assert isinstance(first, list)
    assert len(first) == 2
    last = list(messages[2]["content"])
    assert last[0]["type"] == "tool_result"
    assert last[1]["type"] == "text"
