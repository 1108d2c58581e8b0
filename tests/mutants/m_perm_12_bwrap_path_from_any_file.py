"""PERM-12 mutant: ``sandbox.bwrapPath`` (and ``socatPath``) count from every settings file, not only the managed one."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the managed-only check of `bwrapPath` is forgotten: a repository's `.claude/settings.json` (or the "
    "user's or local settings) names the program that is to confine its commands, and the harness runs it"
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._settings",
        "_parse_one",
        rewrite(
            'if settings.source == "policySettings":  # MANAGED_ONLY',
            "if settings.source:  # MANAGED_ONLY",
        ),
    )
)
