"""Mutant: a search-hint match scores like a description match (2 instead of 4)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-5"
DESCRIPTION = "the searchHint weight is the description weight, so hinted tools lose their ranking edge"

adapter = make_factory(Patch("reference_impl.search._index", "SCORE_SEARCH_HINT", lambda original: 2))
