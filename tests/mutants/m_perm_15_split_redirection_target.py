"""PERM-15 mutant: a redirection target the grammar reads as two pieces is taken to be its first piece."""

from __future__ import annotations

import types
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "in bypassPermissions, `echo pwned >> ''\\sub/../.git/config` is auto-allowed: tree-sitter-bash gives "
    "the target as `''` and `\\sub/...`, bash writes one word, and the walk checks the first piece only"
)


def _no_adjacent_pieces(original: Any) -> Any:
    # The module's only use of itertools is the check that adjacent destination pieces are one word.
    return types.SimpleNamespace(pairwise=lambda _pieces: ())


adapter = make_factory(Patch("reference_impl.permissions._bash_reader", "itertools", _no_adjacent_pieces))
