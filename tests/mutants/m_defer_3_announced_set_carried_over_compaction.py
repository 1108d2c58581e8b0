"""Mutant: compaction carries the announced deferred-tool set in the boundary, like the discovered set."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference_impl.request import CompactBoundary, DeferredToolsDelta, _notices
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-3"
DESCRIPTION = "after compaction the deleted notices still count as announced, so no tool is re-announced"

# boundary id -> (the boundary, the announced set it carries); the boundary is kept so ids stay unique.
_CARRIED: dict[int, tuple[CompactBoundary, dict[str, None]]] = {}


def _fold(entries: Iterable[Any]) -> dict[str, None]:
    announced: dict[str, None] = {}
    for entry in entries:
        if isinstance(entry, CompactBoundary):
            # The defect: the fold resumes from the set carried by the boundary, not from nothing.
            announced = dict(_CARRIED.get(id(entry), (entry, {}))[1])
        elif isinstance(entry, DeferredToolsDelta):
            for name in entry.added_names:
                announced.pop(name, None)
                announced[name] = None
            for name in entry.removed_names:
                announced.pop(name, None)
    return announced


def _compact(original: Any) -> Any:
    def compact(entries: Any, summary: str, *, keep_last: int) -> list[Any]:
        announced = _notices._announced_in_order(entries)
        result: list[Any] = original(entries, summary, keep_last=keep_last)
        for entry in result:
            if isinstance(entry, CompactBoundary):
                _CARRIED[id(entry)] = (entry, announced)
        return result

    return compact


adapter = make_factory(
    Patch("reference_impl.request._notices", "_announced_in_order", lambda original: _fold),
    Patch("reference_impl.agent._loop", "compact_entries", _compact),
)
