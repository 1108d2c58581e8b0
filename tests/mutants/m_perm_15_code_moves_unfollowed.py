"""PERM-15 mutant: interpreter code's relative writes judged where the line is, not where the code moved."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'python3 -c \'import os; os.chdir(".git"); open("config", "a")\' runs unasked in bypassPermissions: '
    "the code's change of directory (os.chdir, cwd=, process.chdir) is not followed"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_code_directories",
        rewrite("    if not moves:\n        return places\n", "    if True:\n        return places\n"),
    )
)
