"""Mutant: ``allowUnsandboxedCommands: false`` is ignored; dangerouslyDisableSandbox and exclusions still leave."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._sandbox_settings import plan_ignoring

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "with allowUnsandboxedCommands false, an allowed dangerouslyDisableSandbox call runs outside the sandbox"
)


adapter = make_factory(
    Patch(
        "reference_impl.sandbox._shell", "SandboxedShell.plan", plan_ignoring(allow_unsandboxed_commands=True)
    )
)
