"""What the sandbox mutants share: a ``SandboxedShell.plan`` that sees one setting changed, a merge
that lets one file's ``false`` win."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reference_impl.permissions import SettingsFile
from reference_impl.sandbox._settings import _parse_one
from tests.mutants._base import Patch

__all__ = ["false_from_any_file", "false_from_any_file_patches", "plan_ignoring"]


def plan_ignoring(**overrides: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``Patch`` mutate function: ``plan`` decides as if the shell's settings had ``overrides``."""

    def mutate(original: Callable[..., Any]) -> Callable[..., Any]:
        def plan(self: Any, tool_input: Mapping[str, Any]) -> Any:
            kept = self.settings
            self.settings = dataclasses.replace(kept, **overrides)
            try:
                return original(self, tool_input)
            finally:
                self.settings = kept

        return plan

    return mutate


def false_from_any_file(attribute: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``Patch`` mutate function for ``sandbox_settings``: ``attribute`` is false when any file says so.

    The merge a cautious-looking bug makes (``merged[key] = merged.get(key, True) and value``): a
    lower-precedence file's ``false`` beats a managed ``true``; one file, or files that agree, unchanged.
    """

    def mutate(original: Callable[..., Any]) -> Callable[..., Any]:
        def sandbox_settings(files: Iterable[SettingsFile]) -> Any:
            files = tuple(files)
            merged = original(files)
            if any(_parse_one(settings).get(attribute) is False for settings in files):
                return dataclasses.replace(merged, **{attribute: False})
            return merged

        return sandbox_settings

    return mutate


def false_from_any_file_patches(attribute: str) -> tuple[Patch, ...]:
    """The patches of :func:`false_from_any_file`, in every module that holds ``sandbox_settings``."""
    return tuple(
        Patch(module, "sandbox_settings", false_from_any_file(attribute))
        for module in (
            "reference_impl.sandbox._settings",
            "reference_impl.sandbox",
            "reference_impl",
            "reference_impl.agent._cli",
            "pytest_toolharness.adapters.reference._adapter",
        )
    )
