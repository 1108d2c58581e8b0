"""Mutant: a pool that gains and loses deferred tools between two notices: the notice reports only the gain."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-2"
DESCRIPTION = (
    "tools added and removed in the same turn: the notice lists the added ones and drops the "
    "removed ones (computed as 'if added ... elif removed')"
)


def _mutate(original: Any) -> Any:
    def compute_deferred_tools_delta(*args: Any, **kwargs: Any) -> Any:
        delta = original(*args, **kwargs)
        if delta is not None and delta.added_names and delta.removed_names:
            return dataclasses.replace(delta, removed_names=())
        return delta

    return compute_deferred_tools_delta


adapter = make_factory(
    Patch("reference_impl.request._builder", "compute_deferred_tools_delta", _mutate),
)
