"""PERM-16 mutant: the grammar's end of a token is trusted where bash ends it elsewhere."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-16"
DESCRIPTION = (
    "echo $'\\\\\\\\'; rm -rf x #' is allowed by Bash(echo:*): bash's string is one backslash and rm runs "
    "after it; tree-sitter-bash reads on to the last quote, and the reader trusts it"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "misread_extents",
        lambda _original: lambda root, source: [],
    )
)
