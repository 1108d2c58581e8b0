"""Mutant: ``select:A,B,A`` returns A twice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.tools import find_tool_by_name
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-4"
DESCRIPTION = "select: with a repeated name returns duplicate tool_reference blocks (no de-duplication)"


def _mutate(original: Any) -> Any:
    del original

    def select_tools(
        requested: Sequence[str], deferred_tools: Sequence[Any], tools: Sequence[Any]
    ) -> list[str]:
        found: list[str] = []
        for name in requested:
            tool = find_tool_by_name(deferred_tools, name) or find_tool_by_name(tools, name)
            if tool is not None:
                found.append(tool.name)
        return found

    return select_tools


adapter = make_factory(Patch("reference_impl.search._toolsearch", "select_tools", _mutate))
