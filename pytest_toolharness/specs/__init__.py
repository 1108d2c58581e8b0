"""The plain data everything shares: tool, hook, rule and host specs, scenarios and their results.

The suite builds these, strategies generate them, adapters translate them into a harness's own types
and the wire code serves them; nothing here imports anything of the plugin above it.
"""

from __future__ import annotations

from pytest_toolharness.specs._hooks import (
    HOOK_ALSO_FIELDS,
    HookAlso,
    HookOutcomeKind,
    HookSpec,
    StopReasonGiven,
)
from pytest_toolharness.specs._permissions import HostAnswer, HostSpec, RuleSpec, SettingsSpec
from pytest_toolharness.specs._recorder import CallEvent, CallRecorder
from pytest_toolharness.specs._sandbox import SETTINGS_FILE, SandboxOutcome, SandboxRun
from pytest_toolharness.specs._scenarios import (
    ExecutionResult,
    ExecutionScenario,
    LoopPromptResult,
    LoopRun,
    LoopScenario,
    Notice,
    WireRequest,
)
from pytest_toolharness.specs._tools import (
    STATE_KEY,
    BehaviorKind,
    PermissionTargetKind,
    ScriptedErrorResult,
    ScriptedToolError,
    StateChange,
    ToolBehavior,
    ToolSpec,
)
from pytest_toolharness.specs._vocabulary import (
    ALL_HOOK_EVENTS,
    CLAUDE_CODE_TOOLS,
    CONTENTLESS_TOOLS,
    LIFECYCLE_EVENTS,
    MCP_PREFIX,
    PERMISSION_MODES,
    SETTING_SOURCES,
    SETTINGS_FILES,
    SETTINGS_PRECEDENCE,
    TOOL_HOOK_EVENTS,
    TOOL_MATCHER_EVENTS,
    HookEvent,
    LifecycleEvent,
    McpName,
    PermissionMode,
    SettingSource,
    mcp_tool_name,
    normalize_name_for_mcp,
    parse_mcp_name,
)

__all__ = [
    "ALL_HOOK_EVENTS",
    "CLAUDE_CODE_TOOLS",
    "CONTENTLESS_TOOLS",
    "HOOK_ALSO_FIELDS",
    "LIFECYCLE_EVENTS",
    "MCP_PREFIX",
    "PERMISSION_MODES",
    "SETTINGS_FILE",
    "SETTINGS_FILES",
    "SETTINGS_PRECEDENCE",
    "SETTING_SOURCES",
    "STATE_KEY",
    "TOOL_HOOK_EVENTS",
    "TOOL_MATCHER_EVENTS",
    "BehaviorKind",
    "CallEvent",
    "CallRecorder",
    "ExecutionResult",
    "ExecutionScenario",
    "HookAlso",
    "HookEvent",
    "HookOutcomeKind",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "LifecycleEvent",
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "McpName",
    "Notice",
    "PermissionMode",
    "PermissionTargetKind",
    "RuleSpec",
    "SandboxOutcome",
    "SandboxRun",
    "ScriptedErrorResult",
    "ScriptedToolError",
    "SettingSource",
    "SettingsSpec",
    "StateChange",
    "StopReasonGiven",
    "ToolBehavior",
    "ToolSpec",
    "WireRequest",
    "mcp_tool_name",
    "normalize_name_for_mcp",
    "parse_mcp_name",
]
