"""CONC-1 mutant: a call that is not concurrency safe starts while safe calls are running."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-1"
DESCRIPTION = (
    "The scheduler only checks that the running calls are concurrency safe, not the new one, so a "
    "non-concurrency-safe tool runs in parallel with them"
)


def _forgets_new_call(_original: Any) -> Any:
    def _can_execute(self: Any, safe: bool) -> bool:
        running = [c for c in self._calls if c.status == "running"]
        return not running or all(c.safe for c in running)

    return _can_execute


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._can_execute", _forgets_new_call)
)
