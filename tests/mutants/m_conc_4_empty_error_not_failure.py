"""Mutant: a tool that returns an error result with nothing in it has not failed, for the scheduler."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-4"
DESCRIPTION = (
    "an error result without output (is_error, empty content: sent as '(X failed with no output)') is "
    "taken for an empty success by the scheduler, so a shell call failing that way cancels no sibling"
)


def _mutate(original: Any) -> Any:
    async def run_tool_use(block: Any, control: Any, ctx: Any) -> Any:
        outcome = await original(block, control, ctx)
        content = outcome.result.get("content")
        if (
            outcome.failed
            and not outcome.synthetic
            and isinstance(content, str)
            and "with no output" in content
        ):
            return dataclasses.replace(outcome, failed=False)
        return outcome

    return run_tool_use


adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_tool_use", _mutate))
