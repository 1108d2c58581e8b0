"""Mutant: ``failIfUnavailable`` is ignored; with no sandbox, shell commands run unsandboxed anyway."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._sandbox_settings import plan_ignoring

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-5"
DESCRIPTION = (
    "bubblewrap is missing and failIfUnavailable is set, yet an allowed command runs without the sandbox"
)


adapter = make_factory(
    Patch("reference_impl.sandbox._shell", "SandboxedShell.plan", plan_ignoring(fail_if_unavailable=False))
)
