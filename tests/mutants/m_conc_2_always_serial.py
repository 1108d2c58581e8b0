"""CONC-2 mutant: every call waits for the one before it, safe or not."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-2"
DESCRIPTION = "The scheduler starts a call only when nothing runs, so adjacent concurrency-safe calls never run together"


def _serial(_original: Any) -> Any:
    def _can_execute(self: Any, safe: bool) -> bool:
        return not any(c.status == "running" for c in self._calls)

    return _can_execute


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._can_execute", _serial)
)
