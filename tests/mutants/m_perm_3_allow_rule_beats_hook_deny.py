"""Mutant: an allow rule is checked before the hook's deny, so the hook can't block an allowed call."""

from __future__ import annotations

from typing import Any

from reference_impl.permissions import _engine as _permissions
from reference_impl.permissions._rules import describe_call
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-3"
DESCRIPTION = "a matching allow rule short-circuits before the PreToolUse hook's deny is applied"


def _mutate(original: Any) -> Any:
    def decide(tool: Any, tool_input: Any, context: Any, hook_verdict: Any, tool_context: Any) -> Any:
        denied = hook_verdict is not None and hook_verdict.behavior == "deny"
        if denied and _permissions._allow_rule(describe_call(tool, tool_input), context) is not None:
            hook_verdict = None  # the defect: the allow rule "already decided"
        return original(tool, tool_input, context, hook_verdict, tool_context)

    return decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
