"""DEFER-4 mutant: ``select:`` looks names up exactly and misses a tool named by its alias."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-4"
DESCRIPTION = "select: compares names only, so select:<old alias> of a renamed tool returns nothing"

adapter = make_factory(
    Patch(
        "reference_impl.search._toolsearch",
        "select_tools",
        rewrite(
            "find_tool_by_name(deferred_tools, name) or find_tool_by_name(tools, name)",
            "find_tool_by_name(deferred_tools, name, use_aliases=False)"
            " or find_tool_by_name(tools, name, use_aliases=False)",
        ),
    )
)
