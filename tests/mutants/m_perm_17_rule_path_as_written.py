"""PERM-17 mutant: a path-qualified program in a shell deny rule is matched as written (``/bin/rm`` is not ``rm``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = "Bash(/bin/rm:*) denies only lines spelled /bin/rm: not rm, /usr/bin/rm or \\rm, which run the same program"

adapter = make_factory(
    Patch("reference_impl.permissions._rule_words", "_program_word", lambda _original: lambda head: head)
)
