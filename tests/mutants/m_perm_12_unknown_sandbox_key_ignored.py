"""PERM-12 mutant: a key the harness does not know inside ``sandbox`` is skipped without a word."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "a lenient settings reader skips unknown keys at every level of `sandbox`: a misspelt "
    '`"filesystem": {"denyReads": ["secrets"]}` loads, and the denial its author believes in is not there'
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._settings",
        "_object",
        rewrite("unknown = sorted(set(value) - known)", "unknown: list[str] = []"),
    )
)
