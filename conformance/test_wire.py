"""Black-box conformance over the wire: the harness runs as a process against the scripted API.

Three scenarios are run once per module (each is a whole harness process) and every test judges the
requests the harness sent: ``pairing`` (every failure path in one turn, tool search off),
``deferred`` (tool search on, ``select:`` a deferred MCP tool, call it, a 60,000-character result)
and ``concurrent`` (a slow and a fast read-only MCP call and an unknown tool in one turn: results
in completion order would put the slow one last); ``reasoning`` (each turn's thinking, with its
signature, ahead of its calls: PAIR-8) runs when its test asks for it.
A harness that hangs, exits with an error or never calls the API fails every test with that report.

Every test also needs proof, from the suite's own logs (the MCP server's call log and what it
served, the command hooks' log), that the behaviour it judges really happened
(:mod:`pytest_toolharness.wire.checks._evidence`); without it the requirement is "not checked", never
passed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from conformance._wire_runs import WireRunner, judge, scenario_runner
from pytest_toolharness.adapters import requires
from pytest_toolharness.wire import checks, wire_json
from pytest_toolharness.wire.scenarios import (
    CLAUDE_CODE_NAMES,
    DeferIds,
    PairingIds,
    PersistedIds,
    ToolNames,
    WireScenario,
    concurrent_scenario,
    deferred_scenario,
    pairing_scenario,
    persisted_scenario,
    reasoning_scenario,
    search_scenario,
)

_SCENARIOS: dict[str, Callable[[ToolNames], WireScenario]] = {
    "pairing": pairing_scenario,
    "deferred": deferred_scenario,
    "concurrent": concurrent_scenario,
    "persisted": persisted_scenario,
    "search": search_scenario,
    "reasoning": reasoning_scenario,
}


@pytest.fixture(scope="module")
def wire(new_harness: Callable[[], Any], request: pytest.FixtureRequest) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module).

    The first use starts the runs of the module's other selected tests too, two at a time.
    """
    return scenario_runner(new_harness, _SCENARIOS, request)


def _scenario(run: Any) -> WireScenario:
    """The scenario ``run`` ran, in the target's names."""
    return _SCENARIOS[run.scenario](getattr(run, "names", CLAUDE_CODE_NAMES))


def _mcp_names(run: Any) -> list[str]:
    return [spec.name for spec in _scenario(run).mcp_tools]


def _served(run: Any) -> list[str]:
    return checks.served_unproven(run, [spec.mcp_tool or spec.name for spec in _scenario(run).mcp_tools])


def _asked_tools(run: Any) -> list[str]:
    # PAIR-1 is only at stake when the model asked for tools and the harness came back.
    mains = checks.main_requests(run.requests)
    if any(r.turn is not None and r.turn.tool_uses for r in mains[:-1]):
        return []
    return ["no scripted turn with tool_use blocks was followed by another request"]


