"""Black-box conformance over the wire: the harness runs as a process against the scripted API.

Three scenarios are run once per module (each is a whole harness process) and every test judges the
requests the harness sent: ``pairing`` (every failure path in one turn, tool search off),
``deferred`` (tool search on, ``select:`` a deferred MCP tool, call it, a 60,000-character result)
and ``concurrent`` (a slow and a fast read-only MCP call and an unknown tool in one turn: results
in completion order would put the slow one last).
A harness that hangs, exits with an error or never calls the API fails every test with that report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolharness.adapters._capabilities import requires
from pytest_toolharness.wire import _checks as checks
from pytest_toolharness.wire._scenarios import (
    DEFERRED_OUTPUT_CHARS,
    DeferIds,
    PairingIds,
    WireScenario,
    concurrent_scenario,
    deferred_scenario,
    pairing_scenario,
)

_SCENARIOS: dict[str, Callable[[], WireScenario]] = {
    "pairing": pairing_scenario,
    "deferred": deferred_scenario,
    "concurrent": concurrent_scenario,
}

WireRunner = Callable[[str], Any]


@pytest.fixture(scope="module")
def wire(new_harness: Callable[[], Any]) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module)."""
    runs: dict[str, Any] = {}
    harnesses: list[Any] = []

    def run(name: str) -> Any:
        if name not in runs:
            if not harnesses:
                harnesses.append(new_harness())
            runs[name] = harnesses[0].run_wire(_SCENARIOS[name]())
        return runs[name]

    return run


def _judge(run: Any, problems: list[str]) -> None:
    verdict = run.verdict(problems)
    if verdict is not None:
        pytest.fail(verdict, pytrace=False)


def _mcp_names(name: str) -> list[str]:
    return [spec.name for spec in _SCENARIOS[name]().mcp_tools]


