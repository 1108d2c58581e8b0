"""PERM-17 mutant: a program the command line copies or links under another name is taken for that name."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cp /usr/bin/rm ./t; ./t -rf x and ln -s /usr/bin/rm t && ./t run rm under Bash(rm:*) deny: only "
    "redirections and tee count as writing the file run (the reference engine before session 7)"
)


def _redirections_only(original: Any) -> Any:
    def writes(base: str, args: Any) -> Any:
        return original(base, args) if base == "tee" else ([], None)

    return writes


adapter = make_factory(
    TRUST_UNREAD, Patch("reference_impl.permissions._line_writes", "program_writes", _redirections_only)
)
