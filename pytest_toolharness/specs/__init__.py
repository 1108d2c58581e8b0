"""The plain data everything shares: tool, hook, rule and host specs, scenarios and their results.

The suite builds these, strategies generate them, adapters translate them into a harness's own types
and the wire code serves them; nothing here imports anything of the plugin above it.
"""

from __future__ import annotations

from pytest_toolharness.specs._hooks import HookOutcomeKind, HookSpec
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

__all__ = [
    "SETTINGS_FILE",
    "STATE_KEY",
    "BehaviorKind",
    "CallEvent",
    "CallRecorder",
    "ExecutionResult",
    "ExecutionScenario",
    "HookOutcomeKind",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "Notice",
    "PermissionTargetKind",
    "RuleSpec",
    "SandboxOutcome",
    "SandboxRun",
    "ScriptedErrorResult",
    "ScriptedToolError",
    "SettingsSpec",
    "StateChange",
    "ToolBehavior",
    "ToolSpec",
    "WireRequest",
]
