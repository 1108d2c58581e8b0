"""PERM-17 mutant: a makefile make remakes before reading it again is read as it is now (or not at all)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "include gen.mk with gen.mk: ; printf ... > $@ (or %.mk:, -include, sinclude, the Makefile itself out "
    "of date against FORCE): GNU make makes it, then reads what the recipe wrote, but the engine reads "
    "the makefile's text as it is before the line runs (or finds no file there), so what it will hold is unseen"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "remade_makefiles",
        lambda _original: lambda *_a, **_k: [],
    ),
)
