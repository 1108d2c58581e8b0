"""Mutant: Python's site directories and startup modules are not protected paths."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "`echo 'import os; ...' > ~/.local/lib/python3.11/site-packages/x.pth` (or a usercustomize.py, a "
    "module in a venv's site-packages) is written unasked: the code Python runs at every start is not "
    "guarded, however its path is spelled"
)


def _mutate(_original: Any) -> Any:
    return frozenset()


adapter = make_factory(
    Patch("reference_impl.permissions._protected_paths", "SITE_DIRECTORIES", _mutate),
    Patch("reference_impl.permissions._protected_paths", "STARTUP_MODULES", _mutate),
)
