"""Mutant: the pool is sorted as one list, so MCP tools land among the built-in tools."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-2"
DESCRIPTION = "built-in and MCP tools re-sorted together by name: an MCP tool moves the built-in prefix"


def _mutate(original: Any) -> Any:
    del original

    def assemble(
        built_in: Iterable[Any], mcp: Iterable[Any] = (), *, is_denied: Any = None
    ) -> tuple[Any, ...]:
        builtins = [t for t in built_in if not (is_denied and is_denied(t))]
        names = {t.name for t in builtins}
        mcps = [t for t in mcp if not (is_denied and is_denied(t)) and t.name not in names]
        pool: dict[str, Any] = {}
        # The defect: one sort over both groups.
        for tool in sorted([*builtins, *mcps], key=lambda t: (t.name.casefold(), t.name)):
            pool.setdefault(tool.name, tool)
        return tuple(pool.values())

    return assemble


adapter = make_factory(Patch("reference_impl.agent._loop", "assemble_tool_pool", _mutate))
