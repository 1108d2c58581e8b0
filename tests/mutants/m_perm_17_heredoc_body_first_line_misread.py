"""PERM-17 mutant: a here-document body that starts with a backslash is left to the grammar, which takes it for words."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "bash <<EOF\\n\\\\rm -rf x\\nEOF under deny Bash(rm:*) is only asked: the body's leading backslash is not "
    "respelled, tree-sitter-bash takes the body for words, and the reader fails closed to a question"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_body_misreadings",
        rewrite(
            '            elif at == newline + 1 and line[:1] == b"\\\\" and line[1:2]:\n',
            "            elif False:\n",
        ),
    )
)
