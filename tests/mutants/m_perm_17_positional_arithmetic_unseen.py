"""PERM-17 mutant: a positional parameter or ``$0`` in arithmetic is read as a number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "set -- 'a[$(rm x)]'; echo $(($1)) (or shift; (( $1 )), ${b[$1]}, BASH_ARGV0=...; $(($0))) runs rm"
    " under Bash(rm:*) deny: arithmetic was taken to evaluate only names, not the values of $1 or $0"
    " (the engine before session 29)"
)


def _names_only(_original: Any) -> Callable[[str], bool]:
    from reference_impl.permissions._evaluated import _IDENTIFIER

    def evaluates_values(arithmetic: str) -> bool:
        return _IDENTIFIER.search(arithmetic) is not None

    return evaluates_values


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_evaluates_values", _names_only))
