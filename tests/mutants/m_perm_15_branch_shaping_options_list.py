"""PERM-15 mutant: ``git branch``'s options that only shape a listing are taken to make it list, as before session 33."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git branch -v made origin/main (or --sort, --format, --column beside) makes a branch tracking the "
    "remote one, writing .git/config, unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_own_files",
        "_BRANCH_LISTING",
        lambda original: original | {"-v", "--format", "--sort", "--column"},
    )
)
