"""The core built-in wire scenarios: tool-call pairing, deferred loading, concurrency, scheduling, persisted results.

Each ``*_scenario`` builds a :class:`~pytest_toolharness.wire.scenarios._core.WireScenario`; its
``*Ids`` class names the tool_use ids the checks look for.
"""

from __future__ import annotations

import dataclasses

from pytest_toolharness.specs import ToolBehavior
from pytest_toolharness.wire.model_api import (
    AssistantTurn,
    RecordedRequest,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    tool_use_id,
)
from pytest_toolharness.wire.scenarios._core import (
    CLAUDE_CODE_NAMES,
    GIVE_UP_TEXT,
    ToolNames,
    WireScenario,
    logged_hook_command,
    mcp_spec,
)

__all__ = [
    "CONCURRENT_SLOW_SECONDS",
    "DEFERRED_OUTPUT_CHARS",
    "SCHEDULING_TOOLS",
    "ConcurrentIds",
    "DeferIds",
    "PairingIds",
    "PersistedIds",
    "ReasoningIds",
    "SchedulingIds",
    "concurrent_scenario",
    "deferred_scenario",
    "pairing_scenario",
    "persisted_scenario",
    "reasoning_scenario",
    "scheduling_scenario",
]
_ID_PREFIX = "01Wire"


def _id(n: int) -> str:
    return tool_use_id(n, _ID_PREFIX)


class PairingIds:
    """The tool_use ids of :func:`pairing_scenario`, one per path."""

    OK = _id(1)
    UNKNOWN = _id(2)
    INVALID = _id(3)
    ERROR = _id(4)
    EMPTY = _id(5)
    DENIED = _id(6)
    HOOK_BLOCKED = _id(7)
    SECOND = _id(8)
    INVALID_MCP = _id(9)
    FIRST_TURN = (OK, UNKNOWN, INVALID, INVALID_MCP, ERROR, EMPTY, DENIED, HOOK_BLOCKED)
    # Schema validation of an MCP tool's input may be left to the MCP server (which here does not
    # validate and succeeds), so INVALID_MCP only has to be answered; INVALID (a built-in's own
    # schema, Read without file_path) must be an error.
    FAILURES = (UNKNOWN, INVALID, ERROR, DENIED, HOOK_BLOCKED)


class DeferIds:
    """The tool_use ids of :func:`deferred_scenario`."""

    SEARCH = _id(21)
    BIG = _id(22)


class PersistedIds:
    """The tool_use ids of :func:`persisted_scenario`."""

    BIG = _id(25)
    AFTER = _id(26)


class ReasoningIds:
    """The tool_use ids of :func:`reasoning_scenario`: two calls after the first reasoning, one after the second."""

    FIRST = _id(91)
    FIRST_B = _id(92)
    SECOND = _id(93)


class ConcurrentIds:
    """The tool_use ids of :func:`concurrent_scenario`, in the model's order."""

    SLOW = _id(31)
    FAST = _id(32)
    UNKNOWN = _id(33)
    ALL = (SLOW, FAST, UNKNOWN)


#: How long the concurrent scenario's slow tool sleeps, in seconds.
CONCURRENT_SLOW_SECONDS = 1.0

#: How many characters the deferred scenario's big tool returns (over the 50,000 default limit).
DEFERRED_OUTPUT_CHARS = 60_000

_TEXT_PROP = {"type": "string", "description": "Any text"}


def _blocking_hook_command(reason: str) -> str:
    """A command hook that logs its input and blocks with exit status 2 and ``reason`` on stderr."""
    return logged_hook_command("block", exit_code=2, stderr=reason)


