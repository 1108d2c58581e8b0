"""DEFER-5 mutant: an ``mcp__server`` query returns all of the server's tools, past ``max_results``."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-5"
DESCRIPTION = "The mcp__server fast path forgets max_results: a server with more tools returns them all"

adapter = make_factory(
    Patch(
        "reference_impl.search._index",
        "SearchIndex.search",
        rewrite("return prefixed[:max_results]", "return prefixed"),
    )
)
