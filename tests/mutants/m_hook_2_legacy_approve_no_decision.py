"""Mutant: a PreToolUse hook's legacy ``decision: "approve"`` decides nothing."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = (
    "only the legacy 'block' is translated (to deny): a hook answering the older "
    "decision: 'approve' is taken for one without a decision, so its call goes to the host"
)


def _mutate(original: Any) -> Any:
    def _pre_decision(f: Any, label: str) -> tuple[Any, str, Any]:
        behavior, reason, updated = original(f, label)
        if f.hso.get("permissionDecision") is None and f.decision == "approve":
            return None, reason, updated
        return behavior, reason, updated

    return _pre_decision


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_pre_decision", _mutate))
