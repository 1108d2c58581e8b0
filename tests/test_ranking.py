"""FieldedRanker: the seed's query syntax kept exactly, free text ranked by BM25F (DEFER-4, DEFER-5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import (
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    ToolState,
    build_tool,
    mcp_tool,
    tool_search_tool,
)
from reference_impl.search import FieldedRanker, FieldWeights, normalize_words
from reference_impl.search._index import SearchIndex
from reference_impl.search._terms import QueryTerms


async def _noop(_input: ToolInput, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


def _mcp(server: str, name: str, description: str, **properties: str) -> Tool:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in properties.items()},
    }
    return mcp_tool(server, name, description, schema, _noop).with_changes(should_defer=True)


POOL = (
    _mcp("slack", "send_message", "Send a message to a Slack channel.", channel="The channel id"),
    _mcp("slack", "list_channels", "List the channels of the workspace."),
    _mcp("github", "create_issue", "Create a new issue in a GitHub repository.", repo="Repository name"),
    _mcp("github", "list_pull_requests", "List open pull requests of a repository."),
    _mcp("weather", "get_forecast", "Get the weather forecast for a city.", city="City name"),
    _mcp("files", "read_file", "Read the contents of a file from disk.", path="Path of the file"),
    build_tool(
        "NotebookEdit",
        "Edit a cell of a Jupyter notebook.",
        _noop,
        input_json_schema={"type": "object"},
        should_defer=True,
        search_hint="jupyter ipynb cells",
    ),
)
INDEX = SearchIndex(POOL, POOL)


def rank(query: str, max_results: int = 5) -> list[str]:
    return FieldedRanker()(INDEX, query, max_results)


def test_exact_name_returns_only_that_tool_any_case() -> None:
    assert rank("MCP__Slack__Send_Message") == ["mcp__slack__send_message"]
    assert rank("notebookedit") == ["NotebookEdit"]


def test_mcp_server_prefix_lists_the_servers_tools_in_pool_order() -> None:
    assert rank("mcp__github") == ["mcp__github__create_issue", "mcp__github__list_pull_requests"]
    assert rank("mcp__github", max_results=1) == ["mcp__github__create_issue"]
    # The same as the seed for this syntax.
    assert rank("mcp__slack") == INDEX.search("mcp__slack", 5)


def test_required_terms_keep_only_tools_the_seed_says_match() -> None:
    results = rank("+github list")
    assert results == ["mcp__github__list_pull_requests", "mcp__github__create_issue"]
    allowed = {INDEX.deferred_tools[i].name for i in INDEX.scores(QueryTerms(("github",), ()))}
    assert set(results) <= allowed
    # "list" alone would rank the Slack tool too; the required term removes it.
    assert "mcp__slack__list_channels" in rank("list")
    assert "mcp__slack__list_channels" not in results


def test_a_required_term_nothing_matches_gives_no_result() -> None:
    assert rank("+kubernetes pods") == []


def test_free_text_finds_the_tool_by_meaning_words() -> None:
    assert rank("post a message on slack")[0] == "mcp__slack__send_message"
    assert rank("what is the weather going to be in Paris")[0] == "mcp__weather__get_forecast"
    assert rank("open the jupyter notebook")[0] == "NotebookEdit"


def test_light_stemming_joins_word_forms() -> None:
    assert normalize_words("Reading files") == normalize_words("read file")
    assert rank("reading files")[0] == "mcp__files__read_file"


def test_schema_property_descriptions_count() -> None:
    # Only the input schema mentions a repository name for create_issue besides its description.
    assert "mcp__github__create_issue" in rank("repository name", 2)


def test_max_results_is_respected_and_validated() -> None:
    assert len(rank("list the", 1)) == 1
    with pytest.raises(ValueError, match="max_results"):
        rank("slack", 0)


def test_only_stop_words_falls_back_to_the_seed() -> None:
    assert rank("the") == INDEX.search("the", 5)


def test_bad_parameters_are_refused_with_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"FieldWeights\.name"):
        FieldWeights(name=-1)
    with pytest.raises(ValueError, match="k1"):
        FieldedRanker(b=2)
    with pytest.raises(ValueError, match="feedback"):
        FieldedRanker(feedback_docs=-1)


def test_plugged_into_the_toolsearch_tool_select_is_untouched() -> None:
    tool = tool_search_tool(ranking=FieldedRanker())
    pool = (tool, *POOL)
    state = ToolState(tuple(pool), frozenset(t.name for t in POOL))

    async def call(query: str) -> object:
        context = ToolContext(tool_use_id="toolu_1", abort=asyncio.Event(), cwd=Path("/tmp"), state=state)
        output = await tool.call({"query": query}, context)
        assert isinstance(output, ToolOutput)
        return output.content

    selected = asyncio.run(call("select:mcp__weather__get_forecast,NotebookEdit"))
    assert selected == [
        {"type": "tool_reference", "tool_name": "mcp__weather__get_forecast"},
        {"type": "tool_reference", "tool_name": "NotebookEdit"},
    ]
    searched = asyncio.run(call("send a slack message"))
    assert isinstance(searched, list)
    assert searched[0]["tool_name"] == "mcp__slack__send_message"


_WORDS = st.sampled_from(
    ["slack", "github", "list", "message", "file", "read", "weather", "the", "cells", "zzz"]
)


@settings(max_examples=60, deadline=None)
@given(words=st.lists(_WORDS, min_size=1, max_size=4), required=st.booleans(), limit=st.integers(1, 6))
def test_results_are_distinct_pool_tools_within_limit_and_honour_required(
    words: list[str], required: bool, limit: int
) -> None:
    """Property (DEFER-5 syntax): results are distinct deferred tools, at most max_results, and a
    ``+term`` query returns only tools that the seed says match every required term."""
    query = " ".join((["+" + words[0]] if required else [words[0]]) + words[1:])
    results = rank(query, limit)
    names = [t.name for t in POOL]
    assert len(results) <= limit
    assert len(set(results)) == len(results)
    assert all(name in names for name in results)
    if required:
        allowed = {INDEX.deferred_tools[i].name for i in INDEX.scores(QueryTerms((words[0],), ()))}
        assert set(results) <= allowed
