"""CONC-4 mutant: shell siblings cancelled by a failed shell call get a non-error result."""

from __future__ import annotations

from typing import Any

from reference_impl.execution import ToolRunOutcome
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-4"
DESCRIPTION = "Cancelled shell siblings are answered with a plain 'cancelled' text, not an error result"


def _soft_cancel(original: Any) -> Any:
    def _cancel_shell_siblings(self: Any, failed: Any) -> None:
        before = {id(c) for c in self._calls if c.outcome is not None}
        original(self, failed)
        for call in self._calls:
            if id(call) not in before and call is not failed and call.outcome is not None:
                result: Any = {
                    "type": "tool_result",
                    "tool_use_id": call.tool_use_id,
                    "content": f"{call.name} was cancelled",
                }
                call.outcome = ToolRunOutcome(result, synthetic=True)

    return _cancel_shell_siblings


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._cancel_shell_siblings", _soft_cancel)
)
