"""Mutant: bypassPermissions allows a call whose tool check flagged a safety ask."""

from __future__ import annotations

from typing import Any

from reference_impl import PermissionDecision
from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-5"
DESCRIPTION = "bypassPermissions turns a tool's safety-check ask (e.g. editing .git/config) into an allow"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        decision = original(tool, tool_input, context, hook_verdict, tool_context)
        if context.mode == "bypassPermissions" and decision.reason.stage == "safety":
            return PermissionDecision(
                behavior="allow",
                reason=DecisionReason(stage="mode", detail="bypassPermissions mode", mode=context.mode),
                updated_input=decision.updated_input,
            )
        return decision

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
