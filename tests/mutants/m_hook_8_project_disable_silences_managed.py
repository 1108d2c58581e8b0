"""HOOK-8 mutant: ``disableAllHooks: true`` in a user or project file turns the managed hooks off too."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = "a non-managed disableAllHooks: true silences every hook, the organisation's managed ones too"


def _mutate(original: Any) -> Any:
    def _hooks_disabled(files: Any) -> tuple[bool, bool]:
        every_hook_off, others_off = original(files)
        return every_hook_off or others_off, others_off

    return _hooks_disabled


adapter = make_factory(Patch("reference_impl.hooks._model", "_hooks_disabled", _mutate))
