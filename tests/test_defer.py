from __future__ import annotations

import pytest
from anthropic.types import ToolParam
from hypothesis import given
from hypothesis import strategies as st

from reference_impl import ToolContext, ToolOutput, build_tool, mcp_tool
from reference_impl.tools import (
    TOOL_SEARCH_TOOL_NAME,
    ToolSearchMode,
    ToolSearchSetting,
    is_deferred_tool,
    is_tool_search_enabled,
    model_supports_tool_reference,
    parse_enable_tool_search,
)


async def noop(_input: object, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="")


@given(
    is_mcp=st.booleans(),
    always_load=st.booleans(),
    should_defer=st.booleans(),
    name=st.sampled_from(["Bash", TOOL_SEARCH_TOOL_NAME, "Brief", "SendUserFile", "WebFetch"]),
)
def test_classification_order(is_mcp: bool, always_load: bool, should_defer: bool, name: str) -> None:
    """DEFER-1: always_load never deferred; MCP deferred; ToolSearch and critical channels never; else should_defer."""
    if is_mcp:
        tool = mcp_tool(
            "srv", name, "d", {"type": "object"}, noop, meta={"anthropic/alwaysLoad": always_load}
        )
    else:
        tool = build_tool(
            name,
            "d",
            noop,
            input_json_schema={"type": "object"},
            always_load=always_load,
            should_defer=should_defer,
        )
    if always_load:
        expected = False
    elif is_mcp:
        expected = True
    elif name in (TOOL_SEARCH_TOOL_NAME, "Brief", "SendUserFile"):
        expected = False
    else:
        expected = should_defer
    assert is_deferred_tool(tool) is expected


@pytest.mark.parametrize(
    ("value", "mode", "percent"),
    [
        (None, ToolSearchMode.TST, 10),
        ("", ToolSearchMode.TST, 10),
        ("true", ToolSearchMode.TST, 10),
        ("auto:0", ToolSearchMode.TST, 10),
        ("false", ToolSearchMode.STANDARD, 10),
        ("auto:100", ToolSearchMode.STANDARD, 10),
        ("auto", ToolSearchMode.TST_AUTO, 10),
        ("auto:25", ToolSearchMode.TST_AUTO, 25),
        (" AUTO:5 ", ToolSearchMode.TST_AUTO, 5),
    ],
)
def test_parse_enable_tool_search(value: str | None, mode: ToolSearchMode, percent: int) -> None:
    """DEFER-8: the documented ENABLE_TOOL_SEARCH values."""
    assert parse_enable_tool_search(value) == ToolSearchSetting(mode, percent)


@pytest.mark.parametrize("value", ["yes", "auto:", "auto:-1", "auto:101", "auto:x"])
def test_parse_enable_tool_search_rejects_garbage(value: str) -> None:
    with pytest.raises(ValueError, match="ENABLE_TOOL_SEARCH"):
        parse_enable_tool_search(value)


def params(chars: int) -> list[ToolParam]:
    return [{"name": "t", "description": "x" * chars, "input_schema": {"type": "object"}}]


def test_search_off_for_models_without_tool_reference_or_without_search_tool() -> None:
    """DEFER-8: off for a model without tool_reference support, or when the search tool is denied."""
    tst = ToolSearchSetting(ToolSearchMode.TST)
    assert is_tool_search_enabled([], setting=tst, model="claude-sonnet-4-5", search_tool_available=True)
    assert not is_tool_search_enabled([], setting=tst, model="claude-3-5-haiku", search_tool_available=True)
    assert not is_tool_search_enabled([], setting=tst, model="claude-sonnet-4-5", search_tool_available=False)
    assert not model_supports_tool_reference("claude-haiku-4-5")


def test_auto_threshold_with_token_counter() -> None:
    """DEFER-8: tst-auto is on when deferred tokens reach N% of the context window."""
    setting = ToolSearchSetting(ToolSearchMode.TST_AUTO, 10)
    common = {"setting": setting, "model": "m", "search_tool_available": True, "context_window": 1000}
    assert is_tool_search_enabled(params(1), token_counter=lambda _p: 100, **common)  # type: ignore[arg-type]
    assert not is_tool_search_enabled(params(1), token_counter=lambda _p: 99, **common)  # type: ignore[arg-type]


def test_auto_threshold_falls_back_to_characters() -> None:
    """DEFER-8: without a token count, characters / 2.5 stand in."""
    setting = ToolSearchSetting(ToolSearchMode.TST_AUTO, 10)
    common = {"setting": setting, "model": "m", "search_tool_available": True, "context_window": 1000}
    # threshold: 100 tokens = 250 chars; name (1) + schema '{"type":"object"}' (17) + description.
    assert is_tool_search_enabled(params(232), token_counter=lambda _p: None, **common)  # type: ignore[arg-type]
    assert not is_tool_search_enabled(params(231), **common)  # type: ignore[arg-type]
