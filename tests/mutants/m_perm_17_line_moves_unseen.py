"""Mutant: a project tool's files are read where the line starts, whatever directory it moves to first."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cd sub && make, (cd sub; npm test), pushd sub && pytest run sub/'s recipes, scripts and tests unasked: "
    "the project files are read in the line's starting directory only"
)


def _mutate(_original: Any) -> Any:
    def line_directories(_commands: Iterable[Sequence[str | None]], cwd: str) -> list[str] | None:
        return [cwd]

    return line_directories


adapter = make_factory(Patch("reference_impl.permissions._rules", "line_directories", _mutate))
