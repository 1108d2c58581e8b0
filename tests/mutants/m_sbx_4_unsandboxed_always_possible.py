"""Mutant: ``allowUnsandboxedCommands: false`` is ignored; dangerouslyDisableSandbox and exclusions still leave."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "with allowUnsandboxedCommands false, an allowed dangerouslyDisableSandbox call runs outside the sandbox"
)


def _ignore_setting(original: Callable[..., Any]) -> Callable[..., Any]:
    def plan(self: Any, tool_input: Mapping[str, Any]) -> Any:
        kept = self.settings
        self.settings = dataclasses.replace(kept, allow_unsandboxed_commands=True)
        try:
            return original(self, tool_input)
        finally:
            self.settings = kept

    return plan


adapter = make_factory(Patch("reference_impl.sandbox._shell", "SandboxedShell.plan", _ignore_setting))
