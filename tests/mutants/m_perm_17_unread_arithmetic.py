"""PERM-17 mutant: an arithmetic expansion the grammar shows as text or as a subshell is not evaluated code."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "for y in 'a[$(rm x)]'; do echo ${z:-$[y]}; done: inside another expansion's word the grammar shows "
    "$[y] as text (and $((y)) as a subshell running y), and only substitutions are looked for there, so "
    "the arithmetic bash evaluates (running the subscript's command) is read as plain text"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "mark_unread_substitutions",
        rewrite("        (_ARITHMETIC_OPENERS, arithmetic, UNREAD_ARITHMETIC),\n", ""),
    )
)
