"""PAIR-1 mutant: results of an earlier batch leak into the next user message (orphaned tool_results)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-1"
DESCRIPTION = (
    "A pending-results buffer is never cleared, so the next message also answers tool_use ids of an "
    "earlier turn (orphaned / duplicated tool_results)"
)


def _leaky(original: Any) -> Any:
    pending: list[dict[str, Any]] = []

    def finish_batch(blocks: Sequence[Any], outcomes: Sequence[Any], ctx: Any) -> list[dict[str, Any]]:
        content = original(blocks, outcomes, ctx)
        results = [b for b in content if b.get("type") == "tool_result"]
        others = [b for b in content if b.get("type") != "tool_result"]
        pending.extend(results)  # the bug: the buffer outlives the batch
        return [*pending, *others]

    return finish_batch


adapter = make_factory(Patch("reference_impl.execution._pipeline", "finish_batch", _leaky))
