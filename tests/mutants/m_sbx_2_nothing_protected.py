"""Mutant: PERM-15's protected names are not protected inside the sandbox's writable area."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-2"
DESCRIPTION = "a sandboxed command writes .git/hooks, .claude/skills and .bashrc in the working directory"


adapter = make_factory(
    Patch("reference_impl.sandbox._policy", "protected_names", lambda _original: lambda: ())
)
