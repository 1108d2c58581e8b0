"""PERM-15 mutant: a program's output operand only known at run time is taken to write nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'in bypassPermissions, `echo pwned | tee -a "${UNSET:-.git/config}"` is auto-allowed: the word tee '
    "writes is only known when bash expands it, and the walk skips it as if tee wrote nothing there"
)


def _skips_unknown(original: Callable[[str, Any], tuple[list[str], bool]]) -> Any:
    def output_operands(base: str, args: Any) -> tuple[list[str], bool]:
        return original(base, tuple(a for a in args if a is not None))[0], False

    return output_operands


adapter = make_factory(Patch("reference_impl.permissions._line_writes", "_output_operands", _skips_unknown))
