"""Mutant: a PostToolUse hook's ``if`` is never consulted: the hook runs after every matched call."""

from __future__ import annotations

from typing import Any

from reference_impl.hooks import _tool_events
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' scopes PreToolUse hooks only: a PostToolUse hook scoped by \"Read(//docs/**)\" adds its "
    "context after every Read its matcher names"
)


def _mutate(original: Any) -> Any:
    def _select(hooks: Any, event: Any, tool: Any, tool_name: str, tool_input: Any, cwd: str) -> Any:
        if event == "PostToolUse":
            # The defect: the matcher alone selects; the handler's 'if' is left unread.
            return _tool_events._Selected(list(hooks.matching(event, tool_name)), [])
        return original(hooks, event, tool, tool_name, tool_input, cwd)

    return _select


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_select", _mutate))
