"""Mutant: an allow rule from a higher-precedence settings source overrides an ask rule from a lower one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import rule_matches

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-4"
DESCRIPTION = "rules resolved by settings-source precedence: a local/policy allow overrides a user ask"

# Claude Code's settings precedence, highest last.
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
        allows = [
            r for r in context.rules if r.behavior == "allow" and rule_matches(r, tool, tool_input, context)
        ]
        if allows:
            top = max(_RANK[r.source] for r in allows)
            # The defect: ask rules from a lower-precedence source are shadowed by the allow.
            kept = tuple(r for r in context.rules if not (r.behavior == "ask" and _RANK[r.source] < top))
            context = replace(context, rules=kept)
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
