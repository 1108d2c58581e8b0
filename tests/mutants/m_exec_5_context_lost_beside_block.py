"""Mutant: a hook answer that blocks *and* adds context loses the context (one answer, two fields)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = (
    "a PostToolUse hook answers decision: block with additionalContext in the same JSON: "
    "the block reaches the model, the context is dropped"
)


def _mutate(original: Any) -> Any:
    def take(self: Any, f: Any) -> None:
        if f.decision == "block":
            f = dataclasses.replace(f, additional_context=None)
        original(self, f)

    return take


adapter = make_factory(Patch("reference_impl.hooks._runner", "OutputCollector.take", _mutate))
