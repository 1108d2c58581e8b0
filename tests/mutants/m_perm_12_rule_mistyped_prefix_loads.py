"""PERM-12 mutant: a mistyped ``:*`` prefix loads (``Bash(rm::*)``, ``Bash(rm:)``, ``Bash(rm: *)`` deny nothing)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "a shell rule whose program name ends in ':' loads: Bash(rm::*) names a program 'rm:' and denies no rm"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_words",
        "_program_problem",
        rewrite('if head.text.endswith(":"):', "if False:"),
    )
)