@requires("wire")
@pytest.mark.requirement("PAIR-1", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred", "concurrent"])
def test_tool_uses_answered_in_next_request(wire: WireRunner, scenario: str) -> None:
    """PAIR-1: the request after a turn with tool_use blocks answers each id exactly once, results first."""
    run = wire(scenario)
    _judge(run, checks.check_pairing(run.requests))


@requires("wire")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_every_failure_path_answered(wire: WireRunner) -> None:
    """PAIR-2: unknown tool, invalid input, failing tool, rule deny and hook block each get one result."""
    run = wire("pairing")
    _judge(run, checks.check_answered(run.requests, (*PairingIds.FIRST_TURN, PairingIds.SECOND)))


@requires("wire")
@pytest.mark.requirement("PAIR-3", "MUST")
def test_failure_results_are_errors(wire: WireRunner) -> None:
    """PAIR-3: each failure's tool_result has is_error true and non-empty text."""
    run = wire("pairing")
    _judge(run, checks.check_error_results(run.requests, PairingIds.FAILURES))


@requires("wire")
@pytest.mark.requirement("PAIR-4", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_no_empty_results(wire: WireRunner, scenario: str) -> None:
    """PAIR-4: no tool_result goes out with empty content (the empty tool gets a placeholder)."""
    run = wire(scenario)
    problems = checks.check_nonempty_results(run.requests)
    if scenario == "pairing":
        problems += checks.check_answered(run.requests, [PairingIds.EMPTY])
    _judge(run, problems)


@requires("wire")
@pytest.mark.requirement("PAIR-5", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "concurrent"])
def test_results_in_tool_use_order(wire: WireRunner, scenario: str) -> None:
    """PAIR-5: tool_results follow the order of their tool_use blocks.

    ``concurrent`` is the sharp case: two concurrency-safe calls, the earlier one slow, then an
    unknown tool; a harness that answers in completion order sends the slow result last.
    """
    run = wire(scenario)
    _judge(run, checks.check_result_order(run.requests))


@requires("wire")
@pytest.mark.requirement("PAIR-6", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_unique_names_and_ids(wire: WireRunner, scenario: str) -> None:
    """PAIR-6: tool names are unique in every request, tool_use ids across the conversation."""
    run = wire(scenario)
    _judge(run, checks.check_unique_names(run.requests))


@requires("wire")
@pytest.mark.requirement("DEFER-2", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_defer_loading_until_discovered(wire: WireRunner, scenario: str) -> None:
    """DEFER-2: deferred MCP tools carry defer_loading until discovered; one tool is always loaded."""
    run = wire(scenario)
    deferred = _mcp_names(scenario) if scenario == "deferred" else []
    _judge(run, checks.check_defer_loading(run.requests, deferred))


@requires("wire")
@pytest.mark.requirement("DEFER-3", "MUST")
def test_deferred_names_listed(wire: WireRunner) -> None:
    """DEFER-3: the first request names every deferred MCP tool where the model can read it."""
    run = wire("deferred")
    _judge(run, checks.check_deferred_names_listed(run.requests, _mcp_names("deferred")))


@requires("wire")
@pytest.mark.requirement("DEFER-4", "MUST")
def test_select_returns_the_tool(wire: WireRunner) -> None:
    """DEFER-4: ToolSearch ``select:mcp__suite__big`` returns a tool_reference to it."""
    run = wire("deferred")
    big = _mcp_names("deferred")[0]
    _judge(run, checks.check_selected(run.requests, DeferIds.SEARCH, [big]))


@requires("wire")
@pytest.mark.requirement("DEFER-6", "MUST")
def test_tool_references_name_sent_tools(wire: WireRunner) -> None:
    """DEFER-6: every tool_reference names a tool in that request's tools array."""
    run = wire("deferred")
    _judge(run, checks.check_tool_references(run.requests))


@requires("wire")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_enable_tool_search(wire: WireRunner, scenario: str) -> None:
    """DEFER-8: ENABLE_TOOL_SEARCH=false sends MCP tools in full; true defers them."""
    run = wire(scenario)
    problems = checks.check_tool_search_mode(
        run.requests, _mcp_names(scenario), enabled=scenario == "deferred"
    )
    _judge(run, problems)


@requires("wire")
@pytest.mark.requirement("CACHE-2", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_builtin_prefix_stable(wire: WireRunner, scenario: str) -> None:
    """CACHE-2: built-ins form a prefix before sorted MCP tools; its bytes survive MCP changes."""
    run = wire(scenario)
    _judge(run, checks.check_pool_order(run.requests))


@requires("wire")
@pytest.mark.requirement("CACHE-3", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_tool_bytes_stable(wire: WireRunner, scenario: str) -> None:
    """CACHE-3: each tool's bytes (overlays aside) are identical in every request of the session."""
    run = wire(scenario)
    _judge(run, checks.check_tool_bytes_stable(run.requests))


@requires("wire")
@pytest.mark.requirement("CACHE-5", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_one_message_cache_marker(wire: WireRunner, scenario: str) -> None:
    """CACHE-5: exactly one message-level cache_control marker per request."""
    run = wire(scenario)
    _judge(run, checks.check_message_cache_marker(run.requests))


@requires("wire")
@pytest.mark.requirement("CACHE-6", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_beta_headers_latch(wire: WireRunner, scenario: str) -> None:
    """CACHE-6: a beta header, once sent and accepted, keeps being sent."""
    run = wire(scenario)
    _judge(run, checks.check_beta_latch(run.requests))


@requires("wire")
@pytest.mark.requirement("RESULT-1", "MUST")
def test_large_result_persisted(wire: WireRunner) -> None:
    """RESULT-1: a 60,000-character MCP result reaches the model as a shorter <persisted-output> block."""
    run = wire("deferred")
    _judge(run, checks.check_persisted(run.requests, DeferIds.BIG, DEFERRED_OUTPUT_CHARS))
