"""Mutant: the highest-precedence settings source with a matching rule decides alone."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import rule_matches

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-4"
DESCRIPTION = "settings merged by replacement: a local-settings allow re-allows what user settings deny"

_RANK = {
    "userSettings": 0,
    "projectSettings": 1,
    "localSettings": 2,
    "session": 3,
    "command": 3,
    "cliArg": 4,
    "flagSettings": 4,
    "policySettings": 5,
}


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        matching = [r for r in context.rules if rule_matches(r, tool, tool_input, context)]
        if matching:
            top = max(_RANK[r.source] for r in matching)
            # The defect: only the winning source's rules count; lower sources are discarded.
            kept = tuple(r for r in context.rules if r not in matching or _RANK[r.source] == top)
            context = replace(context, rules=kept)
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
