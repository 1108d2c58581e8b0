"""PERM-6 mutant: a PreToolUse hook's ``permissionDecision: "defer"`` is read as no decision at all."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-6"
DESCRIPTION = 'PreToolUse "defer" read as silence: an allow rule, hook allow or bypass runs the call'


def _mutate(original: Any) -> Any:
    def _pre_decision(f: Any, label: str) -> Any:
        behavior, reason, updated = original(f, label)
        if f.hso.get("permissionDecision") == "defer":
            return None, reason, updated
        return behavior, reason, updated

    return _pre_decision


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_pre_decision", _mutate))
