"""RESULT-2 mutant: only the first block is looked at for an image."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-2"
DESCRIPTION = "Only the first content block is checked for an image, so text then an image is persisted"

adapter = make_factory(
    Patch(
        "reference_impl.execution._results",
        "is_exempt_content",
        rewrite("for b in content)", "for b in content[:1])"),
    )
)
