"""PERM-15 mutant: a program's recursive option recognised by its usual spellings only, not as the program reads it."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "chmod -vR a+w . and chmod --recur a+w . run unasked in bypassPermissions: recursion is seen only in "
    "the words -R, -r and --recursive, not in a bundle or an abbreviation the program reads the same"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "tree_operands",
        rewrite(
            "        if read is not None and None not in args and not descending.intersection(read):\n",
            "        if not {'-R', '-r', '--recursive'}.intersection(args):\n",
        ),
    )
)
