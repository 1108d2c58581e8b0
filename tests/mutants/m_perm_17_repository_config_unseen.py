"""PERM-17 mutant: git commands are read as if the repository's configuration and hooks were empty."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "git status is allowed by Bash(git:*) beside Bash(nuke:*) deny in a repository whose core.fsmonitor,"
    " diff.external, filter, alias or hook runs nuke: what git's configuration on disk names is not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_by_repository",
        lambda _original: lambda index, command, cwd: None,
    ),
)
