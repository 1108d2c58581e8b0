"""PERM-15 mutant: git subcommands that write the repository's configuration are judged by their words alone."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git remote add, push -u, branch --set-upstream-to, checkout of a remote-only branch, an alias "
    "write .git/config, unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "git_tree_writes",
        rewrite('if change is not None and (change == "writes" or _tracks(git, sub, words)):', "if False:"),
    )
)
