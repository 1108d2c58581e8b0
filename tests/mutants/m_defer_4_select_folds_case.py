"""Mutant: ``select:`` removes duplicates by lower-cased name, so case twins collapse into one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.tools import find_tool_by_name
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-4"
DESCRIPTION = (
    "select:mcp__gh__issues,mcp__GH__issues returns one tool: duplicates are removed by "
    "lower-cased name, though the two names are two tools"
)


def _select_tools(requested: Sequence[str], deferred_tools: Sequence[Any], tools: Sequence[Any]) -> list[str]:
    found: list[str] = []
    for name in requested:
        tool = find_tool_by_name(deferred_tools, name) or find_tool_by_name(tools, name)
        if tool is not None and tool.name.casefold() not in {f.casefold() for f in found}:
            found.append(tool.name)
    return found


def _mutate(_original: Any) -> Any:
    return _select_tools


adapter = make_factory(Patch("reference_impl.search._toolsearch", "select_tools", _mutate))
