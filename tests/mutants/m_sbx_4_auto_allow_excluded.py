"""SBX-4 mutant: auto-allow treats a command in excludedCommands as if it ran sandboxed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.tools import ToolPermissionCheck
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "autoAllowBashIfSandboxed allows a command that sandbox.excludedCommands sends outside the "
    "sandbox (only a dangerouslyDisableSandbox call still gets the ordinary decision): the auto-allow "
    "looked at the call's flag, not at how the call will run"
)


def _mutate(original: Any) -> Any:
    def check_permissions(self: Any, tool_input: Mapping[str, Any]) -> ToolPermissionCheck:
        plan = self.plan(tool_input)
        if (
            plan.how == "unsandboxed"
            and "excludedCommands" in plan.reason
            and self.settings.auto_allow_bash_if_sandboxed
        ):
            return ToolPermissionCheck("allow", message="sandbox.autoAllowBashIfSandboxed is on")
        own: ToolPermissionCheck = original(self, tool_input)
        return own

    return check_permissions


adapter = make_factory(Patch("reference_impl.sandbox._shell", "SandboxedShell.check_permissions", _mutate))
