"""Mutant: notices compare tool names case-insensitively, so tools differing only in case collapse."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reference_impl.request._notices import _announced_in_order
from reference_impl.request._transcript import DeferredToolsDelta
from reference_impl.tools import is_deferred_tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-2"
DESCRIPTION = (
    "mcp__GH__issues and mcp__gh__issues are one name to the notices: once one is announced the "
    "other never is, and removing one while the other stays is never reported"
)


def _compute(
    pool: Sequence[Any], entries: Iterable[Any], *, is_deferred: Callable[[Any], bool] = is_deferred_tool
) -> Any:
    announced = _announced_in_order(entries)
    known = {name.casefold() for name in announced}
    added = [tool for tool in pool if is_deferred(tool) and tool.name.casefold() not in known]
    in_pool = {tool.name.casefold() for tool in pool}
    removed = [name for name in announced if name.casefold() not in in_pool]
    if not added and not removed:
        return None
    return DeferredToolsDelta(
        added_names=tuple(t.name for t in added),
        added_lines=tuple(t.name for t in added),
        removed_names=tuple(removed),
    )


def _mutate(_original: Any) -> Any:
    return _compute


adapter = make_factory(
    Patch("reference_impl.request._builder", "compute_deferred_tools_delta", _mutate),
)
