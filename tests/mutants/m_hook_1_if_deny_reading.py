"""Mutant: a hook's ``if`` on a shell line is judged by the deny reading of the rule alone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reference_impl.permissions import PermissionRule, safe_target, shell_deny_match
from reference_impl.tools import PermissionTarget, Tool
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' takes the rule as a deny rule reads it (options as a set): \"Bash(git push)\" meets "
    "'git push --force', so an allow hook scoped to the bare command allows it with any options "
    "(the reference before session 28)"
)


def _mutate(original: Any) -> Any:
    def _condition_applies(
        rule: PermissionRule, tool: Tool, tool_input: Mapping[str, Any], cwd: Path
    ) -> bool | None:
        target = safe_target(tool, tool_input)
        names = (tool.name, *tool.aliases)
        if (
            rule.content is None
            or not isinstance(target, PermissionTarget)
            or target.kind != "shell"
            or rule.tool_name not in names
        ):
            return original(rule, tool, tool_input, cwd)  # type: ignore[no-any-return]
        # The defect: a certain deny-reading match is enough; no command need be the rule's as written.
        found = shell_deny_match((rule,), names, target.value)
        return None if found is not None and not found.certain else found is not None

    return _condition_applies


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_condition_applies", _mutate))
