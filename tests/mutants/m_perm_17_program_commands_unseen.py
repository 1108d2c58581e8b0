"""PERM-17 mutant: a program that runs a command given in an option or in its own code is taken as harmless."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "awk 'BEGIN { system(\"rm x\") }', git -c alias.z='!rm x' z, tar --checkpoint-action=exec='rm x',"
    " sed '1e rm x', perl -e 'system(...)': Bash(rm:*) deny misses the rm the program starts"
)


def _unseen(_original: object) -> object:
    return lambda *_args: ([], None)


adapter = make_factory(
    Patch("reference_impl.permissions._evaluated", "program_scripts", _unseen),
    Patch("reference_impl.permissions._shell_forms", "program_scripts", _unseen),
)
