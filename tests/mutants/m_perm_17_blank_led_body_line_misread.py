"""PERM-17 mutant: a body line whose leading blanks come before ``$`` is left to the grammar, which misreads it."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cat <<-EOF\\n\\t$(rm -rf x)\\nEOF under deny Bash(rm:*) is only asked: tree-sitter-bash shows the "
    "substitution after a tab as text, and the reader, not respelling the blank, fails closed to a question"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_body_misreadings",
        rewrite(
            '            if blanks and line[blanks : blanks + 1] in (b"$", b"\\\\"):\n',
            "            if False:\n",
        ),
    )
)
