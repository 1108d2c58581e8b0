"""PERM-9 mutant: the ``defaultMode`` of the lowest-precedence settings file wins."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-9"
DESCRIPTION = (
    "the files are ranked highest precedence first before the last defaultMode is taken, so the user's"
    " defaultMode beats the project's, the local and the managed one; one file that sets it, unchanged"
)


def _mutate(original: Any) -> Any:
    def _by_precedence(files: Any) -> Any:
        return original(files)[::-1]

    return _by_precedence


adapter = make_factory(Patch("reference_impl.permissions._context", "_by_precedence", _mutate))
