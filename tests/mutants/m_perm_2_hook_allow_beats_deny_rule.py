"""Mutant: a PreToolUse hook's allow is returned before the deny rules are checked."""

from __future__ import annotations

from typing import Any

from reference_impl import PermissionDecision
from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-2"
DESCRIPTION = "a PreToolUse hook's allow short-circuits the engine before the deny rules are consulted"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        if hook_verdict is not None and hook_verdict.behavior == "allow":
            return PermissionDecision(
                behavior="allow",
                reason=DecisionReason(
                    stage="hook", detail=hook_verdict.reason, hook=hook_verdict.hook or None
                ),
            )
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
