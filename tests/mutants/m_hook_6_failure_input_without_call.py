"""Mutant: a PostToolUseFailure hook's input does not say which call failed."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-6"
DESCRIPTION = (
    "PostToolUseFailure inputs are built from the PostToolUse template minus tool_response: "
    "tool_use_id goes with it, so a hook can't tell which of several failed calls it is about"
)


def _mutate(original: Any) -> Any:
    async def run_post(
        hooks: Any, matched: Any, event: str, tool_name: str, data: dict[str, Any], *rest: Any
    ) -> Any:
        if event == "PostToolUseFailure":
            data = {k: v for k, v in data.items() if k != "tool_use_id"}
        return await original(hooks, matched, event, tool_name, data, *rest)

    return run_post


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_run_post", _mutate))
