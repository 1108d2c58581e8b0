"""Mutant: a cached __pycache__ file is taken for its source's code, whatever it holds."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a __pycache__/mod.cpython-311.pyc compiled from other code than the harmless mod.py beside it "
    "(unchecked hash, or a header carrying mod.py's hash or size and time) is trusted as mod.py, so "
    "`python3 run.py` that imports mod runs the denied program unasked"
)


def _mutate(_original: Any) -> Any:
    def _bytecode_matches(_pyc: str, _source: str, _optimize: int, *, tag: str) -> bool:
        return True

    return _bytecode_matches


adapter = make_factory(Patch("reference_impl.permissions._python_resolution", "_bytecode_matches", _mutate))
