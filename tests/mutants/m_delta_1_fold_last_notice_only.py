"""Mutant: the announced set is read from the most recent notice only, not folded over all of them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference_impl.request import CompactBoundary, DeferredToolsDelta
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-1"
DESCRIPTION = "the announced deferred set is taken from the last deferred_tools_delta alone, not the fold"


def _mutate(original: Any) -> Any:
    del original

    def announced_in_order(entries: Iterable[Any]) -> dict[str, None]:
        announced: dict[str, None] = {}
        for entry in entries:
            if isinstance(entry, CompactBoundary):
                announced = {}
            elif isinstance(entry, DeferredToolsDelta):
                # The defect: each notice replaces the set instead of updating it.
                announced = dict.fromkeys(n for n in entry.added_names if n not in entry.removed_names)
        return announced

    return announced_in_order


adapter = make_factory(Patch("reference_impl.request._notices", "_announced_in_order", _mutate))
