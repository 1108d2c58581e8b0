"""PAIR-1 mutant: hook additional context is put before the tool_results of the user message."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-1"
DESCRIPTION = (
    "Hook additional-context text blocks are placed before the tool_results (the API requires results first)"
)


def _context_first(original: Any) -> Any:
    def finish_batch(blocks: Sequence[Any], outcomes: Sequence[Any], ctx: Any) -> list[dict[str, Any]]:
        content = original(blocks, outcomes, ctx)
        results = [b for b in content if b.get("type") == "tool_result"]
        others = [b for b in content if b.get("type") != "tool_result"]
        return others + results

    return finish_batch


adapter = make_factory(Patch("reference_impl.execution._pipeline", "finish_batch", _context_first))
