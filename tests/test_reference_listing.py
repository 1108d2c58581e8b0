"""The reference harness's listing configurations (DEFER-3's other mechanism), as the mutation runner uses them."""

from __future__ import annotations

import json

import pytest

from pytest_toolharness.adapters import ToolSpec
from pytest_toolharness.adapters.reference import (
    ReferenceAdapter,
    claude_code_listing_adapter,
    listing_adapter,
    reference_adapter,
)


def _deferred_mcp(names: list[str]) -> list[ToolSpec]:
    return [
        ToolSpec(name=f"mcp__srv__{n}", description=f"tool {n}", mcp_server="srv", mcp_tool=n) for n in names
    ]


@pytest.mark.parametrize(
    ("factory", "marker"),
    [
        (listing_adapter, "<available-deferred-tools>"),
        (claude_code_listing_adapter, "deferred tools are now available"),
    ],
)
def test_a_listing_harness_names_every_deferred_tool_in_a_listing_message(
    factory: object, marker: str
) -> None:
    adapter = factory()  # type: ignore[operator]
    assert "notices" not in adapter.capabilities
    harness = adapter.new_harness()
    mcp = _deferred_mcp(["beta", "Alpha", "gamma"])
    harness.set_tools([], mcp)
    harness.append_message({"role": "user", "content": "hello"})
    body = harness.render_request(enable_tool_search="true").body
    first = body["messages"][0]
    assert first["role"] == "user"
    text = json.dumps(first["content"])
    assert marker in text, text
    for spec in mcp:
        assert spec.name in text
    # The listing comes before the history and is re-sent unchanged: the prefix stays cacheable.
    again = harness.render_request(enable_tool_search="true").body["messages"][0]
    assert again == first


def test_the_default_harness_sends_delta_notices_not_a_listing() -> None:
    adapter = reference_adapter()
    assert "notices" in adapter.capabilities
    assert ReferenceAdapter.capabilities == adapter.capabilities
    harness = adapter.new_harness()
    harness.set_tools([], _deferred_mcp(["beta"]))
    harness.append_message({"role": "user", "content": "hello"})
    body = harness.render_request(enable_tool_search="true").body
    assert "beta" in json.dumps(body["messages"])  # announced, in a delta notice
    assert "<available-deferred-tools>" not in json.dumps(body["messages"])
