"""Mutant: a hook's ``continue: false`` is parsed and ignored; the loop goes on."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = "continue: false from a hook is collected but never stops the agent loop"


def _mutate(original: Any) -> Any:
    def take(self: Any, outcome: Any) -> None:
        original(self, outcome)
        self.stop, self.stop_reason = False, ""

    return take


adapter = make_factory(Patch("reference_impl.hooks._lifecycle", "HookSignals.take", _mutate))
