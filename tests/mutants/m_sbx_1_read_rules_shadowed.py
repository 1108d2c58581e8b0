"""Mutant: ``Read(...)`` deny rules stop hiding paths once ``sandbox.filesystem.denyRead`` is set."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "the sandbox's hidden paths come from sandbox.filesystem.denyRead when it is set, else from the "
    "Read(...) deny rules: with both, the rules' paths stay readable"
)


def _mutate(original: Any) -> Any:
    def derive_policy(settings: Any, context: Any, **kwargs: Any) -> Any:
        if settings.deny_read:
            kept = tuple(r for r in context.rules if not (r.behavior == "deny" and r.tool_name == "Read"))
            context = dataclasses.replace(context, rules=kept)
        return original(settings, context, **kwargs)

    return derive_policy


adapter = make_factory(Patch("reference_impl.sandbox._shell", "derive_policy", _mutate))
