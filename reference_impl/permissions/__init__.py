"""Permissions: rules and settings sources, shell and path matching, the decision engine and modes.

The engine (``_engine``) calls the matchers (``_rules``, ``_shell``, ``_paths``); the matchers call
nothing back. ``_host`` is the host decision (``can_use_tool``) in claude-agent-sdk's shapes.
"""

from __future__ import annotations

from reference_impl.permissions._bash_reader import (
    ShellCommand,
    split_command,
)
from reference_impl.permissions._decisions import (
    SETTING_SOURCES,
    SETTINGS_FILES,
    SETTINGS_PRECEDENCE,
    DecisionReason,
    DecisionStage,
    HookVerdict,
    PermissionBehavior,
    PermissionDecision,
    SettingSource,
)
from reference_impl.permissions._engine import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    Classifier,
    PermissionContext,
    context_from_settings,
    decide_permission,
    internal_error_decision,
    is_tool_denied_as_whole,
)
from reference_impl.permissions._host import (
    CanUseTool,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from reference_impl.permissions._paths import (
    PathPatternError,
    parse_path_pattern,
)
from reference_impl.permissions._rules import (
    PermissionRule,
    RuleSyntaxError,
    format_rule,
    normalise_host,
    parse_rule,
    rule_applies_to_tool,
    rule_matches,
    rule_matches_shell_part,
    safe_target,
)
from reference_impl.permissions._settings import (
    PERMISSION_MODES,
    PermissionMode,
    PermissionSettings,
    SettingsError,
    SettingsFile,
    load_settings,
    rules_from_strings,
)

__all__ = [
    "PERMISSION_MODES",
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "SETTINGS_FILES",
    "SETTINGS_PRECEDENCE",
    "SETTING_SOURCES",
    "CanUseTool",
    "Classifier",
    "DecisionReason",
    "DecisionStage",
    "HookVerdict",
    "PathPatternError",
    "PermissionBehavior",
    "PermissionContext",
    "PermissionDecision",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRule",
    "PermissionSettings",
    "RuleSyntaxError",
    "SettingSource",
    "SettingsError",
    "SettingsFile",
    "ShellCommand",
    "ToolPermissionContext",
    "context_from_settings",
    "decide_permission",
    "format_rule",
    "internal_error_decision",
    "is_tool_denied_as_whole",
    "load_settings",
    "normalise_host",
    "parse_path_pattern",
    "parse_rule",
    "rule_applies_to_tool",
    "rule_matches",
    "rule_matches_shell_part",
    "rules_from_strings",
    "safe_target",
    "split_command",
]
