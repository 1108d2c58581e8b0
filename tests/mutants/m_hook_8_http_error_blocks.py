"""Mutant: an http hook that answers with an error status blocks the call, like a command hook's exit 2."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = (
    "an http hook endpoint that fails with a 500 blocks the tool instead of being a non-blocking error"
)


def _mutate(original: Any) -> Any:
    def interpret(res: Any, event: str) -> Any:
        run = original(res, event)
        if res.status is not None and not 200 <= res.status < 300:
            return type(run)(run.label, blocking=f"http hook answered {res.status}")
        return run

    return interpret


adapter = make_factory(Patch("reference_impl.hooks._runner", "_interpret_http", _mutate))
