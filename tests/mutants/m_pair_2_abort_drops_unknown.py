"""Mutant: in an aborted batch, a call naming an unknown tool gets no tool_result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-2"
DESCRIPTION = (
    "the user interrupts a batch that also calls an unknown tool: the interrupted calls get "
    "synthetic results, the unknown one (rejected before it was queued) is forgotten"
)


def _interrupted(outcome: Any) -> bool:
    return "Interrupted by user" in str(outcome.result.get("content"))


def _mutate(original: Any) -> Any:
    def finish_batch(blocks: Sequence[Any], outcomes: Sequence[Any], ctx: Any) -> list[dict[str, Any]]:
        if any(_interrupted(o) for o in outcomes):
            kept = [
                (b, o) for b, o in zip(blocks, outcomes, strict=True) if ctx.find_tool(b["name"]) is not None
            ]
            blocks, outcomes = [b for b, _ in kept], [o for _, o in kept]
        return original(blocks, outcomes, ctx)  # type: ignore[no-any-return]

    return finish_batch


adapter = make_factory(Patch("reference_impl.execution._pipeline", "finish_batch", _mutate))
