"""PAIR-5 mutant: tool_results are sent in the order the calls finished, not the tool_use order."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-5"
DESCRIPTION = "Results are appended as calls complete, so a fast or early-rejected call's result jumps ahead"


def _recording_end(original: Any) -> Any:
    def _ended(self: Any, call: Any, outcome: Any) -> None:
        first_time = call.outcome is None
        original(self, call, outcome)
        if first_time and call.outcome is not None:
            self.__dict__.setdefault("_completion", []).append(call.tool_use_id)

    return _ended


def _recording_interrupt(original: Any) -> Any:
    def _interrupt(self: Any, call: Any, message: str, *, failed: bool = False) -> None:
        first_time = call.outcome is None
        original(self, call, message, failed=failed)
        if first_time and call.outcome is not None:
            self.__dict__.setdefault("_completion", []).append(call.tool_use_id)

    return _interrupt


def _completion_order(original: Any) -> Any:
    async def run_batch(self: Any, blocks: Iterable[Any]) -> list[Any]:
        outcomes = await original(self, blocks)
        order = {tool_use_id: i for i, tool_use_id in enumerate(self.__dict__.get("_completion", []))}
        return sorted(outcomes, key=lambda o: order.get(o.result["tool_use_id"], len(order)))

    return run_batch


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._ended", _recording_end),
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._interrupt", _recording_interrupt),
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor.run_batch", _completion_order),
)
