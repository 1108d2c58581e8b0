"""Mutant: a PostToolUse block replaces the tool's result with the block message."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference_impl.hooks import OutputUpdate
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-4"
DESCRIPTION = "PostToolUse decision 'block' discards the result the call already produced (acts as a deny)"


def _mutate(original: Any) -> Any:
    async def run_post(*args: Any, **kwargs: Any) -> Any:
        outcome = await original(*args, **kwargs)
        if outcome.block:
            text = f"Error: {outcome.block_reason}"
            return replace(outcome, updated_mcp_tool_output=OutputUpdate(text, "post-block"))
        return outcome

    return run_post


adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_post_tool_use", _mutate))
