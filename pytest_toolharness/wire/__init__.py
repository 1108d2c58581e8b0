"""Black-box runs over the wire: a scripted Messages API server, wire scenarios, targets and checks.

A wire scenario scripts the model's turns; the harness under test (a command such as an agent CLI,
a *target*) runs against :class:`ScriptedApiServer` on loopback, and the checks read the requests it
recorded. Everything here is plain data and real sockets; nothing imports a harness.
"""

from __future__ import annotations

from pytest_toolharness.wire._adapter import WireAdapter, WireHarness, WireRun, run_wire_scenario
from pytest_toolharness.wire._api_server import RecordedRequest, ScriptedApiServer
from pytest_toolharness.wire._api_validation import (
    ApiError,
    validate_count_tokens_request,
    validate_messages_request,
)
from pytest_toolharness.wire._encoding import wire_bytes, wire_json
from pytest_toolharness.wire._scenarios import (
    Step,
    WireScenario,
    concurrent_scenario,
    deferred_scenario,
    pairing_scenario,
)
from pytest_toolharness.wire._script import (
    AssistantTurn,
    Script,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from pytest_toolharness.wire._targets import (
    CommandTarget,
    Target,
    TargetError,
    TargetInvocation,
    TargetOutcome,
    resolve_target,
)

__all__ = [
    "ApiError",
    "AssistantTurn",
    "CommandTarget",
    "RecordedRequest",
    "Script",
    "ScriptedApiServer",
    "Step",
    "Target",
    "TargetError",
    "TargetInvocation",
    "TargetOutcome",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "WireAdapter",
    "WireHarness",
    "WireRun",
    "WireScenario",
    "concurrent_scenario",
    "deferred_scenario",
    "pairing_scenario",
    "resolve_target",
    "run_wire_scenario",
    "validate_count_tokens_request",
    "validate_messages_request",
    "wire_bytes",
    "wire_json",
]
