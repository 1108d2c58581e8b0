"""EXEC-2 mutant: an approved rewrite that starts with the original's program is not judged by the rules again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.execution._input_checks import check_input
from reference_impl.permissions import PermissionDecision
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-2"
DESCRIPTION = (
    "an approval's updated input (host or PermissionRequest hook) whose command starts with the same "
    "program as the original is only schema-checked: 'the same program, the same rule' skips the rules, "
    "so 'echo a && rm -rf b' runs past a deny rule on rm"
)


def _first_word(tool_input: Mapping[str, Any]) -> str:
    command = tool_input.get("command")
    return command.split()[0] if isinstance(command, str) and command.split() else ""


def _mutate(original: Any) -> Any:
    def _approve(
        tool: Any,
        tool_input: Mapping[str, Any],
        updated: Mapping[str, Any] | None,
        ctx: Any,
        tool_context: Any,
        reason: Any,
    ) -> tuple[Any, Mapping[str, Any]]:
        same_program = updated is not None and _first_word(updated) == _first_word(tool_input) != ""
        if same_program and updated is not None and check_input(tool, updated, tool_context) is None:
            return PermissionDecision("allow", reason, updated_input=dict(updated)), dict(updated)
        settled: tuple[Any, Mapping[str, Any]] = original(
            tool, tool_input, updated, ctx, tool_context, reason
        )
        return settled

    return _approve


adapter = make_factory(Patch("reference_impl.execution._asks", "_approve", _mutate))
