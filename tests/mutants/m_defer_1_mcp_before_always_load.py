"""Mutant: the MCP check comes before always_load, so a pinned MCP tool is deferred anyway."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from reference_impl.tools import CRITICAL_CHANNEL_TOOLS, TOOL_SEARCH_TOOL_NAME
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-1"
DESCRIPTION = "an MCP tool with always_load (anthropic/alwaysLoad) is still deferred: is_mcp checked first"


def _is_deferred(tool: Any, *, critical_channel_tools: Collection[str] = CRITICAL_CHANNEL_TOOLS) -> bool:
    if tool.is_mcp:
        return True  # the defect: before the always_load check
    if tool.always_load:
        return False
    if tool.name == TOOL_SEARCH_TOOL_NAME or tool.name in critical_channel_tools:
        return False
    return bool(tool.should_defer)


adapter = make_factory(
    *(
        Patch(module, "is_deferred_tool", lambda original: _is_deferred)
        for module in (
            "reference_impl.tools._defer",
            "reference_impl.request._notices",
            "reference_impl.request._builder",
            "pytest_toolharness.adapters.reference._adapter",
        )
    )
)
