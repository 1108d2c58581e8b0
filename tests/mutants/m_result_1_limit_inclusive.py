"""RESULT-1 mutant: a result of exactly the size limit is persisted (``<`` where ``<=`` belongs)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-1"
DESCRIPTION = (
    "Off by one at the limit: a result of exactly max_result_size_chars characters is saved to a file"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._pipeline",
        "maybe_persist_large_result",
        rewrite("if content_size(content) <= limit:", "if content_size(content) < limit:"),
    )
)
