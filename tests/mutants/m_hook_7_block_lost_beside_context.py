"""Mutant: a UserPromptSubmit block is dropped when another hook on the same prompt adds context."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-7"
DESCRIPTION = (
    "one UserPromptSubmit hook blocks, another adds context: the context wins and the prompt is sent"
)


def _mutate(original: Any) -> Any:
    async def run_lifecycle(hooks: Any, event: Any, fields: Any, **kwargs: Any) -> Any:
        outcome = await original(hooks, event, fields, **kwargs)
        if event == "UserPromptSubmit" and outcome.block and outcome.additional_contexts:
            return replace(outcome, block_reasons=[])
        return outcome

    return run_lifecycle


adapter = make_factory(Patch("reference_impl.agent._loop", "run_lifecycle", _mutate))
