"""Black-box runs over the wire: a scripted Messages API server, wire scenarios, targets and checks.

A wire scenario scripts the model's turns; the harness under test (a command such as an agent CLI,
a *target*) runs against :class:`ScriptedApiServer` on loopback, and the checks read the requests it
recorded. Everything here is plain data and real sockets; nothing imports a harness.

A wire test builds a :class:`WireScenario` (or takes a built-in one), runs it with the ``wire``
capability's ``harness.run_wire(scenario)`` (or :func:`run_wire_scenario` for a :class:`Target`), and
judges the :class:`WireRun`: each ``check_*`` function returns a list of problems, and
``run.verdict(problems)`` is the failure message, or None when all is well.
"""

from __future__ import annotations

from pytest_toolharness.wire._adapter import WireAdapter, WireHarness, WireRun, run_wire_scenario
from pytest_toolharness.wire._api_server import RecordedRequest, ScriptedApiServer
from pytest_toolharness.wire._api_validation import (
    ApiError,
    validate_count_tokens_request,
    validate_messages_request,
)
from pytest_toolharness.wire._checks import (
    OVERLAY_KEYS,
    check_accepted,
    check_answered,
    check_beta_latch,
    check_defer_loading,
    check_deferred_names_listed,
    check_error_results,
    check_message_cache_marker,
    check_nonempty_results,
    check_pairing,
    check_persisted,
    check_pool_order,
    check_result_order,
    check_selected,
    check_tool_bytes_stable,
    check_tool_references,
    check_tool_search_mode,
    check_unique_names,
    main_requests,
    result_text,
    tool_bytes,
    tool_results,
)
from pytest_toolharness.wire._encoding import wire_bytes, wire_json
from pytest_toolharness.wire._endpoint import ENDPOINT_BASE_URL, ScriptedEndpoint, tool_use_turn
from pytest_toolharness.wire._scenarios import (
    SERVER_NAME,
    ConcurrentIds,
    DeferIds,
    PairingIds,
    Step,
    WireScenario,
    concurrent_scenario,
    deferred_scenario,
    mcp_name,
    mcp_spec,
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
    "ENDPOINT_BASE_URL",
    "OVERLAY_KEYS",
    "SERVER_NAME",
    "ApiError",
    "AssistantTurn",
    "CommandTarget",
    "ConcurrentIds",
    "DeferIds",
    "PairingIds",
    "RecordedRequest",
    "Script",
    "ScriptedApiServer",
    "ScriptedEndpoint",
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
    "check_accepted",
    "check_answered",
    "check_beta_latch",
    "check_defer_loading",
    "check_deferred_names_listed",
    "check_error_results",
    "check_message_cache_marker",
    "check_nonempty_results",
    "check_pairing",
    "check_persisted",
    "check_pool_order",
    "check_result_order",
    "check_selected",
    "check_tool_bytes_stable",
    "check_tool_references",
    "check_tool_search_mode",
    "check_unique_names",
    "concurrent_scenario",
    "deferred_scenario",
    "main_requests",
    "mcp_name",
    "mcp_spec",
    "pairing_scenario",
    "resolve_target",
    "result_text",
    "run_wire_scenario",
    "tool_bytes",
    "tool_results",
    "tool_use_turn",
    "validate_count_tokens_request",
    "validate_messages_request",
    "wire_bytes",
    "wire_json",
]
