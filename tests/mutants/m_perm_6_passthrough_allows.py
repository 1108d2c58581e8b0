"""Mutant: a call nothing decided (the tool check passed through) is allowed instead of asked."""

from __future__ import annotations

from typing import Any

from reference_impl import PermissionDecision
from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-6"
DESCRIPTION = "an undecided 'passthrough' result is treated as allow (fail open) instead of ask"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        decision = original(tool, tool_input, context, hook_verdict, tool_context)
        if decision.behavior == "ask" and decision.reason.stage == "default":
            return PermissionDecision(
                behavior="allow",
                reason=DecisionReason(stage="default", detail="passthrough"),
                updated_input=decision.updated_input,
            )
        return decision

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
