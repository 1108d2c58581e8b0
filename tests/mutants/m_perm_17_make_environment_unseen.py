"""PERM-17 mutant: the variables a line sets for make alone are not seen in make's recipes."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(make:*), `RM=nuke make check` is judged by the Makefile's `$(RM) --all` as make's default "
    "(rm -f), while make takes RM from its environment and runs nuke"
)


def _never_make(original: Any) -> Any:
    def runs_make(program: str) -> bool:
        return False

    return runs_make


adapter = make_factory(Patch("reference_impl.permissions._rules", "runs_make", _never_make))
