"""Mutant: a working directory is compared as written, not resolved."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-9"
DESCRIPTION = (
    "is_within compares the resolved file with the working directory as written: an "
    "additionalDirectories entry spelled /x/proj/d/.. (or through a symlink) contains nothing, so "
    "acceptEdits asks about every edit inside it"
)


def _mutate(original: Any) -> Any:
    del original

    def is_within(path: str, directories: Iterable[Path]) -> bool:
        for directory in directories:
            root = os.fspath(directory)  # BUG: not os.path.realpath(directory)
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return True
        return False

    return is_within


adapter = make_factory(Patch("reference_impl.permissions._engine", "is_within", _mutate))
