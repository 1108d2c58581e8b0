"""Mutant: ``Edit(...)`` allow rules stop widening the sandbox once ``allowWrite`` is set."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "sandbox.filesystem.allowWrite replaces the writable paths of Edit(...) allow rules instead of "
    "adding to them (settings taken as an override of the rules)"
)


def _mutate(original: Any) -> Any:
    def derive_policy(settings: Any, context: Any, **kwargs: Any) -> Any:
        if settings.allow_write:
            kept = tuple(
                r for r in context.rules if not (r.behavior == "allow" and r.tool_name in ("Edit", "Write"))
            )
            context = dataclasses.replace(context, rules=kept)
        return original(settings, context, **kwargs)

    return derive_policy


adapter = make_factory(Patch("reference_impl.sandbox._shell", "derive_policy", _mutate))
