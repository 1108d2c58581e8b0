"""PAIR-4 mutant: whitespace-only output counts as non-empty and is sent as it is."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-4"
DESCRIPTION = (
    "The emptiness check does not trim, so a tool that prints only a newline sends a blank tool_result"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._results",
        "is_result_content_empty",
        rewrite('return content.strip() == ""', 'return content == ""'),
    )
)
