"""Mutant: a hook answer with ``additionalContext`` *and* ``systemMessage`` keeps only the context."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = (
    "one hook's JSON carries additionalContext and systemMessage: the context is kept, the user's "
    "message is dropped (an elif where both apply)"
)


def _mutate(original: Any) -> Any:
    def take(self: Any, f: Any) -> None:
        if f.additional_context:
            f = dataclasses.replace(f, system_message=None)
        original(self, f)

    return take


adapter = make_factory(Patch("reference_impl.hooks._runner", "OutputCollector.take", _mutate))
