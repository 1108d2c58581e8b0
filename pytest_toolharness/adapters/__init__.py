"""The adapter contract: how any harness plugs into the conformance suite.

An adapter factory returns a :class:`HarnessAdapter`: a ``name``, the ``capabilities`` it declares
(a frozenset of names of :data:`CAPABILITIES`) and ``new_harness()``, a fresh harness per test and per
Hypothesis example. Each capability that is a set of methods has a protocol (:class:`PoolCapability`
... :class:`WireCapability`, the ``protocol`` of its :class:`Capability`); at the setup of every test
the suite checks that the harness has the methods of every declared capability (:func:`check_harness`).
Everything crosses the boundary as plain data (tool specs, rules, hooks, scenarios: defined in
:mod:`pytest_toolharness.specs` and re-exported here) and JSON-like dicts in the Messages API's own
shapes; :func:`hook_command` turns a :class:`HookSpec` into a real command hook.

The adapter for the embedded reference harness is :mod:`pytest_toolharness.adapters.reference`; it
is the only module of the plugin that imports ``reference_impl``.
"""

from __future__ import annotations

from pytest_toolharness.adapters._capabilities import (
    CAPABILITIES,
    REQUIRES_MARKER,
    Capability,
    CapabilityError,
    adapter_capabilities,
    adapter_not_applicable,
    adapter_profiles,
    check_harness,
    missing_capabilities,
    missing_methods,
    requires,
)
from pytest_toolharness.adapters._contract import (
    AgentLoopCapability,
    CacheKeyCapability,
    ClassificationCapability,
    ConversationCapability,
    ExecutionCapability,
    Harness,
    HarnessAdapter,
    NoticeRecordsCapability,
    NoticesCapability,
    PoolCapability,
    SandboxCapability,
    SchemasCapability,
    SearchCapability,
    TranscriptCapability,
    WireCapability,
)
from pytest_toolharness.adapters._factories import DEFAULT_ADAPTER_SPEC, AdapterLoadError, resolve_factory
from pytest_toolharness.adapters._hook_endpoints import HookEndpoint, write_plugin
from pytest_toolharness.adapters._hook_programs import (
    COMMAND_ONLY_OUTCOMES,
    STDOUT_BESIDE_STATUS_REASON,
    hook_command,
    hook_program,
    runs_as_command,
)
from pytest_toolharness.specs import (
    SETTINGS_FILE,
    STATE_KEY,
    BehaviorKind,
    CallEvent,
    CallRecorder,
    ExecutionResult,
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    LoopPromptResult,
    LoopRun,
    LoopScenario,
    Notice,
    PermissionTargetKind,
    RuleSpec,
    SandboxOutcome,
    SandboxRun,
    ScriptedErrorResult,
    ScriptedToolError,
    SettingsSpec,
    StateChange,
    ToolBehavior,
    ToolSpec,
    WireRequest,
)

__all__ = [
    "CAPABILITIES",
    "COMMAND_ONLY_OUTCOMES",
    "DEFAULT_ADAPTER_SPEC",
    "REQUIRES_MARKER",
    "SETTINGS_FILE",
    "STATE_KEY",
    "STDOUT_BESIDE_STATUS_REASON",
    "AdapterLoadError",
    "AgentLoopCapability",
    "BehaviorKind",
    "CacheKeyCapability",
    "CallEvent",
    "CallRecorder",
    "Capability",
    "CapabilityError",
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
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "Notice",
    "NoticeRecordsCapability",
    "NoticesCapability",
    "PermissionTargetKind",
    "PoolCapability",
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
    "ToolSpec",
    "TranscriptCapability",
    "WireCapability",
    "WireRequest",
    "adapter_capabilities",
    "adapter_not_applicable",
    "adapter_profiles",
    "check_harness",
    "hook_command",
    "hook_program",
    "missing_capabilities",
    "missing_methods",
    "requires",
    "resolve_factory",
    "runs_as_command",
    "write_plugin",
]
