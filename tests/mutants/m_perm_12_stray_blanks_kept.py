"""Mutant: a Bash rule's content is kept exactly as written, stray blanks included."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "Bash(git push :* ) loads and denies nothing: the blanks before ':*' and around the content are kept"
)


adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_syntax",
        "_normalise_shell_content",
        lambda _original: lambda content: content,
    )
)
