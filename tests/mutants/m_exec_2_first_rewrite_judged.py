"""EXEC-2 mutant: the rules judge the first PreToolUse hook's rewrite, the call gets the last one."""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-2"
DESCRIPTION = (
    "Each PreToolUse rewrite is judged as it arrives and only the first is judged: with several "
    "rewriting hooks the permission decision sees the first rewrite while the call runs the last"
)

# The rewrites of the current call's PreToolUse hooks, in the order they were read.
_REWRITES: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "_REWRITES", default=None
)


def _record(original: Any) -> Any:
    def _pre_decision(f: Any, label: str) -> Any:
        parsed = original(f, label)
        seen = _REWRITES.get()
        if seen is not None and parsed[2] is not None:
            seen.append(dict(parsed[2]))
        return parsed

    return _pre_decision


def _reset(original: Any) -> Any:
    async def run_pre_tool_use(hooks: Any, **kwargs: Any) -> Any:
        _REWRITES.set([])
        return await original(hooks, **kwargs)

    return run_pre_tool_use


def _judge_first(original: Any) -> Any:
    def decide_permission(tool: Any, tool_input: Mapping[str, Any], *args: Any, **kwargs: Any) -> Any:
        seen = _REWRITES.get()
        _REWRITES.set(None)
        return original(tool, seen[0] if seen else tool_input, *args, **kwargs)

    return decide_permission


adapter = make_factory(
    Patch("reference_impl.hooks._tool_events", "_pre_decision", _record),
    Patch("reference_impl.execution._pipeline", "run_pre_tool_use", _reset),
    Patch("reference_impl.execution._pipeline", "decide_permission", _judge_first),
)
