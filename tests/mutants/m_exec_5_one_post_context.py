"""Mutant: of several PostToolUse hooks' additionalContext, only the first one reaches the model."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = "two PostToolUse hooks add context to one call; only the first hook's context is kept"


def _mutate(original: Any) -> Any:
    async def run_post(hooks: Any, matched: Any, event: str, *args: Any) -> Any:
        outcome = await original(hooks, matched, event, *args)
        if event != "PostToolUse":
            return outcome
        return dataclasses.replace(outcome, additional_contexts=outcome.additional_contexts[:1])

    return run_post


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_run_post", _mutate))
