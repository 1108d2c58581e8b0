"""``cc_ranking_*``: how often the default ToolSearch ranking returns what the real Claude Code CLI returns.

The CLI (from the ``claude-agent-sdk`` wheel) runs offline against the suite's scripted Messages API
with tool search on and :data:`MCP_TOOLS` served by the suite's MCP server. The scripted model's
first turn reads the deferred tool names the CLI lists in its system prompt and calls ToolSearch
once per query of :data:`QUERIES` (``max_results`` 5) and once with ``select:`` of every deferred
name, so the next request carries each deferred tool's description and schema as the CLI sends
them. The reference ranking (:func:`reference_impl.search.run_tool_search`, the seed's scoring) then runs
over exactly those tools, and each query's ordered result is compared with the CLI's.

``cc_ranking_agreement`` is the share of queries whose ordered result is identical;
``cc_ranking_top1_agreement`` the share whose first result is; ``cc_ranking_queries`` the count.
Each disagreement is explained in docs/benchmarks.md (the test in tests/test_cc_ranking.py holds
the two to each other).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolharness.adapters import ToolBehavior
from pytest_toolharness.wire import AssistantTurn, RecordedRequest, ToolUseBlock
from pytest_toolharness.wire.model_api import tool_use_id
from pytest_toolharness.wire.scenarios import FINAL_TEXT, WireScenario, mcp_spec
from pytest_toolharness.wire.targets import ClaudeCodeTarget, find_claude_binary, run_wire_scenario
from reference_impl import Tool, ToolOutput, build_tool
from reference_impl.search import run_tool_search

__all__ = [
    "MAX_RESULTS",
    "MCP_TOOLS",
    "QUERIES",
    "Agreement",
    "agreement_scenario",
    "claude_code_mcp_ranking",
    "measure_agreement",
    "reference_rankings",
    "run",
]

MAX_RESULTS = 5
_PREFIX = "01Rank"

#: The suite server's tools for this comparison: several domains, overlapping words on purpose
#: ("search", "list", "message", "file") so that the ranking, not only the matching, is compared.
MCP_TOOLS: Mapping[str, str] = {
    "get_weather": "Get the current weather forecast for a city.",
    "get_weather_alerts": "List severe weather alerts for a region.",
    "send_email": "Send an email message to one or more recipients.",
    "search_email": "Search the mailbox for email messages matching a query.",
    "search_notes": "Search the user's notes by keyword.",
    "create_note": "Create a new note with a title and a body.",
    "create_issue": "Create a new issue in a GitHub repository.",
    "list_pull_requests": "List the open pull requests of a GitHub repository.",
    "merge_pull_request": "Merge a pull request once its checks pass.",
    "query_database": "Run a read-only SQL query against the analytics database.",
    "list_tables": "List the tables of the analytics database with their row counts.",
    "slack_post_message": "Post a message to a Slack channel.",
    "slack_list_channels": "List the Slack channels the bot can read.",
    "calendar_create_event": "Create a calendar event with attendees and a time.",
    "calendar_list_events": "List upcoming calendar events for a date range.",
    "jira_create_ticket": "Create a Jira ticket in a project backlog.",
    "upload_file": "Upload a local file to cloud storage and return its URL.",
    "download_file": "Download a file from cloud storage to the workspace.",
    "translate_text": "Translate text between two languages.",
    "stock_quote": "Get the latest stock price quote for a ticker symbol.",
    "convert_currency": "Convert an amount between two currencies at today's rate.",
    "resize_image": "Resize an image to the given width and height.",
    "kubernetes_list_pods": "List the pods of a Kubernetes namespace and their status.",
    "restart_deployment": "Restart a Kubernetes deployment by rolling its pods.",
}

#: Keyword queries of our own, over the MCP tools above and the CLI's deferred built-ins.
QUERIES: tuple[str, ...] = (
    "weather",
    "weather alerts",
    "forecast",
    "send email",
    "email",
    "search mailbox",
    "notes",
    "create note",
    "github issue",
    "pull request",
    "merge",
    "sql",
    "database tables",
    "slack",
    "slack message",
    "channels",
    "calendar",
    "calendar event",
    "jira ticket",
    "ticket",
    "upload",
    "download file",
    "file",
    "translate",
    "stock price",
    "currency",
    "image",
    "kubernetes pods",
    "deployment",
    "cron",
    "schedule",
    "worktree",
    "notebook",
    "web search",
    "fetch url",
    "web",
    "monitor",
    "stop task",
    "message",
    "list",
    "create",
    "search",
    "+slack channels",
    "+github pull",
    "weather city",
)


def _deferred_names(request: RecordedRequest) -> list[str]:
    """The names the CLI lists as deferred (available via ToolSearch) in its system prompt text."""
    texts: list[str] = []
    system = request.json.get("system") if isinstance(request.json, Mapping) else None
    for part in system if isinstance(system, list) else [system]:
        if isinstance(part, Mapping) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part, str):
            texts.append(part)
    for message in request.messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                texts.append(block["text"])
    for text in texts:
        match = re.search(r"available via ToolSearch\..*?\n((?:[A-Za-z0-9_]+\n)+)", text, re.DOTALL)
        if match:
            return match.group(1).split()
    return []


def agreement_scenario() -> WireScenario:
    """One turn: a ToolSearch per query and a ``select:`` of every deferred tool; then the end."""

    def search_everything(request: RecordedRequest) -> AssistantTurn:
        names = _deferred_names(request)
        uses = [
            ToolUseBlock(tool_use_id(i + 1, _PREFIX), "ToolSearch", {"query": q, "max_results": MAX_RESULTS})
            for i, q in enumerate(QUERIES)
        ]
        if names:
            select = {"query": "select:" + ",".join(names), "max_results": len(names)}
            uses.append(ToolUseBlock(tool_use_id(len(QUERIES) + 1, _PREFIX), "ToolSearch", select))
        return AssistantTurn(tuple(uses))

    specs = [mcp_spec(name, text, ToolBehavior("text", text="ok")) for name, text in MCP_TOOLS.items()]
    return WireScenario(
        name="ranking-agreement",
        prompt="Find the tools for these tasks.",
        steps=(search_everything, AssistantTurn.text(FINAL_TEXT)),
        mcp_tools=specs,
        settings={"permissions": {"allow": [spec.name for spec in specs]}},
        env={"ENABLE_TOOL_SEARCH": "true"},
    )


@dataclass(frozen=True, slots=True)
class Agreement:
    """Both rankings per query, and the deferred tools (as the CLI sent them) they ranked."""

    cli: Mapping[str, list[str]]
    reference: Mapping[str, list[str]]
    deferred: Sequence[Mapping[str, Any]]

    def disagreements(self) -> dict[str, tuple[list[str], list[str]]]:
        """query -> (CLI's result, reference's result), for every query where they differ."""
        return {q: (self.cli[q], self.reference[q]) for q in QUERIES if self.cli.get(q) != self.reference[q]}

    def figures(self) -> dict[str, Any]:
        """The benchmark figures: exact and top-1 agreement and the query count."""
        top1 = sum(1 for q in QUERIES if self.cli.get(q, [None])[:1] == self.reference[q][:1])
        same = len(QUERIES) - len(self.disagreements())
        return {
            "cc_ranking_agreement": round(same / len(QUERIES), 3),
            "cc_ranking_top1_agreement": round(top1 / len(QUERIES), 3),
            "cc_ranking_queries": len(QUERIES),
            "cc_ranking_deferred_tools": len(self.deferred),
        }


async def _never_called(_input: Mapping[str, Any], _context: Any) -> ToolOutput:
    raise AssertionError("the ranking comparison never calls a tool")


def _as_tool(sent: Mapping[str, Any]) -> Tool:
    # The ranking reads names (MCP or not is decided by the name, as in the seed), descriptions
    # and search hints; how the tool would run does not matter here.
    schema = sent.get("input_schema") or {"type": "object"}
    return build_tool(
        str(sent["name"]),
        str(sent.get("description", "")),
        _never_called,
        input_json_schema=schema,
        should_defer=True,
    )


def reference_rankings(deferred: Sequence[Mapping[str, Any]], queries: Sequence[str]) -> dict[str, list[str]]:
    """The reference ToolSearch's result for each query over ``deferred`` (tool dicts as sent)."""
    tools = [_as_tool(sent) for sent in deferred]
    return {q: run_tool_search(q, MAX_RESULTS, tools, tools) for q in queries}


