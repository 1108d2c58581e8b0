"""CONC-5 mutant: a running call interrupted by an abort keeps whatever it returns afterwards."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-5"
DESCRIPTION = (
    "On abort, running calls are signalled but not answered with a synthetic error: a call that stops "
    "politely is reported as a success"
)


def _signal_only(original: Any) -> Any:
    def _interrupt(self: Any, call: Any, message: str, *, failed: bool = False) -> None:
        if call.outcome is None and call.status == "running" and message == self._abort_reason:
            call.abort.set()
            if call.task is not None:
                call.timers.append(asyncio.get_running_loop().call_later(self._grace, call.task.cancel))
            self._wake()
            return
        original(self, call, message, failed=failed)

    return _interrupt


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor._interrupt", _signal_only)
)
