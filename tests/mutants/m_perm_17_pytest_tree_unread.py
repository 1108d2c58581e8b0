"""Mutant: pytest is taken for a program that runs no project code."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "python3 -m pytest under an allow rule runs a conftest.py, a test module or a -p plugin that runs the "
    "denied program, unasked: the Python files pytest imports are not read"
)


def _mutate(_original: Any) -> Any:
    def _pytest_files(_words: list[str], _cwd: str) -> list[tuple[str, str]]:
        return []

    return _pytest_files


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_pytest_files", _mutate))
