"""The agent loop end to end: anthropic.AsyncAnthropic streaming from the scripted API server over HTTP.

The server validates every request as the API does (pairing, tool_reference names, shapes), so a
loop that breaks the transcript fails these tests with a 400.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import anthropic
import pytest

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import (
    AssistantTurn,
    StreamFault,
    TextBlock,
    ToolUseBlock,
    tool_use_id,
)
from reference_impl import (
    AgentSession,
    ApiRequestError,
    CommandHook,
    HookContext,
    HookMatcher,
    Hooks,
    LoopResult,
    PermissionContext,
    RequestBuilder,
    Tool,
    ToolContext,
    ToolOutput,
    build_tool,
    mcp_tool,
    tool_search_tool,
)
from reference_impl.__main__ import main as cli_main
from reference_impl._wire import wire_json
from reference_impl.agent import CompactionPolicy
from reference_impl.permissions import (
    PermissionResult,
    PermissionResultDeny,
    ToolPermissionContext,
    rules_from_strings,
)
from reference_impl.request import CompactBoundary
from reference_impl.tools import PermissionTarget, ToolPermissionCheck

MODEL = "claude-sonnet-4-6"
REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")

TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
FORECAST = "mcp__weather__forecast"


def allow(_input: Mapping[str, Any], _context: ToolContext) -> ToolPermissionCheck:
    return ToolPermissionCheck("allow")


def echo_tool(calls: list[str], name: str = "Echo", *, safe: bool = True) -> Tool:
    async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        calls.append(str(tool_input["text"]))
        return ToolOutput(content=f"echo: {tool_input['text']}")

    return build_tool(
        name,
        "Echo the text back.",
        call,
        input_json_schema=TEXT_SCHEMA,
        is_concurrency_safe=lambda _i: safe,
        is_read_only=lambda _i: safe,
        check_permissions=allow,
        permission_target=lambda i: PermissionTarget("other", str(i.get("text", ""))),
    )


def forecast_tool(calls: list[str]) -> Tool:
    async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        calls.append(str(tool_input["city"]))
        return ToolOutput(content=f"sunny in {tool_input['city']}")

    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    return mcp_tool("weather", "forecast", "Weather forecast for a city.", schema, call)


def rules(*allowed: str, deny: tuple[str, ...] = ()) -> PermissionContext:
    return PermissionContext(
        rules=(
            *rules_from_strings(deny, "deny", "projectSettings"),
            *rules_from_strings(allowed, "allow", "projectSettings"),
        ),
        can_prompt=False,
    )


def in_session(
    server: ScriptedApiServer,
    tmp_path: Path,
    body: Callable[[AgentSession], Awaitable[T]],
    **options: Any,
) -> T:
    """Run ``body`` with a session whose client talks to ``server``, in one event loop."""

    async def main() -> T:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="x", max_retries=0)
        session = AgentSession(
            client=client,
            builder=RequestBuilder(model=MODEL, max_tokens=1024, cwd=tmp_path),
            session_dir=tmp_path / "session",
            **options,
        )
        try:
            return await body(session)
        finally:
            await client.close()

    return asyncio.run(main())


def user_blocks(request: RecordedRequest, index: int) -> list[dict[str, Any]]:
    message = request.messages[index]
    assert message["role"] == "user"
    return list(message["content"])


def tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    return [b for b in user_blocks(request, -1) if b["type"] == "tool_result"]


def count_markers(value: Any) -> int:
    if isinstance(value, dict):
        return int("cache_control" in value) + sum(count_markers(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_markers(v) for v in value)
    return 0


def assert_cache_discipline(requests: list[RecordedRequest]) -> None:
    """CACHE-3, CACHE-5: a tool's bytes never change within a session; one message-level marker."""
    seen: dict[str, str] = {}
    for request in requests:
        for tool in request.tools:
            encoded = wire_json(tool)
            assert seen.setdefault(tool["name"], encoded) == encoded, tool["name"]
        assert count_markers(request.messages) == 1
        assert count_markers(request.tools) == 0


# -- the basic loop ------------------------------------------------------------------------------


def test_two_turn_tool_call(tmp_path: Path) -> None:
    calls: list[str] = []
    script = [
        AssistantTurn([TextBlock("Let me echo."), ToolUseBlock(tool_use_id(1), "Echo", {"text": "hi"})]),
        AssistantTurn.text("It said hi."),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("say hi")

        result = in_session(server, tmp_path, body, tools=[echo_tool(calls)], permission_context=rules())
        requests = server.message_requests
    assert calls == ["hi"]
    assert (result.text, result.stop_reason, result.turns) == ("It said hi.", "end_turn", 2)
    assert [r.status for r in requests] == [200, 200]
    assert all(r.stream for r in requests)
    second = requests[1]
    assert second.messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me echo."},
            {"type": "tool_use", "id": tool_use_id(1), "name": "Echo", "input": {"text": "hi"}},
        ],
    }
    (only,) = tool_results(second)
    assert only["tool_use_id"] == tool_use_id(1)
    assert only["content"] == "echo: hi"
    assert not only.get("is_error")
    roles = [e["role"] for e in result.transcript if isinstance(e, dict)]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert_cache_discipline(requests)


