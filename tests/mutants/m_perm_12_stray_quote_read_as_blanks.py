"""PERM-12 mutant: a shell rule whose own text bash can't read is taken for values whose quoted blanks were lost."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "deny Bash(git status  ') loads and guards nothing (git status runs): a stray quote after a run of "
    "blanks is read as one argument with blanks, so the rule is taken to match git 'status  '\"'\"''"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_liveness",
        "_written_as_words",
        rewrite("    return _bash_would_run(inner)\n", "    return bool(inner) or True\n"),
    )
)
