"""The wire scenario for ToolSearch's keyword search: its fast paths and limit (DEFER-5).

``search`` (tool search on): five deferred MCP tools, then one turn of searches: a tool's exact
name, a required term (``+forecast``), a limit (``max_results: 1``), a query nothing matches, and a
server prefix. What the model is shown (the ``tool_reference`` blocks of each result) is what a
check judges; a run where no search returned any reference never exercised the search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.specs import ToolBehavior
from pytest_toolharness.wire.model_api import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.scenarios._core import (
    CLAUDE_CODE_NAMES,
    SERVER_NAME,
    ToolNames,
    WireScenario,
    mcp_spec,
)

__all__ = ["SEARCHES", "SEARCH_TOOLS", "search_ids", "search_scenario"]

_PREFIX = "01Srch"

#: MCP tool → its description; ``forecast`` is in exactly two of them.
SEARCH_TOOLS: Mapping[str, str] = {
    "w_alpha": "Get the weather forecast for a city.",
    "w_beta": "Weather radar images and storm warnings.",
    "n_notes": "Write and read personal notes.",
    "f_flights": "Search flights and their forecast delays.",
    "s_stocks": "Stock quotes and market data.",
}


def _searches(names: ToolNames) -> dict[str, dict[str, Any]]:
    return {
        "exact": {"query": names.mcp("n_notes")},
        "required": {"query": "+forecast"},
        "limit": {"query": "weather", "max_results": 1},
        "nothing": {"query": "zzqx-matches-nothing"},
        "server": {"query": names.mcp("", SERVER_NAME).rstrip("_")},
    }


#: label → the ToolSearch input of that search (Claude Code's names).
SEARCHES: Mapping[str, Mapping[str, Any]] = _searches(CLAUDE_CODE_NAMES)


def search_ids() -> dict[str, str]:
    """Label → the tool_use id of that search."""
    return {label: tool_use_id(1 + n, _PREFIX) for n, label in enumerate(SEARCHES)}


def search_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Five deferred MCP tools and one turn of :data:`SEARCHES` (see the module docstring)."""
    tools = [
        mcp_spec(tool, description, ToolBehavior("text", text=f"{tool}-ran"), names=names)
        for tool, description in SEARCH_TOOLS.items()
    ]
    ids = search_ids()
    calls = [
        ToolUseBlock(ids[label], names.builtin("tool_search"), args)
        for label, args in _searches(names).items()
    ]
    return WireScenario(
        name="search",
        prompt="Find the tools you need.",
        steps=(AssistantTurn((TextBlock("Searching."), *calls)),),
        mcp_tools=tuple(tools),
        env={"ENABLE_TOOL_SEARCH": "true"},
        roles=frozenset({"mcp", "tool_search"}),
    )
