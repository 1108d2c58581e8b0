"""EXEC-1 mutant: PreToolUse hooks see the input before it is validated."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-1"
DESCRIPTION = (
    "Validation is moved after the PreToolUse hooks: the original input is never validated, so invalid "
    "input reaches hooks and permissions (a hook may even 'repair' it)"
)


def _validate_later(original: Any) -> Any:
    def check_input(tool: Any, tool_input: object, context: Any) -> str | None:
        if not getattr(context, "_mutant_seen", False):
            object.__setattr__(context, "_mutant_seen", True)
            return None  # the first (pre-hook) check is skipped
        return original(tool, tool_input, context)  # type: ignore[no-any-return]

    return check_input


# The pipeline checks the model's and a PreToolUse hook's input; the ask stage checks an approved rewrite.
adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "check_input", _validate_later),
    Patch("reference_impl.execution._asks", "check_input", _validate_later),
)
