"""Mutant: a whole-tool deny rule hides every tool whose name equals it but for letter case."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-10"
DESCRIPTION = (
    "deny mcp__gh__issues also hides mcp__GH__issues (another server's tool): the pool filter "
    "compares whole-tool deny rules with tool names after lower-casing both"
)


def _mutate(original: Any) -> Any:
    def is_tool_denied_as_whole(tool: Any, context: Any) -> bool:
        if original(tool, context):
            return True
        folded = tool.name.casefold()
        return any(
            r.behavior == "deny" and r.is_whole_tool and r.tool_name.casefold() == folded
            for r in context.rules
        )

    return is_tool_denied_as_whole


adapter = make_factory(
    Patch("reference_impl.agent._loop", "is_tool_denied_as_whole", _mutate),
)
