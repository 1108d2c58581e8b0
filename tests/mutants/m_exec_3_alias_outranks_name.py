"""Mutant: a tool's alias outranks another tool's own name when a call is looked up."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-3"
DESCRIPTION = (
    "the call's name is looked up among the aliases first: a tool that kept a name as its old alias "
    "takes the calls of the new tool that bears it"
)


def _mutate(original: Any) -> Any:
    def find_tool_by_name(tools: Sequence[Any], name: str, *, use_aliases: bool = True) -> Any:
        owner = next((tool for tool in tools if use_aliases and name in tool.aliases), None)
        return owner if owner is not None else original(tools, name, use_aliases=use_aliases)

    return find_tool_by_name


adapter = make_factory(Patch("reference_impl.execution._context", "find_tool_by_name", _mutate))
