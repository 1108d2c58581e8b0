"""PERM-12 mutant: a shell rule naming a program in the wrong case loads (``Bash(RM:*)`` denies no ``rm``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "bash's names are case-sensitive, yet Bash(RM:*) loads while bash finds only rm: it denies nothing"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_words",
        "_program_problem",
        rewrite("name != name.lower()", "False"),
    )
)