def pairing_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Every failure path in one turn, then a second turn: PAIR-1..6, CACHE-2/3/5 over the wire.

    Turn 1 calls, in this order: a tool that works, a tool nobody has, ``Read`` without its
    required ``file_path``, an MCP tool with input that fails its schema, a tool that fails, a tool with empty output, ``Bash`` against a deny rule, and
    a tool a PreToolUse command hook blocks. Turn 2 calls the working tool again. Tool search is off
    (``ENABLE_TOOL_SEARCH=false``) so every tool can be called at once.
    """
    echo = mcp_spec(
        "echo", "Echo text back.", ToolBehavior("text", text="echo-ok"), names=names, text=_TEXT_PROP
    )
    fail = mcp_spec(
        "fail", "A tool that fails.", ToolBehavior("raise", message="the suite's tool failed"), names=names
    )
    empty = mcp_spec("empty", "A tool with no output.", ToolBehavior("empty"), names=names)
    guarded = mcp_spec(
        "guarded", "A tool a hook blocks.", ToolBehavior("text", text="guarded-ran"), names=names
    )
    tools = (echo, fail, empty, guarded)
    first = AssistantTurn(
        (
            TextBlock("Trying every path."),
            ToolUseBlock(PairingIds.OK, echo.name, {"text": "hello"}),
            ToolUseBlock(PairingIds.UNKNOWN, names.mcp("no_such_tool"), {}),
            ToolUseBlock(PairingIds.INVALID, names.builtin("read"), {}),
            ToolUseBlock(PairingIds.INVALID_MCP, echo.name, {"text": 42}),
            ToolUseBlock(PairingIds.ERROR, fail.name, {}),
            ToolUseBlock(PairingIds.EMPTY, empty.name, {}),
            ToolUseBlock(PairingIds.DENIED, names.builtin("shell"), {"command": "echo denied-by-rule"}),
            ToolUseBlock(PairingIds.HOOK_BLOCKED, guarded.name, {}),
        )
    )
    second = AssistantTurn((ToolUseBlock(PairingIds.SECOND, echo.name, {"text": "again"}),))
    settings = {
        "permissions": {
            "allow": [spec.name for spec in tools],
            "deny": [f"{names.builtin('shell')}(echo denied-by-rule:*)"],
        },
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": guarded.name,
                    "hooks": [
                        {"type": "command", "command": _blocking_hook_command("blocked by the suite hook")}
                    ],
                }
            ]
        },
    }
    return WireScenario(
        name="pairing",
        prompt="Use the tools as the conversation asks.",
        steps=(first, second),
        mcp_tools=tools,
        settings=settings,
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


def deferred_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Tool search on: load a deferred MCP tool with ``select:``, call it, get a persisted result.

    Turn 1 calls ``ToolSearch`` with ``select:mcp__suite__big``; turn 2 calls the tool once the
    harness sends it in ``tools`` (else the model gives up); the tool returns 60,000 characters.
    DEFER-2, DEFER-3, DEFER-6, DEFER-8, CACHE-2/3/5/6 and RESULT-1 over the wire.
    """
    big = mcp_spec(
        "big",
        "Returns a very large report.",
        ToolBehavior("text", chars=DEFERRED_OUTPUT_CHARS, fill="0123456789"),
        names=names,
    )
    weather = mcp_spec(
        "weather", "Get the weather forecast for a city.", ToolBehavior("text", text="sunny"), names=names
    )
    notes = mcp_spec("notes", "Search the user's notes.", ToolBehavior("text", text="no notes"), names=names)
    tools = (big, weather, notes)

    def call_when_loaded(request: RecordedRequest) -> AssistantTurn:
        if big.name not in request.tool_names:
            return AssistantTurn.text(GIVE_UP_TEXT)
        return AssistantTurn((ToolUseBlock(DeferIds.BIG, big.name, {}),))

    search = AssistantTurn(
        (
            ToolUseBlock(
                DeferIds.SEARCH,
                names.builtin("tool_search"),
                {"query": f"select:{big.name}", "max_results": 5},
            ),
        )
    )
    return WireScenario(
        name="deferred",
        prompt="Load the big report tool and run it.",
        steps=(search, call_when_loaded),
        mcp_tools=tools,
        settings={"permissions": {"allow": [spec.name for spec in tools]}},
        env={"ENABLE_TOOL_SEARCH": "true"},
        roles=frozenset({"mcp", "tool_search"}),
    )


def concurrent_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Two concurrency-safe calls that finish out of order, then an unknown tool: PAIR-5 over the wire.

    One turn calls, in this order: a read-only MCP tool that sleeps
    :data:`CONCURRENT_SLOW_SECONDS`, a read-only MCP tool that answers at once, and a tool nobody
    has. ``read_only`` puts ``readOnlyHint`` on both, so a harness may run them at the same time; a
    harness that answers in completion order then sends the fast result (and the unknown tool's
    error, found before anything runs) before the slow one. Serial calls can't show that, which is
    why the pairing scenario alone can't see a completion-order harness. Tool search is off and both
    tools are allowed, so nothing stands between the call and its run.
    """
    slow = dataclasses.replace(
        mcp_spec(
            "slow",
            "A slow read-only lookup.",
            ToolBehavior("sleep", seconds=CONCURRENT_SLOW_SECONDS, text="slow-done"),
            names=names,
        ),
        read_only=True,
    )
    fast = dataclasses.replace(
        mcp_spec("fast", "A fast read-only lookup.", ToolBehavior("text", text="fast-done"), names=names),
        read_only=True,
    )
    turn = AssistantTurn(
        (
            TextBlock("Looking things up in parallel."),
            ToolUseBlock(ConcurrentIds.SLOW, slow.name, {}),
            ToolUseBlock(ConcurrentIds.FAST, fast.name, {}),
            ToolUseBlock(ConcurrentIds.UNKNOWN, names.mcp("no_such_lookup"), {}),
        )
    )
    return WireScenario(
        name="concurrent",
        prompt="Look both things up.",
        steps=(turn,),
        mcp_tools=(slow, fast),
        settings={"permissions": {"allow": [slow.name, fast.name]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


class SchedulingIds:
    """The tool_use ids of :func:`scheduling_scenario`, in the model's order."""

    SLOW_SAFE = _id(41)
    FAST_SAFE = _id(42)
    PLAIN_A = _id(43)
    PLAIN_B = _id(44)
    SAFE_AFTER = _id(45)


