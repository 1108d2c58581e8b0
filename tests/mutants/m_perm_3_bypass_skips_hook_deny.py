"""Mutant: bypassPermissions mode ignores a PreToolUse hook's deny."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-3"
DESCRIPTION = "bypassPermissions drops the PreToolUse hooks' verdict, so a hook's deny no longer blocks"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        if (
            context.mode == "bypassPermissions"
            and hook_verdict is not None
            and hook_verdict.behavior == "deny"
        ):
            hook_verdict = None
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
