"""PERM-15 mutant: git's ``--prefix`` is not joined to the index entries it writes (as before session 32)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git checkout-index --prefix=. with the index entry git/hooks/pre-commit writes .git/hooks/pre-commit, "
    "git read-tree -u --prefix=.claude/ writes .claude/..., unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_tree_writes",
        "_checkout_index",
        rewrite('return [(prefixes[-1] if prefixes else "") + name for name in names]', "return names"),
    ),
    Patch(
        "reference_impl.permissions._git_tree_writes",
        "_tree_writes",
        rewrite("return [prefixes[-1] + n for tree in trees", "return [n for tree in trees"),
    ),
)
