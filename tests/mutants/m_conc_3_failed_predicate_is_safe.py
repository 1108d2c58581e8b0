"""CONC-3 mutant: a concurrency predicate that raises is taken for "safe"."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-3"
DESCRIPTION = (
    "The scheduler answers True when a tool's is_concurrency_safe raises, so the tool runs beside others"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._scheduler",
        "_safe_predicate",
        rewrite("        return False\n", "        return True\n"),
    )
)
