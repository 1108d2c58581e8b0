"""Mutant: a hook's ``if`` judges a compound shell line by its first command only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reference_impl.permissions import PermissionRule, split_command
from reference_impl.tools import Tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' matches a shell line by its first command: 'ls && git push' escapes a deny hook scoped by "
    '"Bash(git push *)", which Claude Code runs when any command of the line matches'
)


def _mutate(original: Any) -> Any:
    def _condition_applies(
        rule: PermissionRule, tool: Tool, tool_input: Mapping[str, Any], cwd: Path
    ) -> bool | None:
        line = tool_input.get("command")
        if isinstance(line, str) and (parts := split_command(line).parts):
            # The defect: the rest of the line is never looked at.
            tool_input = {**tool_input, "command": parts[0].text}
        return original(rule, tool, tool_input, cwd)  # type: ignore[no-any-return]

    return _condition_applies


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_condition_applies", _mutate))
