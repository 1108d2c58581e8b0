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
    def _check_input(tool: Any, tool_input: object, context: Any) -> str | None:
        if not getattr(context, "_mutant_seen", False):
            object.__setattr__(context, "_mutant_seen", True)
            return None  # the first (pre-hook) check is skipped
        return original(tool, tool_input, context)  # type: ignore[no-any-return]

    return _check_input


adapter = make_factory(Patch("reference_impl.execution._pipeline", "_check_input", _validate_later))