def test_concurrent_tool_uses_run_together_and_results_keep_order(tmp_path: Path) -> None:
    """CONC-1, PAIR-5: three safe calls run at once; they finish in reverse, results stay in order."""
    started: list[str] = []
    all_started = asyncio.Event()
    done: dict[str, asyncio.Event] = {}

    async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        name = str(tool_input["text"])
        started.append(name)
        done[name] = asyncio.Event()
        if len(started) == 3:
            all_started.set()
        await all_started.wait()  # never set unless all three run at the same time
        if name != "c":
            await done[chr(ord(name) + 1)].wait()  # a waits for b, b for c: reverse completion
        done[name].set()
        return ToolOutput(content=f"done {name}")

    gather = build_tool(
        "Gather",
        "Waits for its siblings.",
        call,
        input_json_schema=TEXT_SCHEMA,
        is_concurrency_safe=lambda _i: True,
        check_permissions=allow,
    )
    ids = [tool_use_id(n) for n in (1, 2, 3)]
    script = [
        AssistantTurn([ToolUseBlock(i, "Gather", {"text": t}) for i, t in zip(ids, "abc", strict=True)]),
        AssistantTurn.text("all gathered"),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("gather")

        result = in_session(
            server, tmp_path, body, tools=[gather], permission_context=rules(), call_timeout=10
        )
        requests = server.message_requests
    assert result.text == "all gathered"
    results = tool_results(requests[1])
    assert [r["tool_use_id"] for r in results] == ids
    assert [r["content"] for r in results] == ["done a", "done b", "done c"]


def test_unsafe_calls_run_one_at_a_time(tmp_path: Path) -> None:
    """CONC-2: a call that is not concurrency safe is a barrier."""
    running: list[int] = []
    overlaps: list[int] = []

    async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        running.append(1)
        overlaps.append(len(running))
        await asyncio.sleep(0)
        running.pop()
        return ToolOutput(content="written")

    write = build_tool("Write", "Writes.", call, input_json_schema=TEXT_SCHEMA, check_permissions=allow)
    script = [AssistantTurn([ToolUseBlock(tool_use_id(n), "Write", {"text": str(n)}) for n in range(1, 4)])]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("write")

        result = in_session(server, tmp_path, body, tools=[write], permission_context=rules())
    assert overlaps == [1, 1, 1]
    assert result.text == "Done."


def test_max_turns_stops_with_a_valid_transcript(tmp_path: Path) -> None:
    calls: list[str] = []
    loop_turn = AssistantTurn([ToolUseBlock(tool_use_id(1), "Echo", {"text": "again"})])
    second = AssistantTurn([ToolUseBlock(tool_use_id(2), "Echo", {"text": "again"})])
    with ScriptedApiServer([loop_turn, second, AssistantTurn.text("ok")]) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, LoopResult]:
            first = await session.run("loop")
            return first, await session.run("stop now")

        first, then = in_session(
            server, tmp_path, body, tools=[echo_tool(calls)], permission_context=rules(), max_turns=2
        )
        statuses = [r.status for r in server.message_requests]
    assert (first.stop_reason, first.turns) == ("max_turns", 2)
    assert then.text == "ok"
    assert statuses == [200, 200, 200]


# -- permissions and hooks -----------------------------------------------------------------------


def test_deny_rule_blocks_the_call_and_whole_tool_deny_removes_the_tool(tmp_path: Path) -> None:
    """PERM-1, PERM-10: the denied call never runs; a wholly denied tool is not even sent."""
    calls: list[str] = []
    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Echo", {"text": "secret"}),
                ToolUseBlock(tool_use_id(2), "Echo", {"text": "public"}),
                ToolUseBlock(tool_use_id(3), "Hidden", {"text": "x"}),
            ]
        ),
        AssistantTurn.text("ok"),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("go")

        in_session(
            server,
            tmp_path,
            body,
            tools=[echo_tool(calls), echo_tool(calls, "Hidden")],
            permission_context=rules(deny=("Echo(secret)", "Hidden")),
        )
        requests = server.message_requests
    assert calls == ["public"]
    assert requests[0].tool_names == ["Echo"]
    denied, allowed, hidden = tool_results(requests[1])
    assert denied["is_error"] is True
    assert "denied" in denied["content"]
    assert allowed["content"] == "echo: public"
    assert hidden["is_error"] is True
    assert "No such tool available: Hidden" in hidden["content"]


def test_headless_ask_is_denied(tmp_path: Path) -> None:
    """PERM-8: with nobody to ask, a call no rule allows is denied, not run."""
    calls: list[str] = []

    async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        calls.append("ran")
        return ToolOutput(content="ran")

    asker = build_tool("Ask", "Needs permission.", call, input_json_schema=TEXT_SCHEMA)
    script = [AssistantTurn([ToolUseBlock(tool_use_id(1), "Ask", {"text": "x"})]), AssistantTurn.text("ok")]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("go")

        in_session(server, tmp_path, body, tools=[asker], permission_context=rules())
        (result,) = tool_results(server.message_requests[1])
    assert calls == []
    assert result["is_error"] is True
    assert "Nobody can be asked" in result["content"]


