"""PERM-17 mutant: any variable set for one command is taken as data the program only reads."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "GREP='rm x' zgrep p f, LESSOPEN='|rm x' less f: a variable the program takes a program from is"
    " stripped as harmless unless a list names it (as before session 30), and Bash(rm:*) deny misses the rm"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "is_harmless_variable",
        lambda _original: lambda _name: True,
    )
)
