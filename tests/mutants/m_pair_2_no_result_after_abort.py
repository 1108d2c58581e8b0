"""PAIR-2 mutant: no tool_result for the calls an abort interrupted."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-2"
DESCRIPTION = "After an abort, the calls interrupted or never started get no tool_result at all"


def _text(outcome: Any) -> str:
    content = outcome.result.get("content")
    return content if isinstance(content, str) else ""


def _dropping(original: Any) -> Any:
    async def run_batch(self: Any, blocks: Iterable[Any]) -> list[Any]:
        outcomes = await original(self, blocks)
        return [o for o in outcomes if not (o.synthetic and "Interrupted by user" in _text(o))]

    return run_batch


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor.run_batch", _dropping)
)
