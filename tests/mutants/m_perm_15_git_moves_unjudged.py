"""PERM-15 mutant: git commands that move the working tree are judged by their words alone, as before session 31."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git checkout other / reset --hard other / merge other / stash pop write the .claude/settings.json "
    "the other commit holds, unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._line_writes",
        "derived_names",
        rewrite("if index < len(args) and args[index] in GIT_TREE_MOVERS:", "if False:"),
    )
)
