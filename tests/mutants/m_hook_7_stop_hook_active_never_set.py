"""Mutant: the Stop input always says ``stop_hook_active: false``, so a guarded Stop hook blocks forever."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-7"
DESCRIPTION = "after a Stop hook blocked, the next Stop input still has stop_hook_active false"


def _mutate(original: Any) -> Any:
    async def run_lifecycle(hooks: Any, event: Any, fields: Any, **kwargs: Any) -> Any:
        if event in ("Stop", "SubagentStop"):
            fields = {**fields, "stop_hook_active": False}
        return await original(hooks, event, fields, **kwargs)

    return run_lifecycle


adapter = make_factory(Patch("reference_impl.agent._loop", "run_lifecycle", _mutate))
