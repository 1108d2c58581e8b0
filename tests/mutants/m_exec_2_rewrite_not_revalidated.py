"""EXEC-2 mutant: an input rewritten by a hook or the host is not validated again."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-2"
DESCRIPTION = "Validation runs once per call, so a hook's or the host's rewritten input is never re-validated"


def _validate_once(original: Any) -> Any:
    def check_input(tool: Any, tool_input: object, context: Any) -> str | None:
        if getattr(context, "_mutant_validated", False):
            return None  # "already validated" -- but this is a different (rewritten) input
        object.__setattr__(context, "_mutant_validated", True)
        return original(tool, tool_input, context)  # type: ignore[no-any-return]

    return check_input


# The pipeline checks the model's and a PreToolUse hook's input; the ask stage checks an approved rewrite.
adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "check_input", _validate_once),
    Patch("reference_impl.execution._asks", "check_input", _validate_once),
)
