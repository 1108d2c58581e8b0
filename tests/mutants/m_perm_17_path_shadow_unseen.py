"""PERM-17 mutant: a program the line puts in a directory on PATH is not taken to run when its name is run."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "install -D t ~/.local/bin/cat && cat /dev/null (or a program moved there and run as ls): a bare "
    "command name is taken for the installed program, though the line wrote one of that name where the "
    "shell's PATH finds it first"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._shell_forms",
        "unread_by_writes",
        rewrite('if "/" not in name and run.base not in _BUILTINS:', "if False:"),
    )
)
