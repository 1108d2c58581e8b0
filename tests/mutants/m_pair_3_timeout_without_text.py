"""PAIR-3 mutant: a call that times out gets an error result with no text."""

from __future__ import annotations

from typing import Any

from reference_impl.execution import ToolRunOutcome
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-3"
DESCRIPTION = "The timeout path sends is_error with empty content instead of saying that the call timed out"


def _silent_timeout(original: Any) -> Any:
    def _synthetic(tool_use_id: str, message: str, *, failed: bool = False) -> ToolRunOutcome:
        if message.startswith("Tool call timed out"):
            result: Any = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "", "is_error": True}
            return ToolRunOutcome(result, failed=failed, synthetic=True)
        return original(tool_use_id, message, failed=failed)  # type: ignore[no-any-return]

    return _synthetic


adapter = make_factory(Patch("reference_impl.execution._scheduler", "_synthetic", _silent_timeout))
