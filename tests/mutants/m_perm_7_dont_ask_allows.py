"""Mutant: dontAsk mode turns an ask into an allow ("don't ask me, just do it")."""

from __future__ import annotations

from typing import Any

from reference_impl import PermissionDecision
from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-7"
DESCRIPTION = "dontAsk resolves every ask as allow instead of deny"


def _mutate(original: Any) -> Any:
    def resolve(tool: Any, tool_input: Any, context: Any, decision: Any, *, ordinary: bool) -> Any:
        if context.mode == "dontAsk":
            return PermissionDecision(
                behavior="allow",
                reason=DecisionReason(stage="mode", detail="dontAsk mode", mode=context.mode),
                updated_input=decision.updated_input,
            )
        return original(tool, tool_input, context, decision, ordinary=ordinary)

    return resolve


adapter = make_factory(Patch("reference_impl.permissions._engine", "_apply_mode_to_ask", _mutate))
