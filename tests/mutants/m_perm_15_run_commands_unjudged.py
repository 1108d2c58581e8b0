"""PERM-15 mutant: a command a program runs from its own script language (awk's system, find -exec) is not judged for what it writes."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "awk 'BEGIN{system(\"touch .git/hooks/pre-commit\")}' and sed -n '1e touch .git/hooks/pre-commit' a.txt "
    "run unasked in bypassPermissions: the commands the rule check finds a program runs are not read for writes"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_run_commands_reason",
        rewrite("    forms = deny_forms(command.source)\n", "    return None\n"),
    )
)
