"""Mutant: compaction keeps the last entries as they fall, tool_results cut off from their tool_use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-1"
DESCRIPTION = (
    "compaction cuts the transcript at the last N entries even when the first kept message holds "
    "tool_results whose tool_use was summarised away: the next request has orphaned tool_results"
)


def _mutate(_original: Any) -> Any:
    def safe_cut(entries: Sequence[Any], cut: int) -> int:
        return cut

    return safe_cut


adapter = make_factory(Patch("reference_impl.request._discovery", "_safe_cut", _mutate))
