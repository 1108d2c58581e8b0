from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from reference_impl import Tool, ToolContext, ToolOutput, build_tool, mcp_tool
from reference_impl.tools import DEFAULT_MAX_RESULT_SIZE_CHARS, DescriptionContext


class EchoInput(BaseModel):
    text: str


async def echo(tool_input: object, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content=str(tool_input))


def test_defaults_are_conservative() -> None:
    """CONC-3: a tool that declares nothing is neither concurrency safe nor read-only."""
    tool = build_tool("Echo", "echoes", echo, input_model=EchoInput)
    assert tool.is_concurrency_safe({"text": "x"}) is False
    assert tool.is_read_only({"text": "x"}) is False
    assert tool.should_defer is False
    assert tool.always_load is False
    assert tool.is_mcp is False
    assert tool.max_result_size_chars == DEFAULT_MAX_RESULT_SIZE_CHARS
    assert tool.aliases == ()


@given(st.dictionaries(st.text(), st.integers()))
def test_defaults_are_conservative_for_any_input(tool_input: dict[str, int]) -> None:
    """CONC-3: the default predicates say False whatever the input is."""
    tool = build_tool("Echo", "echoes", echo, input_json_schema={"type": "object"})
    assert not tool.is_concurrency_safe(tool_input)
    assert not tool.is_read_only(tool_input)


def test_build_tool_rejects_unknown_options_by_name() -> None:
    with pytest.raises(TypeError, match="concurrency_safe"):
        build_tool("Echo", "d", echo, input_model=EchoInput, concurrency_safe=True)


def test_exactly_one_input_description() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        build_tool("Echo", "d", echo)
    with pytest.raises(ValueError, match="exactly one"):
        build_tool("Echo", "d", echo, input_model=EchoInput, input_json_schema={"type": "object"})
    with pytest.raises(ValueError, match="type 'object'"):
        build_tool("Echo", "d", echo, input_json_schema={"type": "string"})
    with pytest.raises(ValueError, match="non-empty name"):
        build_tool("", "d", echo, input_model=EchoInput)


def test_description_may_be_computed_per_session() -> None:
    tool = build_tool("Echo", lambda ctx: f"model {ctx.model}", echo, input_model=EchoInput)
    assert tool.render_description(DescriptionContext(model="m1")) == "model m1"


def test_mcp_tool_honours_meta_and_annotations() -> None:
    tool = mcp_tool(
        "my server",
        "list.items",
        "lists",
        {"type": "object", "properties": {}},
        echo,
        meta={
            "anthropic/alwaysLoad": True,
            "anthropic/searchHint": "enumerate things",
            "anthropic/maxResultSizeChars": 1234,
        },
        annotations={"readOnlyHint": True},
    )
    assert tool.name == "mcp__my_server__list_items"
    assert tool.mcp is not None
    assert (tool.mcp.server, tool.mcp.tool) == ("my server", "list.items")
    assert tool.always_load is True
    assert tool.search_hint == "enumerate things"
    assert tool.max_result_size_chars == 1234
    assert tool.is_read_only({})
    assert tool.is_concurrency_safe({})


def test_mcp_tool_defaults() -> None:
    tool = mcp_tool("s", "t", "d", {"type": "object"}, echo)
    assert not tool.always_load
    assert tool.search_hint is None
    assert not tool.is_concurrency_safe({})
    assert tool.max_result_size_chars == DEFAULT_MAX_RESULT_SIZE_CHARS


@pytest.mark.parametrize(
    ("listed", "limit"),
    [
        (1, 1.0),
        (2_500, 2_500.0),
        (0.5, 0.5),
        (0, DEFAULT_MAX_RESULT_SIZE_CHARS),
        (-3, DEFAULT_MAX_RESULT_SIZE_CHARS),
        (math.nan, DEFAULT_MAX_RESULT_SIZE_CHARS),
        (True, DEFAULT_MAX_RESULT_SIZE_CHARS),
        (False, DEFAULT_MAX_RESULT_SIZE_CHARS),
        ("1000", DEFAULT_MAX_RESULT_SIZE_CHARS),
        (None, DEFAULT_MAX_RESULT_SIZE_CHARS),
        (10**400, math.inf),
        (math.inf, math.inf),
    ],
)
def test_mcp_listed_result_limit(listed: object, limit: float) -> None:
    """A listed maxResultSizeChars counts only as a positive number: true is no 1-character limit, and a
    number past a float's range is unlimited, not an OverflowError that loses the server's tool."""
    tool = mcp_tool("s", "t", "d", {"type": "object"}, echo, meta={"anthropic/maxResultSizeChars": listed})
    assert tool.max_result_size_chars == limit


def test_unlimited_size_and_call() -> None:
    tool = build_tool("Read", "reads", echo, input_model=EchoInput, max_result_size_chars=math.inf)
    context = ToolContext(tool_use_id="toolu_1", abort=asyncio.Event(), cwd=Path.cwd())
    output = asyncio.run(tool.call({"text": "hi"}, context))
    assert isinstance(output, ToolOutput)
    assert output.content == "{'text': 'hi'}"
    with pytest.raises(ValueError, match="positive"):
        tool.with_changes(max_result_size_chars=0)
    assert isinstance(tool, Tool)
