"""Mutant: compaction writes a boundary without the discovered tools."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference_impl.request import CompactBoundary
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-7"
DESCRIPTION = "a compaction forgets the discovered tools (pre_compact_discovered_tools left empty)"


def _mutate(original: Any) -> Any:
    def compact(entries: Any, summary: str, *, keep_last: int) -> list[Any]:
        result: list[Any] = original(entries, summary, keep_last=keep_last)
        return [
            replace(e, pre_compact_discovered_tools=()) if isinstance(e, CompactBoundary) else e
            for e in result
        ]

    return compact


adapter = make_factory(Patch("reference_impl.agent._loop", "compact_entries", _mutate))
