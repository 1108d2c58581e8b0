"""PERM-15 mutant: a protected write is refused outright instead of asked about (no one is asked)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "a write to .git/hooks, .claude/ or ~/.bashrc in bypassPermissions or acceptEdits is denied without "
    "asking the user, where the requirement says protected paths ask"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._engine",
        "_decide",
        rewrite(
            'return PermissionDecision(\n            behavior="ask",\n            reason=DecisionReason(stage="safety", detail=protected),',
            'return PermissionDecision(\n            behavior="deny",\n            reason=DecisionReason(stage="safety", detail=protected),',
        ),
    )
)
