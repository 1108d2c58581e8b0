"""PERM-17 mutant: a wrapper in a shell deny rule is kept as written (``Bash(sudo rm:*)`` misses ``sudo /bin/rm``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a rule's wrapper is not read through: Bash(sudo rm:*) misses sudo /bin/rm x, Bash(command rm: *) "
    "loads naming a program 'rm:' nobody has"
)

adapter = make_factory(
    Patch("reference_impl.permissions._rule_words", "_wrapped", lambda _original: lambda words, form: words)
)
