"""The adapter contract: how any harness plugs into the conformance suite.

An adapter factory returns a :class:`HarnessAdapter`: a ``name``, the ``capabilities`` it declares
(a frozenset of names of :data:`CAPABILITIES`) and ``new_harness()``, a fresh harness per test and per
Hypothesis example. Everything crosses the boundary as the plain data of this package (tool specs,
rules, hooks, scenarios) and JSON-like dicts in the Messages API's own shapes.

The adapter for the embedded reference harness is :mod:`pytest_toolharness.adapters.reference`; it
is the only module of the plugin that imports ``reference_impl``.
"""

from __future__ import annotations

from pytest_toolharness.adapters._capabilities import CAPABILITIES, requires
from pytest_toolharness.adapters._contract import (
    CacheKeyCapability,
    ClassificationCapability,
    ConversationCapability,
    ExecutionCapability,
    Harness,
    HarnessAdapter,
    NoticesCapability,
    PoolCapability,
    SchemasCapability,
    SearchCapability,
)
from pytest_toolharness.adapters._loading import DEFAULT_ADAPTER_SPEC, AdapterLoadError
from pytest_toolharness.adapters._specs import (
    STATE_KEY,
    BehaviorKind,
    CallEvent,
    CallRecorder,
    ExecutionResult,
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    Notice,
    PermissionTargetKind,
    RuleSpec,
    ScriptedToolError,
    StateChange,
    ToolBehavior,
    ToolSpec,
    WireRequest,
)

__all__ = [
    "CAPABILITIES",
    "DEFAULT_ADAPTER_SPEC",
    "STATE_KEY",
    "AdapterLoadError",
    "BehaviorKind",
    "CacheKeyCapability",
    "CallEvent",
    "CallRecorder",
    "ClassificationCapability",
    "ConversationCapability",
    "ExecutionCapability",
    "ExecutionResult",
    "ExecutionScenario",
    "Harness",
    "HarnessAdapter",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "Notice",
    "NoticesCapability",
    "PermissionTargetKind",
    "PoolCapability",
    "RuleSpec",
    "SchemasCapability",
    "ScriptedToolError",
    "SearchCapability",
    "StateChange",
    "ToolBehavior",
    "ToolSpec",
    "WireRequest",
    "requires",
]