def test_hooks_deny_one_call_and_add_context_to_another(tmp_path: Path) -> None:
    """HOOK-2: a PreToolUse deny blocks the call; PostToolUse context follows the results."""
    calls: list[str] = []
    seen: list[dict[str, Any]] = []

    async def pre(data: dict[str, Any], _id: str | None, _context: HookContext) -> dict[str, Any]:
        seen.append(data)
        if data["tool_input"]["text"] == "blocked":
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "not this one",
                }
            }
        return {}

    async def post(data: dict[str, Any], _id: str | None, _context: HookContext) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked it"}}

    hooks = Hooks(
        {
            "PreToolUse": [HookMatcher(matcher="Echo", hooks=[pre])],
            "PostToolUse": [HookMatcher(matcher="Echo", hooks=[post])],
        }
    )
    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Echo", {"text": "blocked"}),
                ToolUseBlock(tool_use_id(2), "Echo", {"text": "fine"}),
            ]
        ),
        AssistantTurn.text("ok"),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("go")

        in_session(server, tmp_path, body, tools=[echo_tool(calls)], permission_context=rules(), hooks=hooks)
        blocks = user_blocks(server.message_requests[1], -1)
    assert calls == ["fine"]
    assert [b["type"] for b in blocks[:2]] == ["tool_result", "tool_result"]
    assert blocks[0]["is_error"] is True
    assert "not this one" in blocks[0]["content"]
    assert blocks[1]["content"] == "echo: fine"
    assert any(b["type"] == "text" and "checked it" in b["text"] for b in blocks[2:])
    assert [d["tool_use_id"] for d in seen] == [tool_use_id(1), tool_use_id(2)]
    assert {d["hook_event_name"] for d in seen} == {"PreToolUse"}


# -- deferred tools ------------------------------------------------------------------------------


def search_script() -> list[AssistantTurn]:
    return [
        AssistantTurn([ToolUseBlock(tool_use_id(1), "ToolSearch", {"query": f"select:{FORECAST}"})]),
        AssistantTurn([ToolUseBlock(tool_use_id(2), FORECAST, {"city": "Oslo"})]),
        AssistantTurn.text("Sunny in Oslo."),
    ]


def search_session_options(calls: list[str]) -> dict[str, Any]:
    return {
        "tools": [echo_tool(calls), tool_search_tool()],
        "mcp_tools": [forecast_tool(calls)],
        "permission_context": rules("ToolSearch", FORECAST),
    }


def test_tool_search_select_then_call_the_discovered_mcp_tool(tmp_path: Path) -> None:
    """DEFER-2, DEFER-4, DEFER-6: select loads the tool by tool_reference; the next call runs it."""
    calls: list[str] = []
    with ScriptedApiServer(search_script()) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("weather in Oslo?")

        result = in_session(server, tmp_path, body, **search_session_options(calls))
        requests = server.message_requests
    assert result.text == "Sunny in Oslo."
    assert calls == ["Oslo"]
    assert [r.status for r in requests] == [200, 200, 200]
    for request in requests:
        forecast = next(t for t in request.tools if t["name"] == FORECAST)
        assert forecast["defer_loading"] is True
        assert request.beta_headers  # tool search on: the beta header is sent every time
    assert len({tuple(r.beta_headers) for r in requests}) == 1
    # The first request announces the deferred tool.
    assert FORECAST in json.dumps(requests[0].messages)
    (search_result,) = tool_results(requests[1])
    assert search_result["content"][0] == {"type": "tool_reference", "tool_name": FORECAST}
    (forecast_result,) = tool_results(requests[2])
    assert forecast_result["content"] == "sunny in Oslo"
    assert_cache_discipline(requests)


def test_compaction_carries_discovered_tools(tmp_path: Path) -> None:
    """DEFER-7: after compaction, the discovered tool is still discovered, sent and callable."""
    calls: list[str] = []
    script = [
        *search_script(),
        AssistantTurn([ToolUseBlock(tool_use_id(3), FORECAST, {"city": "Rome"})]),
        AssistantTurn.text("Sunny in Rome too."),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, CompactBoundary, frozenset[str]]:
            await session.run("weather in Oslo?")
            boundary = await session.compact("The user asked about Oslo's weather.")
            result = await session.run("and Rome?")
            assert session.last_request is not None
            return result, boundary, session.last_request.discovered_tool_names

        result, boundary, discovered = in_session(server, tmp_path, body, **search_session_options(calls))
        requests = server.message_requests
    assert boundary.pre_compact_discovered_tools == (FORECAST,)
    assert FORECAST in discovered
    assert result.text == "Sunny in Rome too."
    assert calls == ["Oslo", "Rome"]
    after = requests[3]
    assert after.status == 200
    assert "The user asked about Oslo's weather." in json.dumps(after.messages[0])
    assert "tool_reference" not in json.dumps(after.messages)
    assert FORECAST in after.tool_names


