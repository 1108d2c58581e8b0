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
from typing import Any, TypeVar

import anthropic
import pytest

from pytest_toolharness.wire._api_server import RecordedRequest, ScriptedApiServer
from pytest_toolharness.wire._api_validation import ApiError
from pytest_toolharness.wire._script import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from reference_impl import (
    AgentSession,
    ApiRequestError,
    CompactBoundary,
    CompactionPolicy,
    HookContext,
    HookMatcher,
    Hooks,
    LoopResult,
    PermissionContext,
    PermissionTarget,
    RequestBuilder,
    Tool,
    ToolContext,
    ToolOutput,
    ToolPermissionCheck,
    build_tool,
    mcp_tool,
    rules_from_strings,
    tool_search_tool,
)
from reference_impl.__main__ import main as cli_main
from reference_impl._wire import wire_json

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


def test_abort_mid_batch_leaves_a_valid_transcript(tmp_path: Path) -> None:
    """CONC-5, PAIR-1: the running call and the queued one both get results; the next request is accepted."""
    abort = asyncio.Event()
    calls: list[str] = []

    async def block(_input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        abort.set()  # the user presses Esc while this runs
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
    assert first.stop_reason == "aborted"
    assert calls == []
    last = first.transcript[-1]
    assert isinstance(last, dict)
    results = [b for b in last["content"] if isinstance(b, dict) and b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [tool_use_id(1), tool_use_id(2)]
    assert all(r["is_error"] for r in results)
    assert second.text == "continuing"
    assert [r.status for r in requests] == [200, 200]
    # The new prompt merged into the user message after the results.
    assert [b["type"] for b in user_blocks(requests[1], -1)] == ["tool_result", "tool_result", "text"]


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
