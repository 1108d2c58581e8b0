"""PERM-17 mutant: an allowed program the engine does not read is trusted with every file it is given."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "sqlite3 -init i.sql (.system nuke), gdb -x g, ssh -F cfg (ProxyCommand), gcc @opts (-wrapper) run "
    "unasked under Bash(nuke:*) denied and the program allowed: the files they are given are not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_unread_files",
        rewrite("    if not argv or argv[0] is None:\n        return []\n", "    return []\n"),
    )
)
