"""Mutant: with nobody to ask and no PermissionRequest decision, the call is allowed."""

from __future__ import annotations

from typing import Any

from reference_impl import PermissionDecision
from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-8"
DESCRIPTION = "a headless session (no host callback) proceeds when no PermissionRequest hook decided"


def _mutate(original: Any) -> Any:
    async def resolve(tool: Any, tool_input: Any, decision: Any, ctx: Any, tool_context: Any) -> Any:
        result, final_input, interrupts = await original(tool, tool_input, decision, ctx, tool_context)
        if result.behavior == "deny" and result.reason.stage == "headless":
            return (
                PermissionDecision("allow", DecisionReason("headless", detail="nobody to ask")),
                final_input,
                interrupts,
            )
        return result, final_input, interrupts

    return resolve


adapter = make_factory(Patch("reference_impl.execution._pipeline", "settle_ask_with_hooks_or_host", _mutate))
