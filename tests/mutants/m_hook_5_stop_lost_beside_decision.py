"""Mutant: a PreToolUse answer with a permission decision *and* ``continue: false`` loses the stop."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = (
    "a PreToolUse hook answers a permissionDecision together with continue: false: the decision "
    "is applied, the stop is forgotten and the loop goes on"
)


def _mutate(original: Any) -> Any:
    def take(self: Any, f: Any) -> None:
        if "permissionDecision" in f.hso:
            f = dataclasses.replace(f, stop=False, stop_reason="")
        original(self, f)

    return take


adapter = make_factory(Patch("reference_impl.hooks._runner", "OutputCollector.take", _mutate))
