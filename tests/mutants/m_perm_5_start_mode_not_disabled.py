"""PERM-5 mutant: ``disableBypassPermissionsMode`` / ``disableAutoMode`` hold for a file's mode only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-5"
DESCRIPTION = (
    "the disabling keys are checked against defaultMode while the files are read, and the mode given"
    " when the session starts is applied afterwards: --permission-mode bypassPermissions runs in"
    " bypassPermissions although a settings file disables it"
)


def _mutate(original: Any) -> Any:
    def context_from_settings(files: Any, *, mode: Any = None, **kwargs: Any) -> Any:
        context = original(files, **kwargs)
        return context if mode is None else replace(context, mode=mode)  # BUG: never checked

    return context_from_settings


adapter = make_factory(
    Patch("reference_impl.permissions._context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._permission_context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._adapter", "context_from_settings", _mutate),
    Patch("reference_impl.agent._cli", "context_from_settings", _mutate),
)
