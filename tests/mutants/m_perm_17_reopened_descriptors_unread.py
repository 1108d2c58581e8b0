"""PERM-17 mutant: a script rewritten through a descriptor's name is read as it is on disk."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "exec 3< s.sh; cat d > /dev/fd/3; sh s.sh runs under a Bash(rm:*) deny when d holds rm: the check "
    "for a line running what it writes forgets the files the line opened for reading, which a name of "
    "their descriptor reopens for writing"
)


def _forgetting(original: Callable[..., Any]) -> Callable[..., Any]:
    def unread_by_writes(command: Any, runs: Any) -> Any:
        return original(dataclasses.replace(command, holds=()), runs)

    return unread_by_writes


adapter = make_factory(Patch("reference_impl.permissions._shell_forms", "unread_by_writes", _forgetting))
