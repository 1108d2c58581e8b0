"""PERM-17 mutant: a declaration's ``(...)`` value is data, though bash reads it again as an array's elements."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "declare -a x='($(rm x))' runs rm: given an array, bash reads a value that is (...) once its quotes "
    "are gone as a compound assignment and expands what it holds; the mutant reads the quoted value as data "
    "(session 37's red team: 127 lines through a Bash(rm:*) deny in every mode)"
)


def _never(original: object) -> object:
    def compound_value(builtin: str, flags: str, value: str, line: str) -> str | None:
        return None

    return compound_value


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_compound_value", _never))
