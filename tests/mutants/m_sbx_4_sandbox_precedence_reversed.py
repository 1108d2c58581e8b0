"""SBX-4 mutant: sandbox settings are merged with the precedence order read backwards."""

from __future__ import annotations

from reference_impl.permissions import SETTINGS_PRECEDENCE, SettingsFile
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-4"
DESCRIPTION = (
    "the sandbox merge sorts files by the negated precedence index (as if SETTINGS_PRECEDENCE listed the "
    "highest first), so a scalar from user settings overrides managed ones: managed "
    "allowUnsandboxedCommands: false with user allowUnsandboxedCommands: true gives true, and "
    "dangerouslyDisableSandbox runs unsandboxed; lists are still joined, single files unchanged"
)


def _mutate(_original: object) -> object:
    def _precedence(settings: SettingsFile) -> int:
        order = SETTINGS_PRECEDENCE
        return -order.index(settings.source) if settings.source in order else len(order)

    return _precedence


adapter = make_factory(Patch("reference_impl.sandbox._settings", "_precedence", _mutate))
