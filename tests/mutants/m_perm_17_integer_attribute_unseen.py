"""PERM-17 mutant: a value written to an integer variable is read as data."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "declare -i n; n='a[$(rm x)]' (or read n, printf -v n, for n in ...) runs rm under Bash(rm:*) deny: "
    "bash evaluates every value written to an integer variable as arithmetic (the engine before "
    "session 17 only looked at run-time values given in the declaration itself)"
)


def _no_integer_writes(_original: Any) -> Any:
    def integer_writes(line: str, declaration: str, names: set[str]) -> None:
        return None

    return integer_writes


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_integer_writes", _no_integer_writes))
