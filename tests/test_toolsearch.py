"""The ToolSearch tool (000 §6.2): select:, keyword search, results as tool_reference blocks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import (
    Tool,
    ToolContext,
    ToolError,
    ToolOutput,
    ToolState,
    build_tool,
    mcp_tool,
    tool_search_tool,
)
from reference_impl.search import (
    NO_MATCH_TEXT,
    SearchIndex,
    ToolSearchInput,
    map_tool_search_result,
    parse_select,
    run_tool_search,
    select_tools,
    tool_references,
)
from reference_impl.tools import TOOL_SEARCH_TOOL_NAME, DescriptionContext, is_deferred_tool, tool_state


async def _call(_input: object, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


def tool(name: str, description: str = "", *, aliases: tuple[str, ...] = ()) -> Tool:
    return build_tool(
        name, description, _call, input_json_schema={"type": "object"}, should_defer=True, aliases=aliases
    )


WEB_FETCH = tool("WebFetch", "Fetch a URL.")
CRON_LIST = tool("CronList", "List cron jobs.", aliases=("ListCrons",))
SLACK = mcp_tool("slack", "send_message", "Send a Slack message.", {"type": "object"}, _call)
READ = build_tool("Read", "Read a file.", _call, input_json_schema={"type": "object"})
POOL = (READ, CRON_LIST, WEB_FETCH, SLACK)
DEFERRED_NAMES = frozenset({"WebFetch", "CronList", "mcp__slack__send_message"})
DEFERRED = tuple(t for t in POOL if t.name in DEFERRED_NAMES)


def run(query: str, max_results: int = 5) -> list[str]:
    return run_tool_search(query, max_results, DEFERRED, POOL)


def test_select_returns_named_tools_in_request_order() -> None:
    """DEFER-4."""
    assert run("select:WebFetch,CronList") == ["WebFetch", "CronList"]
    assert run("select:CronList,WebFetch") == ["CronList", "WebFetch"]


def test_select_is_idempotent_for_loaded_tools_and_deduplicates() -> None:
    """DEFER-4: a loaded tool is returned again; names appear once."""
    assert run("select:Read") == ["Read"]
    assert run("select:WebFetch,Read,WebFetch, WebFetch") == ["WebFetch", "Read"]
    assert run("select:ListCrons,CronList") == ["CronList"]  # an alias resolves to the tool


def test_select_is_case_sensitive_trims_and_drops_unknown_names() -> None:
    assert run("select:webfetch") == []
    assert run("SELECT:  WebFetch ,, Nope ,\u00a0CronList\u3000") == ["WebFetch", "CronList"]
    assert run("select:Nope") == []
    assert run("select: , ") == []


def test_select_prefix_rules() -> None:
    assert parse_select("Select:A") == ["A"]
    assert parse_select("select:") is None  # needs at least one character: a keyword query
    assert parse_select(" select:A") is None
    assert parse_select("select:A\nB") is None  # "." stops at a line end in the seed's regex
    assert parse_select("ſelect:A") is None  # JS /i folds ASCII only
    assert select_tools(["WebFetch"], (), POOL) == ["WebFetch"]


def test_keyword_queries_use_the_seed_search() -> None:
    assert run("slack") == ["mcp__slack__send_message"]
    assert run("cron") == ["CronList"]
    assert run("nothing at all") == []
    assert run("webfetch") == ["WebFetch"]


@settings(max_examples=100, deadline=None)
@given(
    requested=st.lists(
        st.sampled_from(
            ["WebFetch", "CronList", "Read", "mcp__slack__send_message", "Nope", "read", "ListCrons"]
        ),
        min_size=1,
        max_size=6,
    )
)
def test_select_property(requested: list[str]) -> None:
    """DEFER-4: select returns each known name once, in first-request order, deferred or loaded."""
    got = run("select:" + ",".join(requested))
    canonical = {"ListCrons": "CronList"}
    expected: list[str] = []
    for name in requested:
        name = canonical.get(name, name)
        if name in {t.name for t in POOL} and name not in expected:
            expected.append(name)
    assert got == expected


def call(tool: Tool, raw: Mapping[str, Any], state: ToolState) -> ToolOutput:
    context = ToolContext(tool_use_id="toolu_1", abort=asyncio.Event(), cwd=Path.cwd(), state=state)
    result = asyncio.run(tool.call(raw, context))
    assert isinstance(result, ToolOutput)
    return result


STATE = ToolState(tuple(POOL), frozenset(DEFERRED_NAMES))


def test_tool_call_returns_tool_reference_blocks() -> None:
    search = tool_search_tool()
    out = call(search, {"query": "select:WebFetch,CronList"}, STATE)
    assert out.content == [
        {"type": "tool_reference", "tool_name": "WebFetch"},
        {"type": "tool_reference", "tool_name": "CronList"},
    ]
    assert not out.is_error
    block = map_tool_search_result(out, "toolu_1")
    assert block == {"type": "tool_result", "tool_use_id": "toolu_1", "content": out.content}


def test_tool_call_without_match_returns_the_text_never_an_empty_list() -> None:
    """DEFER-4: an empty result is the text, not an error and not an empty block list."""
    search = tool_search_tool()
    for query in ("select:Nope", "zzz"):
        out = call(search, {"query": query}, STATE)
        assert out.content == NO_MATCH_TEXT
        assert not out.is_error
        assert map_tool_search_result(out, "t") == {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": NO_MATCH_TEXT,
        }
    assert map_tool_search_result(ToolOutput(content=[]), "t")["content"] == NO_MATCH_TEXT


def test_tool_call_respects_max_results_and_validates_input() -> None:
    pool = tuple(tool(f"Thing{i}", "a widget") for i in range(8))
    state = ToolState(pool, frozenset(t.name for t in pool))
    search = tool_search_tool()
    assert len(call(search, {"query": "widget"}, state).content) == 5
    assert len(call(search, {"query": "widget", "max_results": 2}, state).content) == 2
    with pytest.raises(ToolError, match="max_results"):
        call(search, {"query": "widget", "max_results": 0}, state)
    with pytest.raises(ToolError, match="query"):
        call(search, {}, state)


def test_tool_call_with_an_empty_state_finds_nothing() -> None:
    """Without a pool, or with a pool that defers nothing, nothing is found (never a non-deferred tool)."""
    search = tool_search_tool()
    assert call(search, {"query": "slack"}, ToolState()).content == NO_MATCH_TEXT
    assert call(search, {"query": "slack"}, ToolState(tuple(POOL))).content == NO_MATCH_TEXT


def test_tool_state_for_a_pool_defers_what_is_deferred_tool_defers() -> None:
    state = tool_state(POOL)
    assert state.tools == tuple(POOL)
    assert state.deferred_tool_names == frozenset(t.name for t in POOL if is_deferred_tool(t))
    assert tool_state(POOL, deferred_tool_names=()).deferred_tool_names == frozenset()
    changed = state.with_value("k", 1)
    assert changed.values == {"k": 1}
    assert state.values == {}
    assert changed.with_pool((), ()).values == {"k": 1}


def test_tool_call_follows_pool_changes() -> None:
    search = tool_search_tool()
    assert call(search, {"query": "slack"}, STATE).content == tool_references(["mcp__slack__send_message"])
    other = mcp_tool("slack", "send_message", "Post text.", {"type": "object"}, _call)
    changed = ToolState((READ, other), frozenset({other.name}))
    assert call(search, {"query": "post"}, changed).content == tool_references([other.name])
    assert call(search, {"query": "post"}, STATE).content == NO_MATCH_TEXT


def test_tool_declaration() -> None:
    search = tool_search_tool(search_hint="find tools")
    assert search.name == TOOL_SEARCH_TOOL_NAME
    assert search.is_concurrency_safe({})
    assert search.is_read_only({})
    assert not is_deferred_tool(search)
    assert search.search_hint == "find tools"
    assert "select:" in search.render_description(DescriptionContext())
    assert search.max_result_size_chars == 100_000
    assert ToolSearchInput.model_json_schema()["required"] == ["query"]
    assert ToolSearchInput(query="x").max_results == 5


def test_a_ranker_can_be_plugged_in() -> None:
    def reverse_alphabetical(index: SearchIndex, query: str, max_results: int) -> list[str]:
        return sorted((t.name for t in index.deferred_tools), reverse=True)[:max_results]

    search = tool_search_tool(ranking=reverse_alphabetical)
    assert call(search, {"query": "anything", "max_results": 2}, STATE).content == tool_references(
        ["mcp__slack__send_message", "WebFetch"]
    )
    # select: is not the ranker's business
    assert call(search, {"query": "select:Read"}, STATE).content == tool_references(["Read"])
    with pytest.raises(ValueError, match="ranking"):
        tool_search_tool(ranking="best")  # type: ignore[arg-type]


def test_mapping_refuses_foreign_blocks() -> None:
    with pytest.raises(ValueError, match="tool_reference"):
        map_tool_search_result(ToolOutput(content=[{"type": "text", "text": "x"}]), "t")


def test_tool_search_is_allowed_without_asking_but_a_deny_rule_wins() -> None:
    """ToolSearch only reads the tool list: allowed in default mode with nobody to ask; a deny rule still denies."""
    from reference_impl import PermissionContext, decide_permission, parse_rule

    tool = tool_search_tool()
    headless = PermissionContext(can_prompt=False)
    assert decide_permission(tool, {"query": "slack"}, headless).behavior == "allow"
    denied = PermissionContext(rules=(parse_rule("ToolSearch", "deny", "projectSettings"),))
    assert decide_permission(tool, {"query": "slack"}, denied).behavior == "deny"
