"""Mutant: a PreToolUse hook's ``continue: false`` is taken for a deny; the call never runs."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = (
    "PreToolUse continue: false denies the call (Claude Code runs it and stops after the turn's results)"
)


def _mutate(original: Any) -> Any:
    from reference_impl.permissions import HookVerdict

    async def run_pre_tool_use(*args: Any, **kwargs: Any) -> Any:
        outcome = await original(*args, **kwargs)
        if not outcome.stop:
            return outcome
        verdict = HookVerdict("deny", f"Execution stopped by PreToolUse hook: {outcome.stop_reason}", "stop")
        return dataclasses.replace(outcome, verdict=verdict, updated_input=None)

    return run_pre_tool_use


adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_pre_tool_use", _mutate))
