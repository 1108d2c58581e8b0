"""Mutant: make's recipes are read as written, never as make expands them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a recipe naming the denied program through make's variables, functions or $@ (P = nu / $(P)ke, "
    "$(subst X,ke,nuX), make P=nuke) runs it unasked: the recipes are not expanded"
)


def _mutate(_original: Any) -> Any:
    def _expanded_recipes(_texts: Sequence[str], _assigned: Sequence[str]) -> list[str] | None:
        return []

    return _expanded_recipes


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_expanded_recipes", _mutate))
