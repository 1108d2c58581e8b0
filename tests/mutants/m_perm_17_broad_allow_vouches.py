"""PERM-17 mutant: an allow rule naming only the outer program vouches for an unread command (issue 34, group 7)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(git:*) vouches for git -c help.autocorrect=immediate psuh past Bash(git push:*), Bash(zip:*) for"
    " zip -TT CMD: the words that make a command unread are taken to be its program name alone"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "running_form",
        lambda _original: lambda argv: tuple(argv[:1]),
    ),
)
