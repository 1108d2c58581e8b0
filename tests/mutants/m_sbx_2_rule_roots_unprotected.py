"""Mutant: the protected names are laid out only under the roots the settings make writable."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-2"
DESCRIPTION = (
    "protected paths (.git, .bashrc, .claude/skills...) are computed before the Edit allow rules add "
    "their directories to the writable roots, so a repository made writable by Edit(//repo/**) is open"
)

_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})


def _mutate(original: Any) -> Any:
    def derive_policy(settings: Any, context: Any, **options: Any) -> Any:
        policy = original(settings, context, **options)
        rules = tuple(r for r in context.rules if not (r.tool_name in _EDIT_TOOLS and r.behavior == "allow"))
        settings_only = original(settings, dataclasses.replace(context, rules=rules), **options)
        return dataclasses.replace(policy, protected=settings_only.protected)  # BUG: rule roots unguarded

    return derive_policy


adapter = make_factory(Patch("reference_impl.sandbox._shell", "derive_policy", _mutate))
