"""Mutant: the pool filter does not understand the ``mcp__server__*`` form of a server-wide deny."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-10"
DESCRIPTION = "a deny rule mcp__server__* leaves the server's tools in the list the model sees"


def _mutate(original: Any) -> Any:
    def applies(rule: Any, tool: Any) -> bool:
        if rule.tool_name.endswith("__*"):
            return False  # the defect: only the bare mcp__server form is recognised
        return bool(original(rule, tool))

    return applies


adapter = make_factory(Patch("reference_impl.permissions._engine", "rule_applies_to_tool", _mutate))
