"""PAIR-2 mutant: a tool_use naming a tool the harness doesn't have is skipped (no tool_result)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-2"
DESCRIPTION = "tool_use blocks naming an unknown tool are silently skipped instead of answered with an error"


def _skip_unknown(original: Any) -> Any:
    def finish_batch(blocks: Sequence[Any], outcomes: Sequence[Any], ctx: Any) -> list[dict[str, Any]]:
        kept = [(b, o) for b, o in zip(blocks, outcomes, strict=True) if ctx.find_tool(b["name"]) is not None]
        return original([b for b, _ in kept], [o for _, o in kept], ctx)  # type: ignore[no-any-return]

    return finish_batch


adapter = make_factory(Patch("reference_impl.execution._pipeline", "finish_batch", _skip_unknown))
