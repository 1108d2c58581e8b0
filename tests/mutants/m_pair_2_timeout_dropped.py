"""PAIR-2 mutant: a call that times out gets no tool_result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-2"
DESCRIPTION = "A call that times out is abandoned without a tool_result"


def _text(outcome: Any) -> str:
    content = outcome.result.get("content")
    return content if isinstance(content, str) else ""


def _dropping(original: Any) -> Any:
    async def run_batch(self: Any, blocks: Iterable[Any]) -> list[Any]:
        outcomes = await original(self, blocks)
        return [o for o in outcomes if not (o.synthetic and "timed out after" in _text(o))]

    return run_batch


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor.run_batch", _dropping)
)
