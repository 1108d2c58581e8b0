"""Mutant: tool_reference blocks are sent as stored, even when their tool left the request's tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-6"
DESCRIPTION = "a tool_reference to a disconnected MCP tool is re-sent (API: Tool reference not found)"


def _mutate(original: Any) -> Any:
    del original

    def resolve(messages: Sequence[Any], tool_names: frozenset[str], *, keep_references: bool) -> list[Any]:
        return list(messages)  # the defect: no check against the request's tools array

    return resolve


adapter = make_factory(Patch("reference_impl.request._builder", "_resolve_tool_references", _mutate))
