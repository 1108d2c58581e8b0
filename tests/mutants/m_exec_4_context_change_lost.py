"""EXEC-4 mutant: a serial tool's context change never reaches the calls after it."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-4"
DESCRIPTION = "run_tool_use drops the tool's context modifier, so later calls run with the old context"


def _drop_context_change(original: Any) -> Any:
    async def run_tool_use(block: Any, control: Any, ctx: Any) -> Any:
        outcome = await original(block, control, ctx)
        return dataclasses.replace(outcome, context_modifier=None)

    return run_tool_use


# new_batch_executor calls run_tool_use through the module's globals.
adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_tool_use", _drop_context_change))
