"""pytest-toolharness: prove that an LLM agent's tool harness is correct.

The pytest plugin adds ``--toolharness-conformance``; this package also gives Hypothesis
strategies for tool pools, permission rules, modes and hooks (:mod:`pytest_toolharness.strategies`),
a syrupy extension that pins the exact wire bytes of tool schemas, the adapter protocol any harness
implements to be checked, and a scripted Messages API server for black-box runs.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported on first use: the plugin loads in every pytest process, and the reference
# harness (with the anthropic SDK) takes seconds to import.
_LAZY: dict[str, tuple[str, str]] = {
    "AdapterLoadError": ("pytest_toolharness.adapters", "AdapterLoadError"),
    "ApiError": ("pytest_toolharness.wire", "ApiError"),
    "AssistantTurn": ("pytest_toolharness.wire", "AssistantTurn"),
    "CAPABILITIES": ("pytest_toolharness.adapters._capabilities", "CAPABILITIES"),
    "CAPABILITY_METHODS": ("pytest_toolharness.adapters._contract", "CAPABILITIES"),
    "CallEvent": ("pytest_toolharness.adapters", "CallEvent"),
    "CallRecorder": ("pytest_toolharness.adapters", "CallRecorder"),
    "Catalogue": ("pytest_toolharness._requirements", "Catalogue"),
    "DEFAULT_ADAPTER_SPEC": ("pytest_toolharness.adapters", "DEFAULT_ADAPTER_SPEC"),
    "ExecutionResult": ("pytest_toolharness.adapters", "ExecutionResult"),
    "ExecutionScenario": ("pytest_toolharness.adapters", "ExecutionScenario"),
    "HarnessAdapter": ("pytest_toolharness.adapters", "HarnessAdapter"),
    "HookSpec": ("pytest_toolharness.adapters", "HookSpec"),
    "HostAnswer": ("pytest_toolharness.adapters", "HostAnswer"),
    "HostSpec": ("pytest_toolharness.adapters", "HostSpec"),
    "Level": ("pytest_toolharness._requirements", "Level"),
    "Notice": ("pytest_toolharness.adapters", "Notice"),
    "RecordedRequest": ("pytest_toolharness.wire", "RecordedRequest"),
    "ReferenceAdapter": ("pytest_toolharness.adapters.reference", "ReferenceAdapter"),
    "ReferenceHarness": ("pytest_toolharness.adapters.reference", "ReferenceHarness"),
    "Requirement": ("pytest_toolharness._requirements", "Requirement"),
    "RuleSpec": ("pytest_toolharness.adapters", "RuleSpec"),
    "ScriptedApiServer": ("pytest_toolharness.wire", "ScriptedApiServer"),
    "ScriptedToolError": ("pytest_toolharness.adapters", "ScriptedToolError"),
    "TextBlock": ("pytest_toolharness.wire", "TextBlock"),
    "ThinkingBlock": ("pytest_toolharness.wire", "ThinkingBlock"),
    "ToolBehavior": ("pytest_toolharness.adapters", "ToolBehavior"),
    "ToolSchemaExtension": ("pytest_toolharness._snapshot", "ToolSchemaExtension"),
    "ToolSpec": ("pytest_toolharness.adapters", "ToolSpec"),
    "ToolUseBlock": ("pytest_toolharness.wire", "ToolUseBlock"),
    "WireRequest": ("pytest_toolharness.adapters", "WireRequest"),
    "capabilities_of": ("pytest_toolharness.adapters._contract", "capabilities_of"),
    "load_catalogue": ("pytest_toolharness._requirements", "load_catalogue"),
    "reference_adapter": ("pytest_toolharness.adapters.reference", "reference_adapter"),
    "requires": ("pytest_toolharness.adapters", "requires"),
    "validate_messages_request": ("pytest_toolharness.wire", "validate_messages_request"),
}

__all__ = [
    "CAPABILITIES",
    "CAPABILITY_METHODS",
    "DEFAULT_ADAPTER_SPEC",
    "AdapterLoadError",
    "ApiError",
    "AssistantTurn",
    "CallEvent",
    "CallRecorder",
    "Catalogue",
    "ExecutionResult",
    "ExecutionScenario",
    "HarnessAdapter",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "Level",
    "Notice",
    "RecordedRequest",
    "ReferenceAdapter",
    "ReferenceHarness",
    "Requirement",
    "RuleSpec",
    "ScriptedApiServer",
    "ScriptedToolError",
    "TextBlock",
    "ThinkingBlock",
    "ToolBehavior",
    "ToolSchemaExtension",
    "ToolSpec",
    "ToolUseBlock",
    "WireRequest",
    "capabilities_of",
    "load_catalogue",
    "reference_adapter",
    "requires",
    "validate_messages_request",
]


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'pytest_toolharness' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
