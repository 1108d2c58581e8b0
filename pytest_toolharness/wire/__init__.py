"""Black-box runs over the wire: a scripted model API server, wire scenarios, targets and checks.

A wire scenario scripts the model's turns; the harness under test (a command such as an agent CLI,
a *target*) runs against :class:`ScriptedApiServer` on loopback, and the checks read the requests it
recorded. Everything here is plain data and real sockets; nothing imports a harness.

A wire test builds a :class:`WireScenario` (or takes a built-in one), runs it with the ``wire``
capability's ``harness.run_wire(scenario)`` (or :func:`run_wire_scenario` for a :class:`Target`), and
judges the :class:`WireRun`: each ``check_*`` function returns a list of problems, and
``run.verdict(problems)`` is the failure message, or None when all is well.

The layout, one subpackage per job (each with its own public names):

- :mod:`~pytest_toolharness.wire.model_api`: the scripted model API: the HTTP server and the in-process
  endpoint, recorded requests, API-neutral scripts and assistant turns, and one module per job for
  each API spoken (today the Messages API: ``_messages``, ``_messages_validation``, ``_messages_sse``).
- :mod:`~pytest_toolharness.wire.scenarios`: the wire scenarios and the stdio MCP tool server that
  serves their tools.
- :mod:`~pytest_toolharness.wire.targets`: the harnesses run from outside: command targets, target
  profiles (one module per built-in CLI) and the :class:`WireAdapter`.
- :mod:`~pytest_toolharness.wire.checks`: request checks, run checks and the evidence that a run
  exercised what they judge.

Dependencies run one way: checks -> targets -> scenarios -> model_api, all on
:mod:`pytest_toolharness.specs` and :mod:`pytest_toolharness.processes` (starting and serving the
suite's processes, which the plugin's isolation and the adapters use too).
"""

from __future__ import annotations

from pytest_toolharness.wire.checks import (
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
from pytest_toolharness.wire.model_api import (
    ENDPOINT_BASE_URL,
    ApiError,
    AssistantTurn,
    RecordedRequest,
    Script,
    ScriptedApiServer,
    ScriptedEndpoint,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    tool_use_turn,
    validate_count_tokens_request,
    validate_messages_request,
    wire_bytes,
    wire_json,
)
from pytest_toolharness.wire.scenarios import (
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
from pytest_toolharness.wire.targets import (
    CommandTarget,
    Target,
    TargetCutOff,
    TargetError,
    TargetInvocation,
    TargetOutcome,
    WireAdapter,
    WireHarness,
    WireRun,
    resolve_target,
    run_wire_scenario,
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
    "TargetCutOff",
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