def _word_in(term: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(term)}\b", text) is not None


def claude_code_mcp_ranking(query: str, deferred: Sequence[Mapping[str, Any]]) -> list[str]:
    """The CLI's own scoring (read from Claude Code 2.1.332), applied to the MCP tools of ``deferred``.

    It differs from the seed's (000 §6.3, the reference's default) in two ways: besides the name's
    parts it scores its *coarse* parts (an MCP tool's whole server and tool names: exact +12,
    substring +4; a built-in's whole lower-case name: +10 / +3), and a term found only inside the
    joined name scores +3. Descriptions (+2, word match) and search hints (+4) as in the seed. Only
    MCP tools are ranked: for them every input (name, description; the suite's server sends no
    hint) is on the wire, while a built-in's hint and pre-loading prompt are not.
    """
    terms = [t for t in query.lower().split() if t]
    required = [t[1:] for t in terms if t.startswith("+") and len(t) > 1]
    plain = [t for t in terms if not (t.startswith("+") and len(t) > 1)]
    scored_terms = [*required, *plain] if required else terms
    ranked: list[tuple[int, int, str]] = []
    for order, sent in enumerate(deferred):
        name = str(sent["name"])
        if not name.startswith("mcp__"):
            continue
        server, _, tool = name[len("mcp__") :].partition("__")
        coarse = [server.lower(), tool.lower()]
        parts = [p for chunk in coarse for p in re.split(r"[\s_.]+", chunk) if p]
        full = " ".join(parts)
        description = str(sent.get("description", "")).lower()

        if required and not all(
            term in parts
            or any(term in p for p in parts)
            or term in coarse
            or any(term in c for c in coarse)
            or (term in description and _word_in(term, description))
            for term in required
        ):
            continue
        score = 0
        for term in scored_terms:
            if term in parts:
                score += 12
            elif any(term in p for p in parts):
                score += 6
            if term in coarse:
                score += 12
            elif any(term in c for c in coarse):
                score += 4
            if term in full and score == 0:
                score += 3
            if term in description and _word_in(term, description):
                score += 2
        if score > 0:
            ranked.append((-score, order, name))
    return [name for _, _, name in sorted(ranked)][:MAX_RESULTS]


