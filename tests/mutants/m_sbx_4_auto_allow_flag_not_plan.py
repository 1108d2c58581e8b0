"""SBX-4 mutant: auto-allow looks only at dangerouslyDisableSandbox, so an excluded command is auto-allowed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.tools import ToolPermissionCheck
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "The auto-allow asks whether the call requested dangerouslyDisableSandbox, not how it will run: a "
    "command in sandbox.excludedCommands runs outside the sandbox without the ordinary decision"
)


def _flag_not_plan(original: Any) -> Any:
    def check_permissions(self: Any, tool_input: Mapping[str, Any]) -> ToolPermissionCheck:
        plan = self.plan(tool_input)
        if (
            plan.how == "unsandboxed"
            and self.settings.enabled
            and self.problem is None
            and self.settings.auto_allow_bash_if_sandboxed
            and tool_input.get("dangerouslyDisableSandbox") is not True
        ):
            return ToolPermissionCheck(
                "allow", message="not asked to leave the sandbox, and auto-allow is on"
            )
        own: ToolPermissionCheck = original(self, tool_input)
        return own

    return check_permissions


adapter = make_factory(
    Patch("reference_impl.sandbox._shell", "SandboxedShell.check_permissions", _flag_not_plan)
)
