"""RESULT-4 mutant: a resumed session marks as seen only the results whose content was a plain string."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-4"
DESCRIPTION = (
    "On resume a tool_result sent as a list of content blocks is not marked seen (only string results "
    "are read back): a later budget pass may replace it, changing bytes already sent"
)


def _strings_only(original: Any) -> Any:
    def rebuild_replacement_state(messages: Iterable[object]) -> Any:
        messages = list(messages)
        state = original(messages)
        for message in messages:
            content = message.get("content") if isinstance(message, Mapping) else None
            for block in content if isinstance(content, list) else ():
                if (
                    isinstance(block, Mapping)
                    and block.get("type") == "tool_result"
                    and isinstance(block.get("content"), list)
                    and block.get("tool_use_id") not in state.replacements
                ):
                    state.seen_ids.discard(block.get("tool_use_id"))
        return state

    return rebuild_replacement_state


adapter = make_factory(
    Patch("pytest_toolharness.adapters.reference._adapter", "rebuild_replacement_state", _strings_only)
)
