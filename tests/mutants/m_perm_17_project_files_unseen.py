"""PERM-17 mutant: a project tool is read as if its project files named no command."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "npm test is allowed by Bash(npm test:*) beside Bash(nuke:*) deny although package.json's test script"
    " runs nuke (and make's recipes, a module the project shadows): the project's files are not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_by_project_files",
        lambda _original: lambda index, command, cwd: None,
    ),
)
