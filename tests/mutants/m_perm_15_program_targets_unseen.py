"""PERM-15 mutant: only a shell redirection counts as a write; a program's output operand does not."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "cp x .git/hooks/pre-commit, tee -a .bashrc, sort -o .mcp.json, tar xf t -C .git run unasked in "
    "bypassPermissions: the targets programs name are not checked against the protected paths"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths", "program_targets", lambda _original: lambda _argv: []
    )
)
