"""PERM-17 mutant: an allow rule on an unread program vouches for a line that names the denied program."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(tmux:*) vouches for tmux new -d 'rm -rf x' past Bash(rm:*), Bash(python3 -c:*) for code calling"
    " os.system('rm ...'): the allow rule's trust of the program outranks a deny rule the line itself names"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_guarded_words_named",
        lambda _original: lambda rule, words: False,
    ),
)
