"""PERM-15 mutant: the words an interpreter hands the code it runs are taken for its own options, never a tree to change."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "python3 -c '<append to every file under sys.argv[1]>' . runs unasked in bypassPermissions: a "
    "directory handed to an interpreter's code is not judged by what it holds"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "tree_operands",
        rewrite(
            "                return [t for t in program_targets((None, *handed)) if isinstance(t, str)]\n",
            "                return []\n",
        ),
    )
)