@requires("wire")
@pytest.mark.requirement("PAIR-1", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred", "concurrent"])
def test_tool_uses_answered_in_next_request(wire: WireRunner, scenario: str) -> None:
    """PAIR-1: the request after a turn with tool_use blocks answers each id exactly once, results first."""
    run = wire(scenario)
    judge(run, checks.check_pairing(run.requests), _asked_tools(run))


@requires("wire")
@pytest.mark.requirement("PAIR-7", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred", "concurrent"])
def test_turn_replayed_as_written(wire: WireRunner, scenario: str) -> None:
    """PAIR-7: every later request re-sends each tool_use turn as the model wrote it (ids, names, inputs).

    The pairing and concurrent turns call a tool nobody has: a harness that renames that call to an
    internal tool shows the model a history it never wrote.
    """
    run = wire(scenario)
    judge(run, checks.check_replayed(run.requests), _asked_tools(run))


@requires("wire")
@pytest.mark.requirement("PAIR-8", "MUST")
def test_reasoning_goes_back_with_its_calls(wire: WireRunner) -> None:
    """PAIR-8: each turn's reasoning (thinking with its signature) goes back ahead of its calls in every later request."""
    run = wire("reasoning")
    judge(run, checks.check_reasoning_replayed(run.requests), _asked_tools(run) + _served(run))


@requires("wire")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_every_failure_path_answered(wire: WireRunner) -> None:
    """PAIR-2: unknown tool, invalid input, failing tool, rule deny and hook block each get one result."""
    run = wire("pairing")
    ids = (*PairingIds.FIRST_TURN, PairingIds.SECOND)
    # Every call must be answered; only the paths the target can express need proof it took them.
    judge(
        run,
        checks.check_answered(run.requests, ids),
        checks.pairing_unproven(run, checks.applicable(run, ids)),
    )


@requires("wire")
@pytest.mark.requirement("PAIR-3", "MUST")
def test_failure_results_are_errors(wire: WireRunner) -> None:
    """PAIR-3: each failure's tool_result has is_error true and non-empty text that says what went wrong.

    The failing MCP tool reports its failure in words of its own (``isError`` with a text item):
    its result must carry them, not a bare "error".
    """
    run = wire("pairing")
    failing = next(spec for spec in _scenario(run).mcp_tools if spec.behavior.kind == "raise")
    reasons = {PairingIds.ERROR: failing.behavior.message}
    judge(
        run,
        checks.check_error_results(run.requests, checks.applicable(run, PairingIds.FAILURES), reasons),
        checks.pairing_unproven(run, checks.applicable(run, PairingIds.FAILURES)),
    )


@requires("wire")
@pytest.mark.requirement("PAIR-4", "MUST")
def test_no_empty_results(wire: WireRunner) -> None:
    """PAIR-4: no tool_result goes out with empty content (the empty tool gets a placeholder)."""
    run = wire("pairing")
    problems = checks.check_nonempty_results(run.requests) + checks.check_answered(
        run.requests, [PairingIds.EMPTY]
    )
    judge(run, problems, checks.pairing_unproven(run, [PairingIds.EMPTY]))


@requires("wire")
@pytest.mark.requirement("PAIR-5", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "concurrent"])
def test_results_in_tool_use_order(wire: WireRunner, scenario: str) -> None:
    """PAIR-5: tool_results follow the order of their tool_use blocks.

    ``concurrent`` is the sharp case: two concurrency-safe calls, the earlier one slow, then an
    unknown tool; a harness that answers in completion order sends the slow result last.
    """
    run = wire(scenario)
    unproven = checks.overlap_unproven(run, "slow", "fast") if scenario == "concurrent" else []
    judge(run, checks.check_result_order(run.requests), unproven)


@requires("wire")
@pytest.mark.requirement("PAIR-6", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_unique_names_and_ids(wire: WireRunner, scenario: str) -> None:
    """PAIR-6: tool names are unique in every request, tool_use ids across the conversation."""
    run = wire(scenario)
    judge(run, checks.check_unique_names(run.requests))


@requires("wire")
@pytest.mark.requirement("DEFER-2", "MUST")
def test_defer_loading_until_discovered(wire: WireRunner) -> None:
    """DEFER-2: deferred MCP tools carry defer_loading until discovered; one tool is always loaded.

    Judged on the ``deferred`` run (tool search on), and on the ``pairing`` run (tool search off) too
    when the harness deferred something there by itself; a harness that defers nothing with tool
    search off (as DEFER-8 asks) has nothing to judge in that run, which is not a gap.
    """
    pairing = wire("pairing")
    if any(
        isinstance(t, dict) and t.get("defer_loading") is True
        for r in checks.main_requests(pairing.requests)
        for t in r.tools
    ):
        judge(pairing, checks.check_defer_loading(pairing.requests, []))
    run = wire("deferred")
    deferred = _mcp_names(run)
    judge(
        run,
        checks.check_defer_loading(run.requests, deferred),
        _served(run) or checks.deferral_shown(run.requests, deferred),
    )


@requires("wire")
@pytest.mark.requirement("DEFER-3", "MUST")
def test_deferred_names_listed(wire: WireRunner) -> None:
    """DEFER-3: the first request names every deferred MCP tool where the model can read it."""
    run = wire("deferred")
    judge(
        run,
        checks.check_deferred_names_listed(run.requests, _mcp_names(run)),
        _served(run),
    )


@requires("wire")
@pytest.mark.requirement("DEFER-4", "MUST")
def test_select_returns_the_tool(wire: WireRunner) -> None:
    """DEFER-4: ToolSearch ``select:mcp__suite__big`` returns a tool_reference to it."""
    run = wire("deferred")
    big = _mcp_names(run)[0]
    judge(run, checks.check_selected(run.requests, DeferIds.SEARCH, [big]), _served(run))


@requires("wire")
@pytest.mark.requirement("DEFER-6", "MUST")
def test_tool_references_name_sent_tools(wire: WireRunner) -> None:
    """DEFER-6: every tool_reference names a tool in that request's tools array."""
    run = wire("deferred")
    referenced = any(checks.referenced_tools(r) for r in checks.main_requests(run.requests))
    judge(
        run, checks.check_tool_references(run.requests), [] if referenced else ["no tool_reference was sent"]
    )


@requires("wire")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_enable_tool_search(wire: WireRunner, scenario: str) -> None:
    """DEFER-8: ENABLE_TOOL_SEARCH=false sends MCP tools in full; true defers them."""
    run = wire(scenario)
    problems = checks.check_tool_search_mode(run.requests, _mcp_names(run), enabled=scenario == "deferred")
    judge(run, problems, _served(run))


@requires("wire")
@pytest.mark.requirement("CACHE-2", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_builtin_prefix_stable(wire: WireRunner, scenario: str) -> None:
    """CACHE-2: built-ins form a prefix before sorted MCP tools; its bytes survive MCP changes.

    MCP tools are the ones the suite's MCP server served, however the harness names them; the
    check is only at stake when a request holds both kinds and there is more than one request.
    """
    run = wire(scenario)
    mcp = checks.mcp_tools_in_requests(run)
    mains = checks.main_requests(run.requests)
    both = any(set(r.tool_names) & mcp and set(r.tool_names) - mcp for r in mains)
    unproven = _served(run) or (
        [] if both and len(mains) > 1 else ["no two requests holding both built-in and MCP tools"]
    )
    judge(run, checks.check_pool_order(run.requests, mcp), unproven)


@requires("wire")
@pytest.mark.requirement("CACHE-3", "MUST")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_tool_bytes_stable(wire: WireRunner, scenario: str) -> None:
    """CACHE-3: each tool's bytes (overlays aside) are identical in every request of the session."""
    run = wire(scenario)
    repeated = len(checks.main_requests(run.requests)) > 1
    judge(
        run, checks.check_tool_bytes_stable(run.requests), [] if repeated else ["only one request was sent"]
    )


@requires("wire")
@pytest.mark.requirement("CACHE-5", "SHOULD")
@pytest.mark.parametrize("scenario", ["pairing", "deferred"])
def test_one_message_cache_marker(wire: WireRunner, scenario: str) -> None:
    """CACHE-5: exactly one message-level cache_control marker per request."""
    run = wire(scenario)
    judge(run, checks.check_message_cache_marker(run.requests))


def _latched(run: Any) -> bool:
    return any(r.status == 200 and r.beta_headers for r in checks.main_requests(run.requests)[:-1])


@requires("wire")
@pytest.mark.requirement("CACHE-6", "SHOULD")
def test_beta_headers_latch(wire: WireRunner) -> None:
    """CACHE-6: a beta header, once sent and accepted, keeps being sent.

    Judged on every run (``pairing``, and ``deferred`` when the target can search tools) that sent
    a beta before its last request; not checked when none did.
    """
    runs = [wire("pairing")]
    with contextlib.suppress(pytest.skip.Exception):  # a target without tool search: pairing alone
        runs.append(wire("deferred"))
    for run in runs:
        if run.failure() is not None:
            judge(run, [])
    latched = [run for run in runs if _latched(run)]
    if not latched:
        judge(
            runs[0],
            [],
            [f"no beta header was sent before the last request ({', '.join(r.scenario for r in runs)})"],
        )
    for run in latched:
        judge(run, checks.check_beta_latch(run.requests))


@requires("wire")
@pytest.mark.requirement("RESULT-1", "MUST")
def test_large_result_persisted(wire: WireRunner) -> None:
    """RESULT-1: a 60,000-character MCP result reaches the model shorter, with a preview and where it is.

    Judged by its meaning, not Claude Code's ``<persisted-output>`` wording; the MCP server must
    have run the tool to its end, else nothing oversized was ever produced. The ``persisted``
    scenario (tool search off, one MCP tool a turn) needs nothing but MCP tools, so every target
    that runs them is judged.
    """
    run = wire("persisted")
    big = _scenario(run).mcp_tools[0]
    unproven = (
        [] if checks.called(run, "report", outcome="ok") else ["the MCP server never ran the report tool"]
    )
    problems = checks.check_persisted(
        run.requests, PersistedIds.BIG, big.behavior.output_text(), workdir=run.workdir
    )
    judge(run, problems, unproven)


def _without_cache_markers(value: Any) -> Any:
    """``value`` without ``cache_control`` keys: the marker moves to the newest message (CACHE-5)."""
    if isinstance(value, dict):
        return {k: _without_cache_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_markers(v) for v in value]
    return value


@requires("wire")
@pytest.mark.requirement("RESULT-4", "MUST")
def test_replacement_frozen_per_tool_use(wire: WireRunner) -> None:
    """RESULT-4: a result replaced for its size goes out with identical bytes in every later request.

    Only at stake when the harness did replace it (the first copy is shorter than the output) and
    sent at least two requests after it.
    """
    run = wire("persisted")
    output = _scenario(run).mcp_tools[0].behavior.output_text()
    copies = [
        (request.index, wire_json(_without_cache_markers(blocks[0])))
        for request in checks.main_requests(run.requests)
        if (blocks := checks.tool_results([request]).get(PersistedIds.BIG))
    ]
    unproven = (
        [] if checks.called(run, "report", outcome="ok") else ["the MCP server never ran the report tool"]
    )
    if not unproven and (len(copies) < 2 or output in copies[0][1]):
        unproven.append("the result was not replaced, or fewer than two requests carried it")
    problems = [
        f"request #{index} re-sends the replaced result of {PersistedIds.BIG} with other bytes than request "
        f"#{copies[0][0]}"
        for index, text in copies[1:]
        if text != copies[0][1]
    ]
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("DEFER-5", "SHOULD")
def test_keyword_search_fast_paths_and_limit(wire: WireRunner) -> None:
    """DEFER-5: an exact name comes first, +term is required, max_results limits, a server prefix lists its tools."""
    run = wire("search")
    problems, unproven = checks.judge_keyword_search(run)
    judge(run, problems, unproven)
