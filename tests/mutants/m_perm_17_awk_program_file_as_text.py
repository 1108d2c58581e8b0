"""PERM-17 mutant: awk's ``-W exec file`` value is skipped and the file's name is read as the program text."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "awk -W exec f (mawk(1): -We, -Wi,e; gawk's -W names its long options): -W's value is taken as a "
    "plain word to skip, so the file's name is read as awk's program text, and the program mawk reads "
    'from the file (system("rm -rf x")) is never seen'
)

_SKIP_W = rewrite('                if letter == "W":\n', "                if False:\n")

adapter = make_factory(
    Patch("reference_impl.permissions._code_targets", "awk_program", _SKIP_W),
    Patch("reference_impl.permissions._programs", "awk_program", _SKIP_W),
)
