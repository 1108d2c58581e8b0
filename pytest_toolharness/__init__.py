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
    "AdapterLoadError": ("pytest_toolharness._adapter_loading", "AdapterLoadError"),
    "ApiError": ("pytest_toolharness._api_validation", "ApiError"),
    "AssistantTurn": ("pytest_toolharness._script", "AssistantTurn"),
    "CAPABILITIES": ("pytest_toolharness._capabilities", "CAPABILITIES"),
    "CAPABILITY_METHODS": ("pytest_toolharness._adapter", "CAPABILITIES"),
    "CallEvent": ("pytest_toolharness._specs", "CallEvent"),
    "CallRecorder": ("pytest_toolharness._specs", "CallRecorder"),
    "Catalogue": ("pytest_toolharness._requirements", "Catalogue"),
    "DEFAULT_ADAPTER_SPEC": ("pytest_toolharness._adapter_loading", "DEFAULT_ADAPTER_SPEC"),
    "ExecutionResult": ("pytest_toolharness._specs", "ExecutionResult"),
    "ExecutionScenario": ("pytest_toolharness._specs", "ExecutionScenario"),
    "HarnessAdapter": ("pytest_toolharness._adapter", "HarnessAdapter"),
    "HookSpec": ("pytest_toolharness._specs", "HookSpec"),
    "HostAnswer": ("pytest_toolharness._specs", "HostAnswer"),
    "HostSpec": ("pytest_toolharness._specs", "HostSpec"),
    "Level": ("pytest_toolharness._requirements", "Level"),
    "Notice": ("pytest_toolharness._specs", "Notice"),
    "RecordedRequest": ("pytest_toolharness._api_server", "RecordedRequest"),
    "ReferenceAdapter": ("pytest_toolharness._reference_adapter", "ReferenceAdapter"),
    "ReferenceHarness": ("pytest_toolharness._reference_adapter", "ReferenceHarness"),
    "Requirement": ("pytest_toolharness._requirements", "Requirement"),
    "RuleSpec": ("pytest_toolharness._specs", "RuleSpec"),
    "ScriptedApiServer": ("pytest_toolharness._api_server", "ScriptedApiServer"),
    "ScriptedToolError": ("pytest_toolharness._specs", "ScriptedToolError"),
    "TextBlock": ("pytest_toolharness._script", "TextBlock"),
    "ThinkingBlock": ("pytest_toolharness._script", "ThinkingBlock"),
    "ToolBehavior": ("pytest_toolharness._specs", "ToolBehavior"),
    "ToolSchemaExtension": ("pytest_toolharness._snapshot", "ToolSchemaExtension"),
    "ToolSpec": ("pytest_toolharness._specs", "ToolSpec"),
    "ToolUseBlock": ("pytest_toolharness._script", "ToolUseBlock"),
    "WireRequest": ("pytest_toolharness._specs", "WireRequest"),
    "capabilities_of": ("pytest_toolharness._adapter", "capabilities_of"),
    "load_catalogue": ("pytest_toolharness._requirements", "load_catalogue"),
    "reference_adapter": ("pytest_toolharness._reference_adapter", "reference_adapter"),
    "requires": ("pytest_toolharness._capabilities", "requires"),
    "validate_messages_request": ("pytest_toolharness._api_validation", "validate_messages_request"),
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
