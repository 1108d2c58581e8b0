"""PERM-15 mutant: code ``.``/``source`` reads from the line's input is not looked into for protected writes."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    ". /dev/stdin <<< 'echo x >> .git/hooks/pre-commit' (or source <(...)) writes a git hook unasked "
    "in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_scripts",
        rewrite('elif base in (".", "source"):', "elif False:"),
    )
)
