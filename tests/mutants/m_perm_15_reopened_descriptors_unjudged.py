"""PERM-15 mutant: a descriptor's name written is not taken for the file the line opened on it."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "exec 3< .git/config; cat d > /dev/fd/3 and cp pre-commit /dev/stdin < .git/hooks run unasked in "
    "bypassPermissions: a write to a descriptor's name is judged as a device, though the kernel opens "
    "the descriptor's file afresh, for writing too"
)


def _unjudged(_original: object) -> object:
    def _reopened_reason(*_args: object) -> None:
        return None

    return _reopened_reason


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "_reopened_reason", _unjudged))
