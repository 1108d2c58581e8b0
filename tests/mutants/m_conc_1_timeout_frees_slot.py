"""Mutant: a call that runs past the call timeout gives up its slot at the timeout, still running."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-1"
DESCRIPTION = (
    "the timeout marks the call ended as soon as it answers it with its error, so the queue moves on: "
    "the next call that is not concurrency safe starts while the timed-out one (told to abort, or "
    "ignoring it until it is cancelled) is still running"
)


def _mutate(original: Any) -> Any:
    def _timed_out(self: Any, call: Any) -> None:
        original(self, call)
        if call.status == "running":
            self._running -= 1
            if not call.safe:
                self._running_unsafe -= 1
            call.status = "ended"
            self._process_queue()

    return _timed_out


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._timed_out", _mutate)
)
