"""Mutant: the project's modules a Python script imports are not read."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(python3:*), `python3 tool.py` is judged by tool.py's text alone: the helper.py beside it, "
    "which tool.py imports and which runs a denied program, is never read"
)


def _mutate(original: Any) -> Any:
    def _python_imports(text: str, directory: str, seen: set[str], cwd: str | None = None) -> list[Any]:
        return []

    return _python_imports


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_python_imports", _mutate))
