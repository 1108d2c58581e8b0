"""Mutant: bypassPermissions honours whole-tool ask rules but skips content-level ones."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-5"
DESCRIPTION = "bypassPermissions skips content-level ask rules such as Bash(git push:*) (only Tool asks hold)"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        if context.mode == "bypassPermissions":
            kept = tuple(r for r in context.rules if not (r.behavior == "ask" and r.content is not None))
            context = replace(context, rules=kept)
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
