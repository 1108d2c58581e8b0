"""PERM-12 mutant: a shell rule whose name holds a look-alike letter loads (``Bash(рm:*)``, full-width ``ｒｍ``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "look-alike letters are not refused: Bash(\\u0440m:*) (Cyrillic er) or full-width Bash(\\uff52\\uff4d:*) "
    "loads and denies nothing an ASCII rm runs"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_words",
        "_look_alike",
        lambda _original: lambda word, *, program: None,
    )
)
