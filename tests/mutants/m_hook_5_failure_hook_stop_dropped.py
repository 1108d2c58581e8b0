"""HOOK-5 mutant: a PostToolUseFailure hook's ``continue: false`` is dropped; the loop goes on."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = "continue: false read from PostToolUse hooks but not from PostToolUseFailure ones"


def _mutate(original: Any) -> Any:
    async def run_post_tool_use_failure(hooks: Any, **kwargs: Any) -> Any:
        outcome = await original(hooks, **kwargs)
        return dataclasses.replace(outcome, stop=False, stop_reason="")

    return run_post_tool_use_failure


adapter = make_factory(Patch("reference_impl.execution._pipeline", "run_post_tool_use_failure", _mutate))
