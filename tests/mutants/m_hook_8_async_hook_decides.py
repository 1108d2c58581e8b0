"""Mutant: an async command hook is awaited like any other, so its deny blocks the call."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = "a hook marked async: true is run in the foreground and its decision applies"


def _mutate(original: Any) -> Any:
    async def run_one(
        hook: Any,
        matcher_timeout: Any,
        event: str,
        input_data: Any,
        tool_use_id: Any,
        cwd: str,
        background: Any = None,
    ) -> Any:
        return await original(hook, matcher_timeout, event, input_data, tool_use_id, cwd, None)

    return run_one


adapter = make_factory(Patch("reference_impl.hooks._runner", "_run_one", _mutate))
