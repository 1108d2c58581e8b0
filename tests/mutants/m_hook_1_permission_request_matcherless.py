"""Mutant: PermissionRequest hooks are taken for matcherless events: every one runs for every tool."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "PermissionRequest is listed with UserPromptSubmit and Stop as an event without a matcher, so a "
    "PermissionRequest hook for 'Bash' also answers the permission request of every other tool"
)


def _mutate(original: Any) -> Any:
    return frozenset(original) | {"PermissionRequest"}


adapter = make_factory(Patch("reference_impl.hooks._model", "MATCHERLESS_EVENTS", _mutate))
