"""DEFER-5 mutant: a query with more terms than a packed score field holds is ranked worst first."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-5"
DESCRIPTION = "The plain scoring path (queries of more than ~1,800 terms) takes the n largest sort keys: lowest scores first"

adapter = make_factory(
    Patch(
        "reference_impl.search._index",
        "SearchIndex.search",
        rewrite("best = heapq.nsmallest(", "best = heapq.nlargest("),
    )
)
