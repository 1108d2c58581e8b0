"""The ToolSearch tool: how the model loads deferred tools (000 §6.2; DEFER-4, DEFER-5).

``select:A,B`` names tools directly; anything else is a keyword search with the seed's scores
(:mod:`reference_impl.search._index`). The result is a ``tool_result`` whose content is a list
of ``tool_reference`` blocks (the API then expands those tools' schemas), or the text
"No matching deferred tools found" when nothing matched: never an empty block list, never an
error.

The tool reads the current pool and the deferred set from its :class:`ToolContext`'s
:class:`ToolState` (``tools`` and ``deferred_tool_names``); an empty state has nothing to find.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final, Literal, Protocol

from anthropic.types import ToolReferenceBlockParam, ToolResultBlockParam
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reference_impl.search._index import DEFAULT_MAX_RESULTS, SearchIndex, SearchIndexCache
from reference_impl.search._terms import JS_WHITESPACE
from reference_impl.tools import (
    TOOL_SEARCH_TOOL_NAME,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolOutput,
    ToolPermissionCheck,
    build_tool,
    find_tool_by_name,
)

__all__ = [
    "NO_MATCH_TEXT",
    "TOOL_SEARCH_DESCRIPTION",
    "TOOL_SEARCH_MAX_RESULT_SIZE_CHARS",
    "Ranker",
    "SeedRanker",
    "ToolSearchInput",
    "map_tool_search_result",
    "parse_select",
    "run_tool_search",
    "select_tools",
    "tool_references",
    "tool_search_tool",
]

NO_MATCH_TEXT: Final = "No matching deferred tools found"
TOOL_SEARCH_MAX_RESULT_SIZE_CHARS: Final = 100_000

TOOL_SEARCH_DESCRIPTION: Final = """\
Loads the full definitions of deferred tools so that you can call them.

Deferred tools are announced by name only (in <system-reminder> messages); until one is loaded \
here, its parameters are unknown and it cannot be called. Each tool this returns is loaded and \
can be called from then on.

Query forms:
- "select:Name1,Name2" loads exactly the named tools (names are case-sensitive).
- "slack message" searches tool names, descriptions and search hints for the keywords and \
returns the best max_results matches.
- "+github issue" requires "github" to match and ranks the matches by the remaining terms.
- "mcp__server" lists the tools of that MCP server."""


class ToolSearchInput(BaseModel):
    """The ToolSearch input: a query and how many results to return at most."""

    query: str = Field(
        description='"select:<name>[,<name>...]" to load tools by name, or keywords to search for.'
    )
    max_results: int = Field(
        default=DEFAULT_MAX_RESULTS, ge=1, description="How many tools to return at most (default 5)."
    )

    model_config = ConfigDict(title="ToolSearchInput")


# JS: query.match(/^select:(.+)$/i). ``.`` stops at line terminators, ``$`` is the end of input
# (no m flag), and /i without u folds ASCII letters only: hence [^...] , \Z and re.ASCII.
_SELECT = re.compile(r"select:([^\n\r\u2028\u2029]+)\Z", re.IGNORECASE | re.ASCII)


def parse_select(query: str) -> list[str] | None:
    """The names of a ``select:`` query (split on commas, trimmed, empty dropped); None otherwise."""
    match = _SELECT.match(query)
    if match is None:
        return None
    return [name for name in (piece.strip(JS_WHITESPACE) for piece in match.group(1).split(",")) if name]


def select_tools(
    requested: Sequence[str], deferred_tools: Sequence[Tool], tools: Sequence[Tool]
) -> list[str]:
    """The tools a ``select:`` names, in request order, without duplicates (DEFER-4).

    Each name is looked up among the deferred tools first, then in the whole pool (a loaded tool
    is returned again: selecting is idempotent). Lookup is exact (aliases count, as in
    Claude Code's ``findToolByName``); unknown names are dropped.
    """
    found: list[str] = []
    for name in requested:
        tool = find_tool_by_name(deferred_tools, name) or find_tool_by_name(tools, name)
        if tool is not None and tool.name not in found:
            found.append(tool.name)
    return found


class Ranker(Protocol):
    """A keyword ranking: the names of at most ``max_results`` tools of ``index``, best first.

    The default is the seed's scoring (:class:`SeedRanker`); a better ranking can be plugged into
    :func:`tool_search_tool` without touching ``select:`` handling.
    """

    def __call__(self, index: SearchIndex, query: str, max_results: int) -> list[str]:
        """Rank the deferred tools of ``index`` for ``query``."""
        ...


class SeedRanker:
    """The seed's keyword search (DEFER-5): :meth:`SearchIndex.search`."""

    def __call__(self, index: SearchIndex, query: str, max_results: int) -> list[str]:
        """Rank with the seed's scores."""
        return index.search(query, max_results)


def run_tool_search(
    query: str,
    max_results: int,
    deferred_tools: Sequence[Tool],
    tools: Sequence[Tool],
    *,
    cache: SearchIndexCache | None = None,
    ranker: Ranker | None = None,
) -> list[str]:
    """The names a ToolSearch query returns: ``select:`` names or a keyword ranking."""
    requested = parse_select(query)
    if requested is not None:
        return select_tools(requested, deferred_tools, tools)
    index = (cache or SearchIndexCache()).get(deferred_tools, tools)
    return (ranker or SeedRanker())(index, query, max_results)


def tool_references(names: Sequence[str]) -> list[ToolReferenceBlockParam]:
    """One ``tool_reference`` block per name, in order."""
    return [{"type": "tool_reference", "tool_name": name} for name in names]


def map_tool_search_result(output: ToolOutput, tool_use_id: str) -> ToolResultBlockParam:
    """The ``tool_result`` of a ToolSearch call: tool_reference blocks, or the no-match text."""
    content = output.content
    if isinstance(content, str):
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content or NO_MATCH_TEXT}
    items: Sequence[Mapping[str, Any]] = [content] if isinstance(content, Mapping) else content
    if not items:
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": NO_MATCH_TEXT}
    blocks: list[ToolReferenceBlockParam] = []
    for block in items:
        name = block.get("tool_name")
        if block.get("type") != "tool_reference" or not isinstance(name, str):
            raise ValueError(f"a ToolSearch result holds only tool_reference blocks, not {block!r}")
        blocks.append({"type": "tool_reference", "tool_name": name})
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": blocks}


