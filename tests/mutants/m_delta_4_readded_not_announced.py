"""Mutant: a tool once announced is never announced again, even after a notice withdrew it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reference_impl.request import CompactBoundary, DeferredToolsDelta, _notices
from reference_impl.tools import is_deferred_tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-4"
DESCRIPTION = "added is computed against every name ever announced, so a reconnected MCP tool stays silent"


def _ever_announced(entries: Iterable[Any]) -> set[str]:
    seen: set[str] = set()
    for entry in entries:
        if isinstance(entry, CompactBoundary):
            seen.clear()
        elif isinstance(entry, DeferredToolsDelta):
            seen.update(entry.added_names)
    return seen


def _delta(
    pool: Sequence[Any], entries: Iterable[Any], *, is_deferred: Callable[[Any], bool] = is_deferred_tool
) -> DeferredToolsDelta | None:
    entries = list(entries)
    announced = _notices._announced_in_order(entries)
    ever = _ever_announced(entries)
    added = [tool for tool in pool if is_deferred(tool) and tool.name not in ever]  # the defect
    pool_names = {tool.name for tool in pool}
    removed = [name for name in announced if name not in pool_names]
    if not added and not removed:
        return None
    return DeferredToolsDelta(
        added_names=tuple(t.name for t in added),
        added_lines=tuple(_notices.format_deferred_tool_line(t) for t in added),
        removed_names=tuple(removed),
    )


adapter = make_factory(
    Patch("reference_impl.request._notices", "compute_deferred_tools_delta", lambda original: _delta),
    Patch("reference_impl.request._builder", "compute_deferred_tools_delta", lambda original: _delta),
)
