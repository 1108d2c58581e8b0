"""EXEC-5 mutant: a PostToolUse hook's updatedMCPToolOutput is ignored."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = "The PostToolUse hook's updatedMCPToolOutput is parsed but never applied: the model gets the original output"


def _drop_update(original: Any) -> Any:
    async def run_post_tool_use(hooks: Any, **kwargs: Any) -> Any:
        outcome = await original(hooks, **kwargs)
        return dataclasses.replace(outcome, updated_mcp_tool_output=None)

    return run_post_tool_use


adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_post_tool_use", _drop_update))
