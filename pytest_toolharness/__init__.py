"""pytest-toolharness: prove that an LLM agent's tool harness is correct.

The pytest plugin (:mod:`pytest_toolharness.plugin`) adds ``--toolharness-conformance``. Here, at the
top level: the adapter contract any harness implements to be checked (the names of
:mod:`pytest_toolharness.adapters`: specs, capability protocols, the capability table, command-hook
programs), the requirement catalogue, and the syrupy extension that pins the exact wire bytes of tool
schemas. Hypothesis strategies are in :mod:`pytest_toolharness.strategies`; the reference harness's
adapter is :mod:`pytest_toolharness.adapters.reference`; the scripted Messages API server, wire
scenarios and checks for black-box runs are :mod:`pytest_toolharness.wire`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_toolharness._requirements import Catalogue, Level, Requirement, load_catalogue
    from pytest_toolharness._snapshot import ToolSchemaExtension
    from pytest_toolharness.adapters import (
        CAPABILITIES,
        SETTINGS_FILE,
        STATE_KEY,
        AdapterLoadError,
        AgentLoopCapability,
        BehaviorKind,
        CacheKeyCapability,
        CallEvent,
        CallRecorder,
        Capability,
        CapabilityError,
        ClassificationCapability,
        ConversationCapability,
        ExecutionCapability,
        ExecutionResult,
        ExecutionScenario,
        Harness,
        HarnessAdapter,
        HookEndpoint,
        HookSpec,
        HostAnswer,
        HostSpec,
        LoopPromptResult,
        LoopRun,
        LoopScenario,
        Notice,
        NoticeRecordsCapability,
        NoticesCapability,
        PermissionTargetKind,
        PoolCapability,
        RuleSpec,
        SandboxCapability,
        SandboxOutcome,
        SandboxRun,
        SchemasCapability,
        ScriptedErrorResult,
        ScriptedToolError,
        SearchCapability,
        SettingsSpec,
        StateChange,
        ToolBehavior,
        ToolSpec,
        TranscriptCapability,
        WireCapability,
        WireRequest,
        check_harness,
        hook_command,
        hook_program,
        missing_methods,
        requires,
        runs_as_command,
        write_plugin,
    )

# Every pytest run imports this package (the plugin's entry point is one of its modules): the names
# are imported on first use, so that a project that doesn't use the plugin pays nothing for them.
_WHERE = {
    "Catalogue": "pytest_toolharness._requirements",
    "Level": "pytest_toolharness._requirements",
    "Requirement": "pytest_toolharness._requirements",
    "load_catalogue": "pytest_toolharness._requirements",
    "ToolSchemaExtension": "pytest_toolharness._snapshot",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'pytest_toolharness' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE.get(name, "pytest_toolharness.adapters")), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


__all__ = [
    "CAPABILITIES",
    "SETTINGS_FILE",
    "STATE_KEY",
    "AdapterLoadError",
    "AgentLoopCapability",
    "BehaviorKind",
    "CacheKeyCapability",
    "CallEvent",
    "CallRecorder",
    "Capability",
    "CapabilityError",
    "Catalogue",
    "ClassificationCapability",
    "ConversationCapability",
    "ExecutionCapability",
    "ExecutionResult",
    "ExecutionScenario",
    "Harness",
    "HarnessAdapter",
    "HookEndpoint",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "Level",
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "Notice",
    "NoticeRecordsCapability",
    "NoticesCapability",
    "PermissionTargetKind",
    "PoolCapability",
    "Requirement",
    "RuleSpec",
    "SandboxCapability",
    "SandboxOutcome",
    "SandboxRun",
    "SchemasCapability",
    "ScriptedErrorResult",
    "ScriptedToolError",
    "SearchCapability",
    "SettingsSpec",
    "StateChange",
    "ToolBehavior",
    "ToolSchemaExtension",
    "ToolSpec",
    "TranscriptCapability",
    "WireCapability",
    "WireRequest",
    "check_harness",
    "hook_command",
    "hook_program",
    "load_catalogue",
    "missing_methods",
    "requires",
    "runs_as_command",
    "write_plugin",
]
