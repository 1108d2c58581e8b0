"""PERM-17 mutant: programs the engine does not model are trusted (issue 34's fail-closed principle off)."""

from __future__ import annotations

from tests.mutants._base import make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "debconf rm -rf x, debugfs -R '!rm -rf x', tclsh <<< 'exec ...', python3 -c '...' run under Bash(rm:*)"
    " deny: a program, option or inline code the engine does not read is taken as harmless"
)

adapter = make_factory(TRUST_UNREAD)