#: The scheduling scenario's MCP tools: (tool, seconds it sleeps, declared read-only), in call order.
SCHEDULING_TOOLS: tuple[tuple[str, float, bool], ...] = (
    ("c_slow_safe", 1.0, True),
    ("c_fast_safe", 0.2, True),
    ("c_plain_a", 0.3, False),
    ("c_plain_b", 0.3, False),
    ("c_safe_after", 0.3, True),
)


def scheduling_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Concurrency from the MCP server's call times: CONC-1, CONC-2, CONC-3 over the wire.

    One turn calls two read-only tools (slow, fast), two tools that declare nothing, and one more
    read-only tool. The adjacent read-only pair may (SHOULD) overlap; a tool declaring nothing is
    not concurrency safe, so neither undeclared call may overlap any other call. Each tool sleeps,
    so an overlap shows in the server's start and end times.
    """
    specs = [
        dataclasses.replace(
            mcp_spec(
                tool,
                f"Lookup {tool}.",
                ToolBehavior("sleep", seconds=seconds, text=f"{tool}-done"),
                names=names,
            ),
            read_only=read_only,
        )
        for tool, seconds, read_only in SCHEDULING_TOOLS
    ]
    ids = (
        SchedulingIds.SLOW_SAFE,
        SchedulingIds.FAST_SAFE,
        SchedulingIds.PLAIN_A,
        SchedulingIds.PLAIN_B,
        SchedulingIds.SAFE_AFTER,
    )
    turn = AssistantTurn(
        (
            TextBlock("Scheduling these."),
            *(ToolUseBlock(i, spec.name, {}) for i, spec in zip(ids, specs, strict=True)),
        )
    )
    return WireScenario(
        name="scheduling",
        prompt="Look these things up.",
        steps=(turn,),
        mcp_tools=tuple(specs),
        settings={"permissions": {"allow": [spec.name for spec in specs]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


def persisted_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """A result replaced for its size, then two more requests: RESULT-4 over the wire.

    Turn 1 calls an MCP tool returning :data:`DEFERRED_OUTPUT_CHARS` characters (over the 50,000
    default limit, so a harness replaces it); turn 2 calls a small tool; then the model is done. The
    replaced result must go out with the same bytes in both later requests. Tool search is off.
    """
    big = mcp_spec(
        "report",
        "Returns a very large report.",
        # Not valid JSON: the Gemini CLI parses an MCP result's first text as JSON and fails a
        # call whose text is a JSON number (docs/interop-gemini.md), which is no RESULT-1 matter.
        ToolBehavior("text", chars=DEFERRED_OUTPUT_CHARS, fill="report-42 "),
        names=names,
    )
    small = mcp_spec("small", "Returns a short answer.", ToolBehavior("text", text="small-ran"), names=names)
    return WireScenario(
        name="persisted",
        prompt="Get the report, then the short answer.",
        steps=(
            AssistantTurn((ToolUseBlock(PersistedIds.BIG, big.name, {}),)),
            AssistantTurn((ToolUseBlock(PersistedIds.AFTER, small.name, {}),)),
        ),
        mcp_tools=(big, small),
        settings={"permissions": {"allow": [big.name, small.name]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


def reasoning_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Reasoning that comes with tool calls, twice: PAIR-8 over the wire.

    Each of two turns opens with the model's reasoning (a thinking block with its signature: a
    Responses ``reasoning`` item with ``encrypted_content``, a Gemini ``thoughtSignature``) and
    calls an allowed MCP tool; the first turn calls it twice. Every later request must carry each
    turn's reasoning back, unchanged and ahead of its calls.
    """
    echo = mcp_spec(
        "echo", "Echo text back.", ToolBehavior("text", text="echo-ok"), names=names, text=_TEXT_PROP
    )
    first = AssistantTurn(
        (
            ThinkingBlock("Two lookups first.", "c2lnbmF0dXJlLXJlYXNvbmluZy0x"),
            ToolUseBlock(ReasoningIds.FIRST, echo.name, {"text": "one"}),
            ToolUseBlock(ReasoningIds.FIRST_B, echo.name, {"text": "two"}),
        )
    )
    second = AssistantTurn(
        (
            ThinkingBlock("One more.", "c2lnbmF0dXJlLXJlYXNvbmluZy0y"),
            ToolUseBlock(ReasoningIds.SECOND, echo.name, {"text": "three"}),
        )
    )
    return WireScenario(
        name="reasoning",
        prompt="Think, then use the tools as the conversation asks.",
        steps=(first, second),
        mcp_tools=(echo,),
        settings={"permissions": {"allow": [echo.name]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )
