"""Mutant: plugin hooks load, but ``${CLAUDE_PLUGIN_ROOT}`` is neither expanded nor set for the command."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = "a plugin's hooks/hooks.json is read but its commands run without CLAUDE_PLUGIN_ROOT"


def _mutate(original: Any) -> Any:
    def parse_hook(raw: Any, where: str, plugin_root: str | None = None) -> Any:
        return original(raw, where, None)

    return parse_hook


adapter = make_factory(Patch("reference_impl.hooks._model", "_parse_hook", _mutate))
