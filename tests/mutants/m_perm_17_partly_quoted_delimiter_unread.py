"""PERM-17 mutant: a here-document delimiter quoted in part is left to the grammar, which can't read it."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "bash <<E'O'F\\nrm -rf x\\nEOF under deny Bash(rm:*) is only asked: the delimiter is not respelled, "
    "tree-sitter-bash finds a syntax error, and the reader fails closed to a question"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_partly_quoted_delimiters",
        lambda _original: lambda root, source: [],
    )
)
