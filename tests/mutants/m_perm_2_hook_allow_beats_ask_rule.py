"""Mutant: a PreToolUse hook's allow skips the ask rules (the user is never asked)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-2"
DESCRIPTION = "a PreToolUse hook's permissionDecision allow bypasses an ask rule (no prompt is shown)"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        if hook_verdict is not None and hook_verdict.behavior == "allow":
            context = replace(context, rules=tuple(r for r in context.rules if r.behavior != "ask"))
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
