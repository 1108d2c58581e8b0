"""Mutant: acceptEdits allows file edits without checking they are inside the working directories."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-9"
DESCRIPTION = "acceptEdits auto-approves edits outside the working directory (../../x, /etc/x)"


def _mutate(original: Any) -> Any:
    def in_working_dirs(target: Any, context: Any, *, for_edit: bool = False) -> bool:
        if for_edit:
            return True  # the defect: the directory check is skipped for edits
        return bool(original(target, context, for_edit=for_edit))

    return in_working_dirs


adapter = make_factory(Patch("reference_impl.permissions._engine", "_in_working_dirs", _mutate))
