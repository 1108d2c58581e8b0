"""Mutant: ``Edit(...)`` deny rules bind the file tools only; sandboxed commands still write what they name."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "the sandbox's policy leaves out the deny rules of the edit tools (Edit, Write, MultiEdit, "
    "NotebookEdit): a sandboxed command writes the files they keep from the file tools"
)

_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})


def _mutate(original: Any) -> Any:
    def derive_policy(settings: Any, context: Any, **kwargs: Any) -> Any:
        kept = tuple(r for r in context.rules if not (r.behavior == "deny" and r.tool_name in _EDIT_TOOLS))
        return original(settings, dataclasses.replace(context, rules=kept), **kwargs)

    return derive_policy


adapter = make_factory(Patch("reference_impl.sandbox._shell", "derive_policy", _mutate))
