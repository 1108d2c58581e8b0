"""Mutant: ``failIfUnavailable`` is ignored; with no sandbox, shell commands run unsandboxed anyway."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-5"
DESCRIPTION = (
    "bubblewrap is missing and failIfUnavailable is set, yet an allowed command runs without the sandbox"
)


def _ignore_setting(original: Callable[..., Any]) -> Callable[..., Any]:
    def plan(self: Any, tool_input: Mapping[str, Any]) -> Any:
        kept = self.settings
        self.settings = dataclasses.replace(kept, fail_if_unavailable=False)
        try:
            return original(self, tool_input)
        finally:
            self.settings = kept

    return plan


adapter = make_factory(Patch("reference_impl.sandbox._shell", "SandboxedShell.plan", _ignore_setting))