def _results_by_id(request: RecordedRequest) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    last = request.messages[-1] if request.messages else {}
    for block in last.get("content", []) if isinstance(last, Mapping) else []:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            content = block.get("content")
            names = [
                str(part["tool_name"])
                for part in (content if isinstance(content, list) else [])
                if isinstance(part, Mapping) and part.get("type") == "tool_reference"
            ]
            found[str(block.get("tool_use_id"))] = names
    return found


def measure_agreement(binary: Path, workdir: Path, timeout: float = 180.0) -> Agreement:
    """Run the CLI through :func:`agreement_scenario` and compare its rankings with the reference's."""
    run = run_wire_scenario(ClaudeCodeTarget(binary), agreement_scenario(), workdir, timeout=timeout)
    failure = run.failure()
    if failure is not None:
        raise RuntimeError(f"the Claude Code run failed: {failure}")
    with_tools = [r for r in run.requests if r.is_messages and r.tools]
    if len(with_tools) < 2:
        raise RuntimeError(f"the CLI sent {len(with_tools)} tool-bearing requests; the comparison needs 2")
    answered = with_tools[1]
    by_id = _results_by_id(answered)
    cli = {q: by_id.get(tool_use_id(i + 1, _PREFIX), []) for i, q in enumerate(QUERIES)}
    deferred = [dict(t) for t in answered.tools if isinstance(t, Mapping) and t.get("defer_loading") is True]
    if not deferred:
        raise RuntimeError("the CLI sent no deferred tool after the select: call; nothing to compare")
    return Agreement(cli=cli, reference=reference_rankings(deferred, QUERIES), deferred=deferred)


def run(quick: bool = False) -> dict[str, Any]:
    """The figures, or ``cc_ranking_skipped`` naming why the CLI could not be run."""
    del quick  # one CLI run either way
    import tempfile

    try:
        binary = find_claude_binary()
    except FileNotFoundError as error:
        return {"cc_ranking_skipped": str(error)}
    if binary is None:
        return {"cc_ranking_skipped": "no Claude Code binary (install the test extra: claude-agent-sdk)"}
    with tempfile.TemporaryDirectory(prefix="cc-ranking-") as tmp:
        agreement = measure_agreement(binary, Path(tmp) / "run")
    figures = agreement.figures()
    # The queries only: both results, and why they differ, are in docs/toolsearch-agreement.md.
    figures["cc_ranking_disagreements"] = sorted(agreement.disagreements())
    return figures
