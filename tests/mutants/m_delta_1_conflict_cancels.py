"""Mutant: a name both added and removed in one notice record is taken for no change at all."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference_impl.request._transcript import CompactBoundary, DeferredToolsDelta
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-1"
DESCRIPTION = (
    "the fold drops the names a record both adds and removes, as if the two cancelled out: a tool "
    "announced earlier and then added and removed in one record stays announced"
)


def _mutate(_original: Any) -> Any:
    def _announced_in_order(entries: Iterable[Any]) -> dict[str, None]:
        announced: dict[str, None] = {}
        for entry in entries:
            if isinstance(entry, CompactBoundary):
                announced.clear()
            elif isinstance(entry, DeferredToolsDelta):
                conflicts = set(entry.added_names) & set(entry.removed_names)
                for name in entry.added_names:
                    if name not in conflicts:
                        announced.pop(name, None)
                        announced[name] = None
                for name in entry.removed_names:
                    if name not in conflicts:
                        announced.pop(name, None)
        return announced

    return _announced_in_order


adapter = make_factory(Patch("reference_impl.request._notices", "_announced_in_order", _mutate))
