"""Mutant: only the modules a script names are read, not what Python resolves for the program."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(python3:*), `python3 run.py` whose `import subprocess` makes Python load a threading.py "
    "beside it (or a sourceless mod.pyc, or a __pycache__ file holding other code) runs the denied program "
    "unasked: the modules Python finds in sys.path[0] are not read"
)


def _mutate(_original: Any) -> Any:
    def _python_program(_entries: list[str], _code: Any, _seen: set[str]) -> list[tuple[str, str]]:
        return []

    return _python_program


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_python_program", _mutate))
