"""Permission decisions and their provenance, shared by rules, hooks, modes and the executor.

Every decision carries a :class:`DecisionReason` saying which stage produced it and from which
rule, settings source, hook or mode (PERM-13), so that an audit can explain any allow or deny.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, get_args

__all__ = [
    "SETTINGS_FILES",
    "SETTINGS_PRECEDENCE",
    "SETTING_SOURCES",
    "DecisionReason",
    "DecisionStage",
    "HookVerdict",
    "PermissionBehavior",
    "PermissionDecision",
    "SettingSource",
]

PermissionBehavior: TypeAlias = Literal["allow", "ask", "deny"]

SettingSource: TypeAlias = Literal[
    "userSettings",
    "projectSettings",
    "localSettings",
    "policySettings",
    "flagSettings",
    "cliArg",
    "command",
    "session",
]
SETTING_SOURCES: tuple[SettingSource, ...] = get_args(SettingSource)
"""Every settings source a rule can come from (004 §9.1)."""

SETTINGS_PRECEDENCE: tuple[SettingSource, ...] = (
    "userSettings",
    "projectSettings",
    "localSettings",
    "flagSettings",
    "policySettings",
)
"""The settings files, lowest precedence first: user, shared project, local project, ``--settings``,
managed policy (a later file's value for a key wins; rules are merged: deny > ask > allow, PERM-4)."""

SETTINGS_FILES: dict[SettingSource, str] = {
    "userSettings": "~/.claude/settings.json",
    "projectSettings": ".claude/settings.json",
    "localSettings": ".claude/settings.local.json",
}
"""Where Claude Code reads each settings file it finds by itself: ``~`` is the home directory, the
rest is relative to the project (working) directory. ``flagSettings`` is ``--settings FILE``."""

DecisionStage: TypeAlias = Literal[
    "rule",
    "tool",
    "safety",
    "mode",
    "hook",
    "permission_request_hook",
    "host",
    "classifier",
    "headless",
    "default",
]


@dataclass(frozen=True, slots=True)
class DecisionReason:
    """Why a decision was made: the stage, and the rule / source / hook that made it.

    ``rule`` is the rule's text as written (``Bash(npm test:*)``), ``source`` the settings source
    it came from, ``hook`` the hook's name or command, ``detail`` a sentence for humans.
    """

    stage: DecisionStage
    detail: str = ""
    rule: str | None = None
    source: SettingSource | None = None
    hook: str | None = None
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    """The outcome of the permission stage for one tool call.

    ``message`` is what the model is told on deny (or the question put to the host on ask).
    ``updated_input`` is set when a stage replaced the input; the call then uses it (EXEC-2).
    """

    behavior: PermissionBehavior
    reason: DecisionReason
    message: str = ""
    updated_input: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class HookVerdict:
    """The aggregated permission opinion of the PreToolUse hooks for one call (HOOK-2).

    It is an input to the decision engine, never the final word: an ``allow`` still yields to
    deny and ask rules (PERM-2); a ``deny`` always denies (PERM-3).
    """

    behavior: PermissionBehavior
    reason: str = ""
    hook: str = ""