def test_automatic_compaction_asks_the_model_without_tools(tmp_path: Path) -> None:
    calls: list[str] = []

    def script(request: RecordedRequest) -> AssistantTurn:
        if not request.tools:
            return AssistantTurn.text("SUMMARY: echoed twice")
        echoed = sum(1 for m in request.messages if m["role"] == "assistant")
        if echoed < 3:
            return AssistantTurn([ToolUseBlock(tool_use_id(request.index + 1), "Echo", {"text": "x"})])
        return AssistantTurn.text("finished")

    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("echo a lot")

        result = in_session(
            server,
            tmp_path,
            body,
            tools=[echo_tool(calls)],
            permission_context=rules(),
            compaction=CompactionPolicy(max_entries=4, keep_last=2),
            max_turns=6,
        )
        requests = server.message_requests
    side = [r for r in requests if not r.tools]
    assert side, "no summary request was made"
    assert all(r.status == 200 for r in requests)
    assert not side[0].stream
    assert isinstance(result.transcript[0], CompactBoundary)
    assert result.transcript[0].summary == "SUMMARY: echoed twice"
    later = requests[requests.index(side[0]) + 1]
    assert "SUMMARY: echoed twice" in json.dumps(later.messages[0])


# -- results -------------------------------------------------------------------------------------


def test_large_output_is_persisted(tmp_path: Path) -> None:
    """RESULT-1: an output over the tool's limit is saved to a file and replaced by a preview."""

    async def call(_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
        return ToolOutput(content="line of output\n" * 5000)

    big = build_tool(
        "Big", "Lots of output.", call, input_json_schema={"type": "object"}, check_permissions=allow
    )
    script = [AssistantTurn([ToolUseBlock(tool_use_id(1), "Big", {})]), AssistantTurn.text("ok")]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("go")

        in_session(server, tmp_path, body, tools=[big], permission_context=rules())
        (result,) = tool_results(server.message_requests[1])
    assert "<persisted-output>" in result["content"]
    saved = tmp_path / "session" / "tool-results" / f"{tool_use_id(1)}.txt"
    assert saved.read_text() == "line of output\n" * 5000
    assert str(saved) in result["content"]


# -- aborts and errors ---------------------------------------------------------------------------


def aborted_turn_results(result: LoopResult) -> list[Any]:
    """The tool_results of an aborted run's last message: one error for each of its two calls."""
    assert result.stop_reason == "aborted"
    last = result.transcript[-1]
    assert isinstance(last, dict)
    results = [b for b in last["content"] if isinstance(b, dict) and b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [tool_use_id(1), tool_use_id(2)]
    assert all(r["is_error"] for r in results)
    return results


def test_abort_mid_batch_leaves_a_valid_transcript(tmp_path: Path) -> None:
    """CONC-5, PAIR-1: the running call and the queued one both get results; the next request is accepted."""
    abort = asyncio.Event()
    calls: list[str] = []

    async def block(_input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        # The user presses Esc while this runs, once the answer has finished streaming (so the
        # queued call is in the batch: an abort mid-stream keeps only the completed blocks).
        await asyncio.sleep(0.3)
        abort.set()
        await context.abort.wait()
        return ToolOutput(content="too late")

    blocker = build_tool("Block", "Blocks.", block, input_json_schema=TEXT_SCHEMA, check_permissions=allow)
    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Block", {"text": "x"}),
                ToolUseBlock(tool_use_id(2), "Echo", {"text": "never"}),
            ]
        ),
        AssistantTurn.text("continuing"),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, LoopResult]:
            first = await session.run("go", abort=abort)
            return first, await session.run("go on")

        first, second = in_session(
            server,
            tmp_path,
            body,
            tools=[blocker, echo_tool(calls)],
            permission_context=rules(),
            grace_period=0.05,
        )
        requests = server.message_requests
    assert calls == []
    aborted_turn_results(first)
    assert second.text == "continuing"
    assert [r.status for r in requests] == [200, 200]
    # The new prompt merged into the user message after the results.
    assert [b["type"] for b in user_blocks(requests[1], -1)] == ["tool_result", "tool_result", "text"]


def test_a_deny_that_interrupts_ends_the_turn(tmp_path: Path) -> None:
    """CONC-5: the user rejects a prompt and stops the agent: the call queued behind it never starts,
    both get error results, and the loop sends no further request until the next prompt."""
    calls: list[str] = []
    asked: list[str] = []

    async def host(
        name: str, tool_input: dict[str, Any], _context: ToolPermissionContext
    ) -> PermissionResult:
        asked.append(str(tool_input["text"]))
        return PermissionResultDeny(message="no, do it differently", interrupt=True)

    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Echo", {"text": "first"}),
                ToolUseBlock(tool_use_id(2), "Echo", {"text": "second"}),
            ]
        ),
        AssistantTurn.text("as you wish"),
    ]
    context = PermissionContext(rules=rules_from_strings(["Echo"], "ask", "projectSettings"), can_prompt=True)
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, int]:
            first = await session.run("go")
            sent = len(server.message_requests)
            await session.run("then what?")
            return first, sent

        first, sent_in_first = in_session(
            server,
            tmp_path,
            body,
            tools=[echo_tool(calls, safe=False)],
            permission_context=context,
            can_use_tool=host,
        )
        requests = server.message_requests
    assert sent_in_first == 1
    assert asked == ["first"]
    assert calls == []
    results = aborted_turn_results(first)
    assert "no, do it differently" in json.dumps(results[0]["content"])
    assert [r.status for r in requests] == [200, 200]


