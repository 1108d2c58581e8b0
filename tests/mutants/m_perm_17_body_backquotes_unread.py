"""PERM-17 mutant: backquotes in an unquoted here-document's body are not read (the grammar shows them as text)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cat <<EOF\\necho `rm -rf x`\\nEOF under deny Bash(rm:*) is only asked: the body's backquote substitution, "
    "which tree-sitter-bash shows as text, is left unread, so the reader fails closed to a question"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_Walk.body_backquotes",
        lambda _original: lambda self, body, depth: None,
    )
)
