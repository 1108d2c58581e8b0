"""The reference harness's permission context for one execution scenario: its rules, mode and settings files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from pytest_toolharness.adapters import ExecutionScenario, RuleSpec
from reference_impl import (
    PermissionContext,
    PermissionRule,
    SettingSource,
    context_from_settings,
    load_settings,
)
from reference_impl.permissions import SettingsFile

__all__ = ["permission_context", "rules_of", "settings_files"]


def rules_of(specs: Sequence[RuleSpec]) -> tuple[PermissionRule, ...]:
    """The scenario's rule specs as the engine's rules, each with its settings source.

    Each rule is loaded as a one-rule settings file of its source, so it passes every check the
    harness's own loader makes (syntax, and whether the rule can ever match: PERM-12); a rule the
    loader refuses raises its ``SettingsError``, naming the rule, as the harness would at start.
    """
    rules: list[PermissionRule] = []
    for index, spec in enumerate(specs, start=1):
        text = json.dumps({"permissions": {spec.behavior: [spec.text]}})
        loaded = load_settings(text, cast(SettingSource, spec.source), name=f"rule#{index} ({spec.source})")
        rules.extend(loaded.rules)
    return tuple(rules)


def permission_context(scenario: ExecutionScenario) -> PermissionContext:
    """The context the engine decides with: the scenario's settings files as loaded from disk.

    Each settings file is loaded as the harness loads a file (JSON text, so its strings are fresh
    objects, never interned literals), then combined by ``context_from_settings``: the scenario's
    ``rules`` come after the files' rules, and a ``mode`` of ``"default"`` means none was given.
    """
    if not scenario.settings:
        return PermissionContext(
            mode=cast(Any, scenario.mode),
            rules=rules_of(scenario.rules),
            cwd=scenario.cwd,
            additional_dirs=tuple(scenario.additional_dirs),
            can_prompt=scenario.host is not None,
        )
    files = settings_files(scenario)
    return context_from_settings(
        files,
        cwd=scenario.cwd,
        mode=None if scenario.mode == "default" else cast(Any, scenario.mode),
        extra_rules=rules_of(scenario.rules),
        additional_dirs=scenario.additional_dirs,
        can_prompt=scenario.host is not None,
    )


def settings_files(scenario: ExecutionScenario) -> list[SettingsFile]:
    """The scenario's settings files, each loaded as the harness loads a file (its JSON text)."""
    return [
        load_settings(
            json.dumps(dict(spec.content)), cast(SettingSource, spec.source), name=f"{spec.source}#{i}"
        )
        for i, spec in enumerate(scenario.settings, start=1)
    ]
