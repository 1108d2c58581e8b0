"""Mutant: no path is protected: acceptEdits and bypassPermissions write .git/hooks and ~/.bashrc unasked."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = "edits of .git/hooks, .vscode, .mcp.json or ~/.bashrc are auto-allowed in acceptEdits and bypassPermissions"


adapter = make_factory(
    Patch("reference_impl.permissions._engine", "protected_reason", lambda _original: lambda path, cwd: None),
    Patch(
        "reference_impl.permissions._protected_paths",
        "protected_reason",
        lambda _original: lambda path, cwd: None,
    ),
)
