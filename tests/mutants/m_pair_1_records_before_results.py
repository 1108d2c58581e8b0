"""PAIR-1 mutant: user turns are merged in transcript order, so an entry stored while a tool ran precedes its result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-1"
DESCRIPTION = (
    "consecutive user entries are merged as stored: a notice recorded while a tool ran comes before its "
    "tool_result (the API requires results first)"
)


def _as_stored(original: Any) -> Any:
    def tool_results_first(blocks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(blocks)

    return tool_results_first


adapter = make_factory(Patch("reference_impl.request._transcript", "_tool_results_first", _as_stored))
