"""EXEC-2 mutant: once a PreToolUse hook rewrote the input, a later approval's rewrite is judged but not run."""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-2"
DESCRIPTION = (
    "One 'rewritten input' slot, filled by the first stage that rewrote: after a PreToolUse rewrite, "
    "a PermissionRequest hook's or the host's rewrite is judged, but the call runs the PreToolUse one"
)

_HOOK_REWROTE: contextvars.ContextVar[bool] = contextvars.ContextVar("_HOOK_REWROTE", default=False)


def _note(original: Any) -> Any:
    async def run_pre_tool_use(hooks: Any, **kwargs: Any) -> Any:
        outcome = await original(hooks, **kwargs)
        _HOOK_REWROTE.set(outcome.updated_input is not None)
        return outcome

    return run_pre_tool_use


def _keep_first(original: Any) -> Any:
    async def settle_ask_with_hooks_or_host(
        tool: Any, tool_input: Mapping[str, Any], decision: Any, ctx: Any, tool_context: Any
    ) -> Any:
        settled, final, interrupts = await original(tool, tool_input, decision, ctx, tool_context)
        if _HOOK_REWROTE.get() and settled.behavior == "allow":
            return dataclasses.replace(settled, updated_input=None), tool_input, interrupts
        return settled, final, interrupts

    return settle_ask_with_hooks_or_host


adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "run_pre_tool_use", _note),
    Patch("reference_impl.execution._pipeline", "settle_ask_with_hooks_or_host", _keep_first),
)
