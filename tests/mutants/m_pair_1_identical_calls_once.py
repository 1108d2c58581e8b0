"""Mutant: two identical calls (same tool, same input) in one batch get one tool_result between them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-1"
DESCRIPTION = (
    "the model repeats a call with the same name and input in one turn: the harness answers the "
    "first and treats the repeat as a duplicate, leaving its id unanswered"
)


def _mutate(original: Any) -> Any:
    def finish_batch(blocks: Sequence[Any], outcomes: Sequence[Any], ctx: Any) -> list[dict[str, Any]]:
        seen: set[tuple[str, str]] = set()
        kept_blocks, kept_outcomes = [], []
        for block, outcome in zip(blocks, outcomes, strict=True):
            key = (str(block.get("name")), json.dumps(block.get("input"), sort_keys=True, default=str))
            if key in seen:
                continue
            seen.add(key)
            kept_blocks.append(block)
            kept_outcomes.append(outcome)
        return original(kept_blocks, kept_outcomes, ctx)  # type: ignore[no-any-return]

    return finish_batch


adapter = make_factory(Patch("reference_impl.execution._pipeline", "finish_batch", _mutate))
