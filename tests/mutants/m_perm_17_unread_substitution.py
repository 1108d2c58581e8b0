"""PERM-17 mutant: the bash reader trusts the grammar's tree for where command substitutions are."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "echo ${a:-`rm x`}, ${a#$(rm x)}, a here-document's `rm x`, echo `echo \\`rm x\\``: Bash(rm:*) deny"
    " misses the rm bash runs where the grammar shows no substitution"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "mark_unread_substitutions",
        lambda _original: lambda *_args: None,
    ),
)