def test_abort_while_waiting_for_the_model(tmp_path: Path) -> None:
    arrived, release = threading.Event(), threading.Event()

    def script(request: RecordedRequest) -> AssistantTurn:
        if request.index == 0:
            arrived.set()
            release.wait(10)  # hold the first answer until the test has aborted
            return AssistantTurn([ToolUseBlock(tool_use_id(1), "Echo", {"text": "late"})])
        return AssistantTurn.text("fresh start")

    calls: list[str] = []
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, LoopResult]:
            abort = asyncio.Event()
            running = asyncio.ensure_future(session.run("slow", abort=abort))
            await asyncio.to_thread(arrived.wait, 10)
            abort.set()
            first = await running
            release.set()
            return first, await session.run("again")

        first, second = in_session(
            server, tmp_path, body, tools=[echo_tool(calls)], permission_context=rules()
        )
        requests = server.message_requests
    assert first.stop_reason == "aborted"
    assert calls == []
    assert second.text == "fresh start"
    assert requests[-1].status == 200
    assert [b["text"] for b in user_blocks(requests[-1], 0)] == ["slow", "again"]


def test_an_abort_set_before_the_run_sends_no_request(tmp_path: Path) -> None:
    """An abort already set when run starts: no request, the prompt kept, stop reason aborted."""
    with ScriptedApiServer([AssistantTurn.text("never")]) as server:

        async def body(session: AgentSession) -> LoopResult:
            abort = asyncio.Event()
            abort.set()
            return await session.run("hello", abort=abort)

        result = in_session(server, tmp_path, body)
        requests = server.message_requests
    assert requests == []
    assert (result.stop_reason, result.turns) == ("aborted", 0)
    assert result.transcript == ({"role": "user", "content": [{"type": "text", "text": "hello"}]},)


def test_a_stream_cut_mid_answer_stops_the_calls_it_started(tmp_path: Path) -> None:
    """A request that fails mid-stream (no message_stop) raises ApiRequestError, and no call it
    started is still running then: the batch is interrupted, not left behind the failed request."""
    running: list[str] = []
    ended: list[str] = []

    async def wait_for_abort(tool_input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        running.append(str(tool_input["text"]))
        try:
            await asyncio.wait_for(context.abort.wait(), 5)
        finally:
            ended.append(str(tool_input["text"]))
        return ToolOutput(content="stopped")

    waiter = build_tool(
        "Wait", "Waits.", wait_for_abort, input_json_schema=TEXT_SCHEMA, check_permissions=allow
    )
    turn = AssistantTurn(
        [ToolUseBlock(tool_use_id(1), "Wait", {"text": "a"}), TextBlock("and then")],
        fault=StreamFault("cut", 1),
    )
    with ScriptedApiServer([turn]) as server:

        async def body(session: AgentSession) -> tuple[list[str], list[str]]:
            with pytest.raises(ApiRequestError, match="message_stop"):
                await session.run("go")
            return list(running), list(ended)

        running_then, ended_then = in_session(
            server, tmp_path, body, tools=[waiter], permission_context=rules(), grace_period=0.05
        )
    assert running_then == ended_then


def test_a_prompt_of_content_blocks_is_sent_as_given(tmp_path: Path) -> None:
    """run takes a prompt as content blocks (sent in order); an empty list of blocks is refused."""
    prompt = [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]
    with ScriptedApiServer([AssistantTurn.text("done")]) as server:

        async def body(session: AgentSession) -> LoopResult:
            with pytest.raises(ValueError, match="no content blocks"):
                await session.run([])
            return await session.run(prompt)

        result = in_session(server, tmp_path, body)
        requests = server.message_requests
    assert result.text == "done"
    assert [b["text"] for b in user_blocks(requests[0], 0)] == ["first", "second"]


def test_api_errors_surface_with_the_api_message(tmp_path: Path) -> None:
    with ScriptedApiServer([ApiError("prompt is too long: 300000 tokens > 200000 maximum")]) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("hello")

        with pytest.raises(ApiRequestError, match=r"400.*prompt is too long") as info:
            in_session(server, tmp_path, body)
    assert info.value.status_code == 400


def test_an_invalid_transcript_is_refused_by_the_server(tmp_path: Path) -> None:
    """The server really validates: an orphan tool_result in a resumed transcript gets a 400."""
    orphan: list[Any] = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id(9), "content": "x"}]}
    ]
    with ScriptedApiServer([AssistantTurn.text("never")]) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("hello")

        with pytest.raises(ApiRequestError, match="tool_result"):
            in_session(server, tmp_path, body, entries=orphan)


def test_bad_configuration_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        AgentSession(
            client=anthropic.AsyncAnthropic(api_key="x"),
            builder=RequestBuilder(model=MODEL, max_tokens=10),
            session_dir=tmp_path,
            max_turns=0,
        )
    with pytest.raises(ValueError, match="max_entries"):
        CompactionPolicy(max_entries=0)


# -- the command line ----------------------------------------------------------------------------


