"""PERM-17 mutant: a comment among a simple command's words does not end the command."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "echo a # c\\n\\\\\\nrm -rf x runs under deny Bash(rm:*): the comment ends echo's line, the continued line "
    "starts rm; the reader takes tree-sitter-bash's reading, in which rm is more words of echo"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_words_read_on",
        rewrite(
            '                found.append((before.start_byte, b"\\n" + b" " * (before.end_byte - before.start_byte - 1)))\n',
            "                pass\n",
        ),
    )
)
