"""Mutant: of several UserPromptSubmit hooks' additionalContext, only the last one reaches the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-7"
DESCRIPTION = "two UserPromptSubmit hooks add context; the last one's replaces the first one's"


def _mutate(original: Any) -> Any:
    def add_context(self: Any, event: str, contexts: Sequence[str]) -> None:
        original(self, event, list(contexts)[-1:] if event == "UserPromptSubmit" else contexts)

    return add_context


adapter = make_factory(Patch("reference_impl.agent._loop", "AgentSession._add_context", _mutate))
