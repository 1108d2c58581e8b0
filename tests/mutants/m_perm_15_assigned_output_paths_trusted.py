"""PERM-15 mutant: the values a line assigns are not read as paths programs write."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = "GIT_TRACE=$PWD/.git/hooks/pre-commit git status and TMPDIR=.git/hooks mktemp run unasked in bypassPermissions"

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_unread_words_reason",
        rewrite(
            '    texts = [value.partition("=")[2] for part in command.parts for value in part.assignments]\n',
            "    texts = []\n",
        ),
    )
)
