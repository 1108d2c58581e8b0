"""Mutant: a builtin's option cluster is read by its first letter only (``wait -np NAME`` as ``wait -n``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "the variable-name option inside a cluster is missed: \"wait -np 'a[$(rm x)]'\" reads the name as an "
    "operand, and bash evaluates its subscript past a deny rule (the reference before session 30)"
)


def _mutate(original: Any) -> Any:
    def _variable_names(name: str, args: Sequence[str | None]) -> Any:
        # The defect: '-np' is taken for '-n'; the letters after the first are dropped.
        first = [w[:2] if w is not None and w.startswith("-") and not w.startswith("--") else w for w in args]
        return original(name, first)

    return _variable_names


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_variable_names", _mutate))
