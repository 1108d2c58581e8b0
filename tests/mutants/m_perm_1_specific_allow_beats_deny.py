"""Mutant: a more specific allow rule beats a broader deny rule ("most specific rule wins")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import rule_matches

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "specificity precedence: allow Bash(git push:*) overrides the broader deny Bash(git *)"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        def matches(rule: Any) -> bool:
            return rule_matches(rule, tool, tool_input, context)

        allows = [r for r in context.rules if r.behavior == "allow" and r.content is not None and matches(r)]
        if allows:
            longest = max(len(r.content) for r in allows)
            # The defect: a deny whose pattern is less specific (shorter) than a matching allow is dropped.
            kept = tuple(
                r
                for r in context.rules
                if not (
                    r.behavior == "deny" and r.content is not None and len(r.content) < longest and matches(r)
                )
            )
            context = replace(context, rules=kept)
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
