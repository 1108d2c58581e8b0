"""PAIR-8 mutant: the history copy of the assistant turn drops its thinking blocks."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-8"
DESCRIPTION = (
    "The assistant turn kept for the next requests loses its thinking and redacted_thinking blocks (as a "
    "harness that keeps only text and tool calls does); the calls still run and are answered"
)


def _dropping(original: Any) -> Any:
    async def _stream(self: Any, *args: Any, **kwargs: Any) -> Any:
        blocks, stop_reason = await original(self, *args, **kwargs)
        kept = [b for b in blocks if b.get("type") not in ("thinking", "redacted_thinking")]
        return kept, stop_reason

    return _stream


adapter = make_factory(Patch("reference_impl.agent._loop", "AgentSession._stream", _dropping))
