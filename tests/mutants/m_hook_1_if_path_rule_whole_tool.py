"""Mutant: a path rule in a hook's ``if`` is read as its tool alone: its glob is never matched."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reference_impl.permissions import PermissionRule, safe_target
from reference_impl.tools import PermissionTarget, Tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' matches a path rule by its tool name only: a deny hook scoped by \"Edit(//src/**/*.py)\" "
    "denies every edit, an allow hook so scoped allows edits of any file (shell rules unchanged)"
)


def _mutate(original: Any) -> Any:
    def _condition_applies(
        rule: PermissionRule, tool: Tool, tool_input: Mapping[str, Any], cwd: Path
    ) -> bool | None:
        target = safe_target(tool, tool_input)
        if isinstance(target, PermissionTarget) and target.kind in ("read", "edit"):
            # The defect: the glob is dropped; any call of a tool the rule names meets it.
            return rule.tool_name in (tool.name, *tool.aliases) or original(rule, tool, tool_input, cwd)
        return original(rule, tool, tool_input, cwd)  # type: ignore[no-any-return]

    return _condition_applies


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_condition_applies", _mutate))