def run_cli(server: ScriptedApiServer, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "x",
    }
    return subprocess.run(
        [sys.executable, "-m", "reference_impl", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_runs_the_loop_with_settings_and_json_output(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the notes\n")
    hook_log = tmp_path / "hook.log"
    settings = {
        "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Read", "hooks": [{"type": "command", "command": f"cat >> {hook_log}"}]}
            ]
        },
    }
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Read", {"file_path": str(tmp_path / "notes.txt")}),
                ToolUseBlock(tool_use_id(2), "Bash", {"command": "rm -rf /tmp/nothing"}),
            ]
        ),
        AssistantTurn.text("The notes say: the notes"),
    ]
    with ScriptedApiServer(script) as server:
        done = run_cli(
            server, tmp_path, "-p", "read my notes", "--settings", "settings.json", "--output-format", "json"
        )
        requests = server.message_requests
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["result"] == "The notes say: the notes"
    assert out["stop_reason"] == "end_turn"
    assert out["num_turns"] == 2
    assert out["is_error"] is False
    read, bash = tool_results(requests[1])
    assert "the notes" in str(read["content"])
    assert bash["is_error"] is True
    assert "denied" in bash["content"]
    assert {"Read", "Bash", "ToolSearch"} <= set(requests[0].tool_names)
    hook_input = json.loads(hook_log.read_text())
    assert hook_input["tool_name"] == "Read"
    assert hook_input["tool_use_id"] == tool_use_id(1)


def test_cli_text_output_and_permission_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process (the subprocess path is covered above): bypassPermissions lets Bash run."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    script = [
        AssistantTurn([ToolUseBlock(tool_use_id(1), "Bash", {"command": "echo hello-from-bash"})]),
        AssistantTurn.text("bash said hello"),
    ]
    with ScriptedApiServer(script) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status = cli_main(["-p", "run it", "--permission-mode", "bypassPermissions"])
        (result,) = tool_results(server.message_requests[1])
    assert status == 0
    assert capsys.readouterr().out == "bash said hello\n"
    assert result["content"] == "hello-from-bash"


