"""PERM-17 mutant: ``env -C DIR`` and ``sudo -D DIR`` are read as running their command where the line started."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "env -C sub npm test, env --chdir=sub make run sub/'s scripts and recipes unasked: the project files "
    "are read in the line's own directory, not where the wrapper runs the tool"
)


def _mutate(_original: Any) -> Any:
    def wrapper_directories(name: str, args: Any) -> list[str | None]:
        return []

    return wrapper_directories


adapter = make_factory(Patch("reference_impl.permissions._project_files", "wrapper_directories", _mutate))
