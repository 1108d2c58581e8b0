"""Mutant: the schema cache is keyed by tool name only, also for raw-JSON-schema (MCP) tools."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-4"
DESCRIPTION = "an MCP server that changes a tool's input schema keeps getting the stale cached schema"


def _mutate(original: Any) -> Any:
    del original

    def schema_cache_key(tool: Any) -> str:
        return str(tool.name)

    return schema_cache_key


adapter = make_factory(Patch("reference_impl.request._schemas", "schema_cache_key", _mutate))
