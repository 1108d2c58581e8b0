"""PERM-17 mutant: git's options read by their spelling, not as git's own grammar reads them."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(editor:*) misses git commit --edi -m x (an abbreviation git reads as --edit) and the like: "
    "the mutant matches whole spellings only, where git resolves an unambiguous prefix"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_started",
        "_read",
        rewrite("    if given is None:\n", "    if True:\n"),
    )
)