def test_cli_reports_api_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    with ScriptedApiServer([ApiError("invalid model name")]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status = cli_main(["-p", "hi", "--output-format", "json"])
    assert status == 1
    out = json.loads(capsys.readouterr().out)
    assert out["is_error"] is True
    assert "invalid model name" in out["result"]


def test_cli_refuses_bad_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    (tmp_path / "bad.json").write_text('{"permissions": {"allow": ["Bash("]}}')
    (tmp_path / "tools.json").write_text('[{"server": "s"}]')
    with ScriptedApiServer([]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert cli_main(["-p", "hi", "--settings", "bad.json"]) == 2
        assert "bad.json" in capsys.readouterr().err
        assert cli_main(["-p", "hi", "--mcp-tools", "tools.json"]) == 2
        assert "lacks name, inputSchema" in capsys.readouterr().err
        assert server.requests == []


# -- lifecycle hooks, continue: false, what hooks tell the user (HOOK-5..8) ---------------------


def recording_hook(tmp_path: Path, name: str, answer: str = "") -> tuple[str, Path]:
    """A real command hook that appends its stdin JSON to ``<name>.jsonl`` and then runs ``answer``.

    ``answer`` is Python with the input as ``d``; it prints the hook's output (or exits 2). Returns the
    command and the record file.
    """
    record = tmp_path / f"{name}.jsonl"
    program = tmp_path / f"{name}.py"
    program.write_text(
        "import json, sys\n"
        "d = json.loads(sys.stdin.read())\n"
        f"with open({str(record)!r}, 'a') as f:\n"
        "    f.write(json.dumps(d) + '\\n')\n" + answer + "\n"
    )
    return f"{sys.executable} {program}", record


def recorded(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


def command_hooks(**events: list[tuple[str | None, str]]) -> Hooks:
    """Hooks from ``event=[(matcher, command), ...]``, each command its own matcher entry."""
    return Hooks(
        {
            event: [HookMatcher(matcher, [CommandHook(command, timeout=20)]) for matcher, command in pairs]
            for event, pairs in events.items()
        }
    )


def every_text(requests: list[RecordedRequest]) -> str:
    return json.dumps([r.messages for r in requests])


def test_continue_false_from_post_tool_use_stops_after_the_turn_with_every_tool_use_answered(
    tmp_path: Path,
) -> None:
    """HOOK-5: a PostToolUse ``continue: false`` ends the loop after this turn's results; no further
    request is made, both tool_uses have their result, and ``stopReason`` / ``systemMessage`` reach the
    user (LoopResult) and never the model (the next request of the resumed session)."""
    calls: list[str] = []
    stop, _ = recording_hook(
        tmp_path,
        "stop",
        "print(json.dumps({'continue': False, 'stopReason': 'GUARD-TRIPPED', 'systemMessage': 'SYS-MARK'}))",
    )
    script = [
        AssistantTurn(
            [
                ToolUseBlock(tool_use_id(1), "Echo", {"text": "a"}),
                ToolUseBlock(tool_use_id(2), "Echo", {"text": "b"}),
            ]
        ),
        AssistantTurn.text("must not be asked for"),
        AssistantTurn.text("after the stop"),
    ]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, int, LoopResult]:
            first = await session.run("echo twice")
            asked = len(server.message_requests)
            session.hooks = Hooks()
            return first, asked, await session.run("go on")

        result, asked, after = in_session(
            server,
            tmp_path,
            body,
            tools=[echo_tool(calls)],
            permission_context=rules(),
            hooks=command_hooks(PostToolUse=[("Echo", stop)]),
        )
        requests = server.message_requests
    assert asked == 1, "continue: false must stop before the next request"
    assert sorted(calls) == ["a", "b"]
    assert (result.stop_reason, result.hook_stop_reason) == ("hook_stopped", "GUARD-TRIPPED")
    assert result.system_messages == ("SYS-MARK", "SYS-MARK")
    last = result.transcript[-1]
    assert isinstance(last, dict)
    assert last["role"] == "user"
    answered = [
        b["tool_use_id"] for b in cast(list[dict[str, Any]], last["content"]) if b["type"] == "tool_result"
    ]
    assert answered == [tool_use_id(1), tool_use_id(2)]
    # The resumed session's request carries the whole transcript: valid for the API, no user-only text.
    assert [r.status for r in requests] == [200, 200]
    assert after.stop_reason == "end_turn"
    assert "SYS-MARK" not in every_text(requests)
    assert "GUARD-TRIPPED" not in every_text(requests)


def test_user_prompt_submit_blocks_the_prompt(tmp_path: Path) -> None:
    """HOOK-7: a UserPromptSubmit block (JSON or exit 2) keeps the prompt out; nothing is sent."""
    json_block, _ = recording_hook(
        tmp_path, "ups", "print(json.dumps({'decision': 'block', 'reason': 'NO-SECRETS'}))"
    )
    exit2, _ = recording_hook(tmp_path, "ups2", "sys.stderr.write('EXIT-TWO'); sys.exit(2)")
    for command, reason in ((json_block, "NO-SECRETS"), (exit2, "EXIT-TWO")):
        with ScriptedApiServer([AssistantTurn.text("never")]) as server:

            async def body(session: AgentSession) -> LoopResult:
                return await session.run("my password is hunter2")

            result = in_session(
                server, tmp_path, body, hooks=command_hooks(UserPromptSubmit=[(None, command)])
            )
            assert server.message_requests == []
        assert (result.stop_reason, result.prompt_block_reason, result.turns) == ("prompt_blocked", reason, 0)
        assert "hunter2" not in json.dumps(result.transcript, default=str)


def test_session_start_and_user_prompt_submit_add_context_before_the_first_request(tmp_path: Path) -> None:
    """HOOK-7: SessionStart's and UserPromptSubmit's additionalContext (and plain stdout) go to the model
    with the prompt; the payloads carry the common fields and one prompt_id (HOOK-6)."""
    start, start_log = recording_hook(
        tmp_path,
        "start",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'SessionStart', 'additionalContext': 'SS-CTX'}}))",
    )
    plain, _ = recording_hook(tmp_path, "plain", "print('PLAIN-CTX')")
    prompt_hook, prompt_log = recording_hook(
        tmp_path,
        "prompt",
        "print(json.dumps({'systemMessage': 'UPS-SYS', 'hookSpecificOutput': {'hookEventName': 'UserPromptSubmit', 'additionalContext': 'UPS-CTX'}}))",
    )
    hooks = command_hooks(
        SessionStart=[("startup", start), ("resume", plain)],
        UserPromptSubmit=[(None, prompt_hook), (None, plain)],
    )
    with ScriptedApiServer([AssistantTurn.text("ok")]) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("hello")

        result = in_session(server, tmp_path, body, hooks=hooks, transcript_path=str(tmp_path / "t.jsonl"))
        (request,) = server.message_requests
    sent = json.dumps(request.messages[0])
    assert "SessionStart hook additional context: SS-CTX" in sent
    assert "UserPromptSubmit hook additional context: UPS-CTX" in sent
    assert "UserPromptSubmit hook additional context: PLAIN-CTX" in sent
    assert "UPS-SYS" not in sent
    assert result.system_messages == ("UPS-SYS",)
    (started,) = recorded(start_log)
    assert started["source"] == "startup"
    assert started["hook_event_name"] == "SessionStart"
    assert "permission_mode" not in started  # as Claude Code 2.1 sends it
    (submitted,) = recorded(prompt_log)
    assert submitted["prompt"] == "hello"
    for key in ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "prompt_id"):
        assert key in submitted, key
    assert submitted["session_id"] == started["session_id"]


def test_stop_hook_refuses_once_and_stop_hook_active_guards_the_loop(tmp_path: Path) -> None:
    """HOOK-7: a Stop block sends its reason to the model and the loop goes on; the next Stop input has
    ``stop_hook_active: true`` and the hook lets it stop."""
    stop, log = recording_hook(
        tmp_path,
        "stop",
        "if not d['stop_hook_active']:\n    print(json.dumps({'decision': 'block', 'reason': 'RUN-THE-TESTS'}))",
    )
    script = [AssistantTurn.text("done early"), AssistantTurn.text("tests pass")]
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("fix it")

        result = in_session(server, tmp_path, body, hooks=command_hooks(Stop=[(None, stop)]))
        requests = server.message_requests
    assert len(requests) == 2
    assert all(r.status == 200 for r in requests)
    feedback = requests[1].messages[-1]
    assert feedback["role"] == "user"
    assert [b["text"] for b in feedback["content"]] == ["Stop hook feedback:\nRUN-THE-TESTS"]
    assert [p["stop_hook_active"] for p in recorded(log)] == [False, True]
    assert [p["last_assistant_message"] for p in recorded(log)] == ["done early", "tests pass"]
    assert (result.text, result.stop_reason) == ("tests pass", "end_turn")