def _allow_search(_input: Mapping[str, Any], _context: ToolContext) -> ToolPermissionCheck:
    return ToolPermissionCheck("allow", message="ToolSearch only reads the tool list")


def tool_search_tool(
    *,
    search_hint: str | None = None,
    description: str = TOOL_SEARCH_DESCRIPTION,
    ranking: Literal["seed"] | Ranker = "seed",
) -> Tool:
    """The ToolSearch tool: concurrency safe, read-only, never deferred (DEFER-1).

    Its keyword index is built on first use and updated whenever the pool or the deferred set
    changes (a large change rebuilds it). ``ranking`` is ``"seed"`` (the seed's scores, DEFER-5) or a :class:`Ranker`.
    """
    if ranking == "seed":
        ranker: Ranker = SeedRanker()
    elif callable(ranking):
        ranker = ranking
    else:
        raise ValueError(f"ranking must be 'seed' or a Ranker, got {ranking!r}")
    cache = SearchIndexCache()
    # The last pool seen and its deferred tools, so that an unchanged pool costs no scan.
    last: list[Any] = [None, None, ()]

    def deferred_of(tools: Sequence[Tool], names: Collection[str]) -> tuple[Tool, ...]:
        if last[0] is not tools or last[1] is not names or not isinstance(tools, tuple):
            last[:] = [tools, names, tuple(tool for tool in tools if tool.name in names)]
        deferred: tuple[Tool, ...] = last[2]
        return deferred

    async def call(raw_input: ToolInput, context: ToolContext) -> ToolOutput:
        try:
            params = ToolSearchInput.model_validate(dict(raw_input))
        except ValidationError as error:
            raise ToolError(f"{TOOL_SEARCH_TOOL_NAME}: invalid input: {error}") from error
        tools, deferred_names = context.state.tools, context.state.deferred_tool_names
        names = run_tool_search(
            params.query,
            params.max_results,
            deferred_of(tools, deferred_names),
            tools,
            cache=cache,
            ranker=ranker,
        )
        if not names:
            return ToolOutput(content=NO_MATCH_TEXT)
        return ToolOutput(content=tool_references(names))

    def always(_input: ToolInput) -> bool:
        return True

    return build_tool(
        TOOL_SEARCH_TOOL_NAME,
        description,
        call,
        input_model=ToolSearchInput,
        search_hint=search_hint,
        is_concurrency_safe=always,
        is_read_only=always,
        max_result_size_chars=TOOL_SEARCH_MAX_RESULT_SIZE_CHARS,
        map_result=map_tool_search_result,
        # Searching only reads the harness's own tool list: Claude Code never asks about it. A
        # deny rule still wins, because the engine checks deny rules before the tool's opinion.
        check_permissions=_allow_search,
    )
