"""PERM-17 mutant: a simple command's words are read on past a newline, as tree-sitter-bash reads them."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "echo a\\n\\\\\\n\\\\rm -rf x runs under deny Bash(rm:*): bash ends echo at the newline and the continued "
    "line starts rm; the reader takes the grammar's reading, in which rm is a third word of echo"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_words_read_on",
        lambda _original: lambda command, source: [],
    )
)
