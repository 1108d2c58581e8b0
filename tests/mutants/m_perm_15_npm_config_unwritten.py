"""PERM-15 mutant: npm / pnpm / yarn ``config set`` writing their rc file with no path on the line are unseen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "npm config set script-shell=nuke --location=project writes ./.npmrc (npm set: ~/.npmrc), "
    "unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._line_writes",
        "conventional_writes",
        rewrite("if key[0] != base:", 'if key[0] != base or base in ("npm", "pnpm", "yarn"):'),
    )
)
