"""PERM-15 mutant: the protected-path walk trusts the writes it found in a line the grammar could not read."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "in bypassPermissions, `{ [x]y; echo x > .git/config; }` is auto-allowed: the grammar finds a syntax "
    "error, the write inside it is lost, and the walk takes the writes it found for all of them"
)


def _never_seen(original: Any) -> str:
    return "(a problem no line has)"


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "SYNTAX_ERROR", _never_seen))
