"""Mutant: of several hooks' ``systemMessage`` on one event, only the last one is shown."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = "two hooks on one call each give a systemMessage; the user sees only the last hook's"


def _mutate(original: Any) -> Any:
    def take(self: Any, outcome: Any) -> None:
        before = len(self.system_messages)
        original(self, outcome)
        added = self.system_messages[before:]
        del self.system_messages[before:]
        self.system_messages.extend(added[-1:])

    return take


adapter = make_factory(Patch("reference_impl.hooks._lifecycle", "HookSignals.take", _mutate))
