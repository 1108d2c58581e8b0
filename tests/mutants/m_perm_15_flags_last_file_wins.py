"""PERM-15 mutant: ``blockWritesOutsideWorkingDirectories`` and ``denyInsteadOfPrompting`` from the last file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "the two flags are merged as scalars, the last file that sets one winning: a local or project"
    " false loaded after the managed true turns off blockWritesOutsideWorkingDirectories or"
    " denyInsteadOfPrompting"
)


def _last(files: Any, key: str) -> bool:
    value = False
    for settings in files:
        permissions = settings.data.get("permissions") or {}
        if key in permissions:
            value = bool(permissions[key])  # BUG: a later false overrides an earlier true
    return value


def _mutate(original: Any) -> Any:
    def context_from_settings(files: Any, **kwargs: Any) -> Any:
        files = tuple(files)
        context = original(files, **kwargs)
        return replace(
            context,
            block_writes_outside_working_dirs=_last(files, "blockWritesOutsideWorkingDirectories"),
            deny_instead_of_prompting=_last(files, "denyInsteadOfPrompting"),
        )

    return context_from_settings


adapter = make_factory(
    Patch("reference_impl.permissions._context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._permission_context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._adapter", "context_from_settings", _mutate),
    Patch("reference_impl.agent._cli", "context_from_settings", _mutate),
)
