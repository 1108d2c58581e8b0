"""Mutant: bypassPermissions mode skips the deny rules (it checks the mode before the rules)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "bypassPermissions ignores deny rules: the mode short-circuits before the deny-rule check"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        if context.mode == "bypassPermissions":
            # The defect: in bypass mode the deny rules are never consulted.
            context = replace(context, rules=tuple(r for r in context.rules if r.behavior != "deny"))
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
