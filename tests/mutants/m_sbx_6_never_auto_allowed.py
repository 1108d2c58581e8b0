"""Mutant: ``autoAllowBashIfSandboxed`` is ignored: a sandboxed command still needs a rule or a yes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reference_impl.tools import ToolPermissionCheck
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-6"
DESCRIPTION = (
    "a sandboxed command with auto-allow on is asked about (and denied headless) like an unsandboxed one"
)


def _no_auto_allow(original: Callable[..., ToolPermissionCheck]) -> Callable[..., ToolPermissionCheck]:
    def check_permissions(self: Any, tool_input: Mapping[str, Any]) -> ToolPermissionCheck:
        check = original(self, tool_input)
        return ToolPermissionCheck.passthrough() if check.behavior == "allow" else check

    return check_permissions


adapter = make_factory(
    Patch("reference_impl.sandbox._shell", "SandboxedShell.check_permissions", _no_auto_allow)
)
