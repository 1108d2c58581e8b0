"""PERM-15 mutant: a git directory is recognised by its name (.git) only, not by what git takes for one."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "echo x >> meta/hooks/pre-commit runs unasked in bypassPermissions where sub/.git -> ../meta (or meta is "
    "a bare repository): git runs that hook, but the directory is not spelled .git"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._linked_protection",
        "is_git_directory",
        rewrite("    try:\n        # git's setup.c", "    return False\n    try:\n        # git's setup.c"),
    )
)