def test_a_stop_hook_that_always_blocks_is_capped(tmp_path: Path) -> None:
    """HOOK-7: a Stop hook that ignores stop_hook_active can't keep the loop going forever."""
    stop, log = recording_hook(tmp_path, "stop", "sys.stderr.write('MORE'); sys.exit(2)")
    with ScriptedApiServer(lambda _r: AssistantTurn.text("again")) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("go")

        result = in_session(
            server, tmp_path, body, hooks=command_hooks(Stop=[(None, stop)]), stop_hook_block_cap=2
        )
        requests = server.message_requests
    assert len(requests) == 3
    assert len(recorded(log)) == 3
    assert result.stop_reason == "end_turn"


def test_pre_compact_runs_before_compaction_then_session_start_compact(tmp_path: Path) -> None:
    """HOOK-7: PreCompact (trigger auto) runs before the summary request; SessionStart (source
    compact) after it; SessionEnd from end(), with its reason."""
    calls: list[str] = []
    pre_compact, pre_log = recording_hook(tmp_path, "precompact")
    start, start_log = recording_hook(tmp_path, "start")
    end, end_log = recording_hook(tmp_path, "end")

    def script(request: RecordedRequest) -> AssistantTurn:
        if not request.tools:
            assert recorded(pre_log), "PreCompact must run before the summary request"
            return AssistantTurn.text("SUMMARY")
        if sum(1 for m in request.messages if m["role"] == "assistant") < 3:
            return AssistantTurn([ToolUseBlock(tool_use_id(request.index + 1), "Echo", {"text": "x"})])
        return AssistantTurn.text("finished")

    hooks = command_hooks(
        PreCompact=[("auto", pre_compact)], SessionStart=[("", start)], SessionEnd=[("", end)]
    )
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            result = await session.run("echo a lot")
            assert recorded(end_log) == []
            await session.end("other")
            return result

        result = in_session(
            server,
            tmp_path,
            body,
            tools=[echo_tool(calls)],
            permission_context=rules(),
            hooks=hooks,
            compaction=CompactionPolicy(max_entries=4, keep_last=2),
            max_turns=6,
        )
    assert isinstance(result.transcript[0], CompactBoundary)
    ((compacting, *_),) = [recorded(pre_log)]
    assert (compacting["trigger"], compacting["custom_instructions"]) == ("auto", "")
    assert [p["source"] for p in recorded(start_log)][:2] == ["startup", "compact"]
    (ended,) = recorded(end_log)
    assert (ended["hook_event_name"], ended["reason"]) == ("SessionEnd", "other")


def test_notification_fires_before_the_host_is_asked(tmp_path: Path) -> None:
    """HOOK-7: a permission prompt is where the harness notifies: Notification runs, then the host."""
    from reference_impl.permissions import PermissionResultAllow

    notify, log = recording_hook(tmp_path, "notify")
    asked: list[int] = []

    async def host(_name: str, _input: dict[str, Any], _context: Any) -> PermissionResultAllow:
        asked.append(len(recorded(log)))
        return PermissionResultAllow()

    script = [AssistantTurn([ToolUseBlock(tool_use_id(1), "Ask", {"text": "a"})]), AssistantTurn.text("ok")]
    calls: list[str] = []
    ask_tool = build_tool(
        "Ask",
        "Needs a yes.",
        echo_tool(calls).call,
        input_json_schema=TEXT_SCHEMA,
    )
    with ScriptedApiServer(script) as server:

        async def body(session: AgentSession) -> LoopResult:
            return await session.run("ask")

        in_session(
            server,
            tmp_path,
            body,
            tools=[ask_tool],
            can_use_tool=host,
            hooks=command_hooks(Notification=[("permission_prompt", notify)]),
        )
    assert asked == [1]
    assert calls == ["a"]
    (note,) = recorded(log)
    assert note["notification_type"] == "permission_prompt"
    assert "Ask" in note["message"]


def test_a_blocked_prompt_keeps_the_session_start_context_for_the_next(tmp_path: Path) -> None:
    """HOOK-7: SessionStart context waits for the first prompt that is not blocked."""
    start, _ = recording_hook(
        tmp_path,
        "start",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'SessionStart', 'additionalContext': 'SS-CTX'}}))",
    )
    gate, _ = recording_hook(
        tmp_path,
        "gate",
        "if 'secret' in d['prompt']:\n    print(json.dumps({'decision': 'block', 'reason': 'no'}))",
    )
    hooks = command_hooks(SessionStart=[("", start)], UserPromptSubmit=[(None, gate)])
    with ScriptedApiServer([AssistantTurn.text("ok")]) as server:

        async def body(session: AgentSession) -> tuple[LoopResult, LoopResult]:
            return await session.run("a secret"), await session.run("hello")

        blocked, answered = in_session(server, tmp_path, body, hooks=hooks)
        (request,) = server.message_requests
    assert (blocked.stop_reason, answered.stop_reason) == ("prompt_blocked", "end_turn")
    assert "SessionStart hook additional context: SS-CTX" in json.dumps(request.messages)
    assert "secret" not in json.dumps(request.messages)
