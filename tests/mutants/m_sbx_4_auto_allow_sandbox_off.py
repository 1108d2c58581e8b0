"""SBX-4 mutant: autoAllowBashIfSandboxed auto-allows even with the sandbox turned off."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.tools import ToolPermissionCheck
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "The auto-allow reads the autoAllowBashIfSandboxed key alone: with sandbox.enabled false every "
    "Bash call runs unsandboxed without the ordinary decision"
)


def _key_alone(original: Any) -> Any:
    def check_permissions(self: Any, tool_input: Mapping[str, Any]) -> ToolPermissionCheck:
        if not self.settings.enabled and self.settings.auto_allow_bash_if_sandboxed:
            return ToolPermissionCheck("allow", message="sandbox.autoAllowBashIfSandboxed is on")
        own: ToolPermissionCheck = original(self, tool_input)
        return own

    return check_permissions


adapter = make_factory(Patch("reference_impl.sandbox._shell", "SandboxedShell.check_permissions", _key_alone))
