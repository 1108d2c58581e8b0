"""PERM-11 mutant: only a pattern naming one literal file is compared by inode, as before session 31."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants.frozen_engine_531c59b._paths import PathPattern as _FrozenPattern

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "Read(secret/**) (or *.pem, a floating key.pem) deny misses notes.txt, a hard link to secret/sub/key.pem"
)

# The engine of commit 531c59b compared a hard link only with the one file a literal pattern names.
adapter = make_factory(
    Patch(
        "reference_impl.permissions._paths",
        "PathPattern.same_file",
        lambda _original: _FrozenPattern.same_file,
    )
)
