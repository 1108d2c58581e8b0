"""PERM-15 mutant: a path literal given to a function no list names is trusted not to be written."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "python3 -c 'import logging; logging.basicConfig(filename=\".git/config\")' (or an archive extracted into "
    ".git/hooks, readline.write_history_file) runs unasked in bypassPermissions: only listed writers are read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._python_targets",
        "_Reader._handed",
        rewrite(
            "    if name is not None and (_listed(name) or _only_reads(name)):\n",
            "    if True:\n",
        ),
    )
)
