"""Mutant: the directories a line adds to a program's search path (make -I, perl -I) are not searched."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "`make -I mk` and `perl -Ilib t.pl` are judged as if run without -I: the makefile `include` finds "
    "only in mk/, the module `use` finds only in lib/, are never read, and run a denied program unasked"
)


def _no_make_dirs(original: Any) -> Any:
    def make_include_dirs(words: Sequence[str], directory: str) -> list[str]:
        return []

    return make_include_dirs


def _no_perl_dirs(original: Any) -> Any:
    def _perl_switches(words: Sequence[str]) -> tuple[list[str], list[str]]:
        return [], original(words)[1]

    return _perl_switches


adapter = make_factory(
    Patch("reference_impl.permissions._project_files", "make_include_dirs", _no_make_dirs),
    Patch("reference_impl.permissions._module_search", "_perl_switches", _no_perl_dirs),
)
