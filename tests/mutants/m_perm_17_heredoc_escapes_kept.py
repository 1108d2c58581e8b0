"""PERM-17 mutant: an unquoted here-document's body is taken as written, its escapes kept."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "bash <<EOF\\necho a \\\\`rm -rf x\\\\`\\nEOF runs under deny Bash(rm:*): bash removes the backslashes before "
    "it feeds the body to the shell, which runs the backquotes; the reader keeps them, so reads only echo"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_body_input",
        rewrite("    if _delimiter_quoted(walk, node):\n", "    if True:\n"),
    )
)
