"""PERM-15 mutant: git's directory, hooks path and included configuration are protected only when spelled ``.git``."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git init --separate-git-dir=meta, core.hooksPath=.githooks, include.path=../gitcfg.inc: git is "
    "not asked where its own files are, so writing meta/hooks/pre-commit, .githooks/pre-commit or "
    "gitcfg.inc is auto-allowed (protection keyed on the literal .git segment)"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._linked_protection",
        "_protected_targets",
        rewrite("    for path in git_own_paths(cwd) or ():\n", "    for path in ():\n"),
    )
)
