"""Permissions: whether a tool call may run, with the rule, source, hook or mode that decided (PERM).

Settings and rules are loaded (``_settings``, ``_rule_syntax``); one decision reads top-down: the
engine (``_engine``) asks the rule matcher (``_rules``), which asks the shell-rule matcher
(``_shell_rules``, ``_shell_forms``), which asks the bash reader (``_bash_reader``,
``_wrapped_commands``, ``_bash_words``); nothing calls back up. ``_host`` is the host decision
(``can_use_tool``) in claude-agent-sdk's shapes.
"""

from __future__ import annotations

from reference_impl.permissions._bash_reader import (
    ShellCommand,
    split_command,
)
from reference_impl.permissions._context import (
    Classifier,
    PermissionContext,
    context_from_settings,
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
    PathPattern,
    PathPatternError,
    parse_path_pattern,
)
from reference_impl.permissions._protected_paths import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_TREES,
)
from reference_impl.permissions._rule_liveness import dead_rule_reason, rule_witness
from reference_impl.permissions._rule_syntax import (
    PermissionRule,
    RuleSyntaxError,
    format_rule,
    parse_rule,
)
from reference_impl.permissions._rules import (
    rule_applies_to_tool,
    rule_matches,
    safe_target,
    shell_vouched,
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
from reference_impl.permissions._shell_forms import DenyForms, deny_forms, script_operand
from reference_impl.permissions._shell_rules import (
    ShellRuleIndex,
    match_shell_pattern,
    pattern_head,
    rule_matches_shell_part,
    shell_deny_match,
    shell_rule_index,
)
from reference_impl.permissions._source_keys import (
    SOURCE_RESTRICTED_KEYS,
    SettingsNotice,
    SourceRestriction,
    managed_flag,
    restrict_to_source,
)
from reference_impl.permissions._url_hosts import is_local_machine, normalise_host

__all__ = [
    "PERMISSION_MODES",
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "PROTECTED_TREES",
    "SETTINGS_FILES",
    "SETTINGS_PRECEDENCE",
    "SETTING_SOURCES",
    "SOURCE_RESTRICTED_KEYS",
    "CanUseTool",
    "Classifier",
    "DecisionReason",
    "DecisionStage",
    "DenyForms",
    "HookVerdict",
    "PathPattern",
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
    "SettingsNotice",
    "ShellCommand",
    "ShellRuleIndex",
    "SourceRestriction",
    "ToolPermissionContext",
    "context_from_settings",
    "dead_rule_reason",
    "decide_permission",
    "deny_forms",
    "format_rule",
    "internal_error_decision",
    "is_local_machine",
    "is_tool_denied_as_whole",
    "load_settings",
    "managed_flag",
    "match_shell_pattern",
    "normalise_host",
    "parse_path_pattern",
    "parse_rule",
    "pattern_head",
    "restrict_to_source",
    "rule_applies_to_tool",
    "rule_matches",
    "rule_matches_shell_part",
    "rule_witness",
    "rules_from_strings",
    "safe_target",
    "script_operand",
    "shell_deny_match",
    "shell_rule_index",
    "shell_vouched",
    "split_command",
]
