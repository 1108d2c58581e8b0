"""Mutant: deny rules see a path-qualified command name as written (``/bin/rm`` is not ``rm``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(rm:*) misses /bin/rm, /usr/bin/env rm and sudo /usr/bin/rm: the name is not reduced to its program"
)


adapter = make_factory(
    TRUST_UNREAD,
    Patch("reference_impl.permissions._shell_forms", "_program_name", lambda _original: lambda name: name),
)
