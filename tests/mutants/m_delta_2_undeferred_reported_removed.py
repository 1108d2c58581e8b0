"""Mutant: a tool that stays in the pool but stops being deferred is reported removed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reference_impl.request import DeferredToolsDelta, _notices
from reference_impl.tools import is_deferred_tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-2"
DESCRIPTION = "removed = announced minus the deferred tools (not minus the pool): always_load tools 'removed'"


def _delta(
    pool: Sequence[Any], entries: Iterable[Any], *, is_deferred: Callable[[Any], bool] = is_deferred_tool
) -> DeferredToolsDelta | None:
    announced = _notices._announced_in_order(entries)
    added = [tool for tool in pool if is_deferred(tool) and tool.name not in announced]
    deferred_names = {tool.name for tool in pool if is_deferred(tool)}
    removed = [name for name in announced if name not in deferred_names]  # the defect
    if not added and not removed:
        return None
    return DeferredToolsDelta(
        added_names=tuple(t.name for t in added),
        added_lines=tuple(_notices.format_deferred_tool_line(t) for t in added),
        removed_names=tuple(removed),
    )


adapter = make_factory(
    Patch("reference_impl.request._notices", "compute_deferred_tools_delta", lambda original: _delta),
    Patch("reference_impl.request._builder", "compute_deferred_tools_delta", lambda original: _delta),
)
