"""PERM-11 mutant: a path deny rule compares names only, so a hard link to the file gets through."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "Read(./.env) deny misses innocent.txt, a hard link to .env: the same file by another name"

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_path_matches",
        rewrite(" or pattern.same_file(forms[-1])", ""),
    )
)
