"""Mutant: the request builder re-derives deferral as "is an MCP tool", ignoring built-in should_defer."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-2"
DESCRIPTION = "a deferred built-in tool (should_defer) is sent loaded: the wire flag checks only is_mcp"


def _mutate(original: Any) -> Any:
    del original

    def is_deferred(tool: Any, **_: Any) -> bool:
        return bool(tool.is_mcp and not tool.always_load)

    return is_deferred


adapter = make_factory(Patch("reference_impl.request._builder", "is_deferred_tool", _mutate))
