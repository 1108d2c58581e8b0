"""pytest-toolharness: prove that an LLM agent's tool harness is correct.

The pytest plugin adds ``--toolharness-conformance``; this package also gives Hypothesis
strategies for tool pools, permission rules, modes and hooks (:mod:`pytest_toolharness.strategies`),
a syrupy extension that pins the exact wire bytes of tool schemas, the adapter contract any harness
implements to be checked (:mod:`pytest_toolharness.adapters`: specs, capability protocols, the
capability table, command-hook programs), and a scripted Messages API server, wire scenarios and
checks for black-box runs (:mod:`pytest_toolharness.wire`, where the ``check_*`` functions are).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers (at run time they are imported lazily)
    from pytest_toolharness._requirements import (
        Catalogue,
        Level,
        Requirement,
        load_catalogue,
    )
    from pytest_toolharness._snapshot import (
        ToolSchemaExtension,
    )
    from pytest_toolharness.adapters import (
        CAPABILITIES,
        COMMAND_ONLY_OUTCOMES,
        DEFAULT_ADAPTER_SPEC,
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
        NoticesCapability,
        PermissionTargetKind,
        PoolCapability,
        RuleSpec,
        SchemasCapability,
        ScriptedToolError,
        SearchCapability,
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
    from pytest_toolharness.adapters.reference import (
        ReferenceAdapter,
        ReferenceHarness,
        reference_adapter,
    )
    from pytest_toolharness.wire import (
        ApiError,
        AssistantTurn,
        CommandTarget,
        RecordedRequest,
        ScriptedApiServer,
        Target,
        TextBlock,
        ThinkingBlock,
        ToolUseBlock,
        WireRun,
        WireScenario,
        mcp_spec,
        run_wire_scenario,
        validate_messages_request,
    )

# Names are imported on first use: the plugin loads in every pytest process, and the reference
# harness (with the anthropic SDK) takes seconds to import.
_SOURCES: dict[str, tuple[str, ...]] = {
    "pytest_toolharness.adapters": (
        "AdapterLoadError",
        "BehaviorKind",
        "CAPABILITIES",
        "AgentLoopCapability",
        "LoopPromptResult",
        "LoopRun",
        "LoopScenario",
        "COMMAND_ONLY_OUTCOMES",
        "CacheKeyCapability",
        "CallEvent",
        "CallRecorder",
        "Capability",
        "CapabilityError",
        "ClassificationCapability",
        "ConversationCapability",
        "DEFAULT_ADAPTER_SPEC",
        "ExecutionCapability",
        "ExecutionResult",
        "ExecutionScenario",
        "Harness",
        "HarnessAdapter",
        "HookEndpoint",
        "HookSpec",
        "HostAnswer",
        "HostSpec",
        "Notice",
        "NoticesCapability",
        "PermissionTargetKind",
        "PoolCapability",
        "RuleSpec",
        "STATE_KEY",
        "SchemasCapability",
        "ScriptedToolError",
        "SearchCapability",
        "StateChange",
        "TranscriptCapability",
        "ToolBehavior",
        "ToolSpec",
        "WireCapability",
        "WireRequest",
        "check_harness",
        "hook_command",
        "hook_program",
        "missing_methods",
        "requires",
        "runs_as_command",
        "write_plugin",
    ),
    "pytest_toolharness.adapters.reference": (
        "ReferenceAdapter",
        "ReferenceHarness",
        "reference_adapter",
    ),
    "pytest_toolharness.wire": (
        "ApiError",
        "AssistantTurn",
        "CommandTarget",
        "RecordedRequest",
        "ScriptedApiServer",
        "Target",
        "TextBlock",
        "ThinkingBlock",
        "ToolUseBlock",
        "WireRun",
        "WireScenario",
        "mcp_spec",
        "run_wire_scenario",
        "validate_messages_request",
    ),
    "pytest_toolharness._requirements": (
        "Catalogue",
        "Level",
        "Requirement",
        "load_catalogue",
    ),
    "pytest_toolharness._snapshot": ("ToolSchemaExtension",),
}
_LAZY: dict[str, str] = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "CAPABILITIES",
    "COMMAND_ONLY_OUTCOMES",
    "DEFAULT_ADAPTER_SPEC",
    "STATE_KEY",
    "AdapterLoadError",
    "AgentLoopCapability",
    "ApiError",
    "AssistantTurn",
    "BehaviorKind",
    "CacheKeyCapability",
    "CallEvent",
    "CallRecorder",
    "Capability",
    "CapabilityError",
    "Catalogue",
    "ClassificationCapability",
    "CommandTarget",
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
    "NoticesCapability",
    "PermissionTargetKind",
    "PoolCapability",
    "RecordedRequest",
    "ReferenceAdapter",
    "ReferenceHarness",
    "Requirement",
    "RuleSpec",
    "SchemasCapability",
    "ScriptedApiServer",
    "ScriptedToolError",
    "SearchCapability",
    "StateChange",
    "Target",
    "TextBlock",
    "ThinkingBlock",
    "ToolBehavior",
    "ToolSchemaExtension",
    "ToolSpec",
    "ToolUseBlock",
    "TranscriptCapability",
    "WireCapability",
    "WireRequest",
    "WireRun",
    "WireScenario",
    "check_harness",
    "hook_command",
    "hook_program",
    "load_catalogue",
    "mcp_spec",
    "missing_methods",
    "reference_adapter",
    "requires",
    "run_wire_scenario",
    "runs_as_command",
    "validate_messages_request",
    "write_plugin",
]


def __getattr__(name: str) -> Any:
    try:
        module_name = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'pytest_toolharness' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
