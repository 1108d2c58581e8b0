"""The findings of ``docs/frameworks/*.md``, each proved with the bytes the page quotes (issue 11).

Each test drives the shipped adapter, so the real framework and its real Anthropic client, against the
scripted endpoint, and compares the request the framework sent with the page. The SDK sends compact
JSON in the body's own key order, which :func:`wire` reproduces. Skipped without the framework's extra.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec

FRAMEWORKS = ["pydantic_ai", "langgraph"]


def wire(value: Any) -> str:
    """A wire value as the SDK's request body spells it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _adapter(framework: str) -> ModuleType:
    return pytest.importorskip(f"pytest_toolharness.adapters.{framework}")


def _turn(tool_use_id: str, output: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Calling ReadFile."},
                {"type": "tool_use", "id": tool_use_id, "name": "ReadFile", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": output}]},
    ]


def _abort_run(framework: str, tools: list[ToolSpec], uses: list[dict[str, Any]], after: int) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=tools,
            tool_uses=uses,
            recorder=CallRecorder(),
            cwd=Path(tmp),
            session_dir=Path(tmp),
            abort_after_starts=after,
        )
        result = asyncio.run(_adapter(framework).make_adapter().new_harness().execute(scenario))
    return scenario.recorder, {b["tool_use_id"]: b for b in result.user_content}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_reused_tool_use_id_is_sent_twice(framework: str) -> None:
    """PAIR-6: a history that reuses a tool_use id is sent as it is, the id twice in one request."""
    harness = _adapter(framework).make_adapter().new_harness()
    harness.set_tools([ToolSpec("ReadFile", description="The ReadFile tool.")], [])
    harness.append_message({"role": "user", "content": "Hello"})
    for message in [*_turn("toolu_1", "done"), *_turn("toolu_1", "again")]:
        harness.append_message(message)
    messages = harness.render_request().body["messages"]
    uses = [
        wire(b) for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"
    ]
    expected = {
        "pydantic_ai": '{"id":"toolu_1","type":"tool_use","name":"ReadFile","input":{}}',
        "langgraph": '{"type":"tool_use","name":"ReadFile","input":{},"id":"toolu_1"}',
    }[framework]
    assert uses == [expected, expected]


def test_langgraph_sends_a_duplicate_tool_name_twice() -> None:
    """PAIR-6: two tools of one name (a built-in and an MCP tool) both go into the tools array."""
    harness = _adapter("langgraph").make_adapter().new_harness()
    harness.set_tools(
        [ToolSpec("mcp__gh__issues", description="The tool.")],
        [ToolSpec("mcp__gh__issues", description="issues on gh", mcp_server="gh", mcp_tool="issues")],
    )
    harness.append_message({"role": "user", "content": "Hello"})
    assert wire(harness.render_request().body["tools"]) == (
        '[{"name":"mcp__gh__issues","input_schema":{"type":"object","properties":{}},"description":"The tool."},'
        '{"name":"mcp__gh__issues","input_schema":{"type":"object","properties":{}},"description":"issues on gh"}]'
    )


def test_pydantic_ai_refuses_a_duplicate_tool_name() -> None:
    """PAIR-6 passes for pydantic-ai: it refuses the second tool of a name before sending anything."""
    harness = _adapter("pydantic_ai").make_adapter().new_harness()
    spec = ToolSpec("ReadFile", description="The ReadFile tool.")
    harness.set_tools([spec, spec], [])
    harness.append_message({"role": "user", "content": "Hello"})
    with pytest.raises(ValueError, match=r"Tool name conflicts with existing tool: 'ReadFile'"):
        harness.render_request()


def test_pydantic_ai_drops_a_call_that_finished_at_a_cancel_and_runs_it_again() -> None:
    """CONC-5: the cancel lands just after the call returned; on resume pydantic-ai runs it a second time."""
    tools = [ToolSpec("Alpha", behavior=ToolBehavior("text", text="a done"))]
    uses = [{"type": "tool_use", "id": "toolu_1", "name": "Alpha", "input": {}}]
    recorder, by_id = _abort_run("pydantic_ai", tools, uses, after=1)
    assert [(e.kind, e.tool_use_id) for e in recorder.events] == [
        ("start", "toolu_1"),
        ("end", "toolu_1"),
        ("start", "toolu_1"),
        ("end", "toolu_1"),
    ]
    assert wire(by_id["toolu_1"]) == (
        '{"tool_use_id":"toolu_1","type":"tool_result","content":[{"text":"a done","type":"text"}],"is_error":false}'
    )


def test_pydantic_ai_answers_an_interrupted_call_as_a_success() -> None:
    """CONC-5: a call the cancel interrupted gets pydantic-ai's placeholder, with ``is_error: false``."""
    tools = [ToolSpec("Alpha", behavior=ToolBehavior("hang"))]
    uses = [{"type": "tool_use", "id": "toolu_1", "name": "Alpha", "input": {}}]
    recorder, by_id = _abort_run("pydantic_ai", tools, uses, after=1)
    assert recorder.started() == ["toolu_1"]  # not run again
    assert wire(by_id["toolu_1"]) == (
        '{"tool_use_id":"toolu_1","type":"tool_result","content":[{"text":"The tool call was interrupted '
        'before a result was produced.","type":"text"}],"is_error":false}'
    )


def test_langgraph_resumes_a_cancelled_batch_by_running_every_call_again() -> None:
    """CONC-5: resumed from its checkpoint, LangGraph runs the whole ToolNode again, finished calls too."""
    tools = [
        ToolSpec("Alpha", behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Bravo", behavior=ToolBehavior("wait_abort")),
    ]
    uses = [
        {"type": "tool_use", "id": "toolu_1", "name": "Alpha", "input": {}},
        {"type": "tool_use", "id": "toolu_2", "name": "Bravo", "input": {}},
    ]
    recorder, by_id = _abort_run("langgraph", tools, uses, after=2)
    starts = [e.tool_use_id for e in recorder.events if e.kind == "start"]
    assert sorted(starts) == ["toolu_1", "toolu_1", "toolu_2", "toolu_2"]
    assert (
        wire(by_id["toolu_1"])
        == '{"type":"tool_result","content":"a done","tool_use_id":"toolu_1","is_error":false}'
    )
    assert wire(by_id["toolu_2"]) == (
        '{"type":"tool_result","content":"stopped after abort","tool_use_id":"toolu_2","is_error":false}'
    )


def test_pydantic_ai_keeps_a_finished_call_while_a_sibling_runs() -> None:
    """CONC-5: cancelled while a sibling still runs, the finished call keeps its result and runs once."""
    tools = [
        ToolSpec("Alpha", behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Bravo", behavior=ToolBehavior("hang")),
    ]
    uses = [
        {"type": "tool_use", "id": "toolu_1", "name": "Alpha", "input": {}},
        {"type": "tool_use", "id": "toolu_2", "name": "Bravo", "input": {}},
    ]
    recorder, by_id = _abort_run("pydantic_ai", tools, uses, after=2)
    assert sorted(recorder.started()) == ["toolu_1", "toolu_2"]  # each once
    assert wire(by_id["toolu_1"]) == (
        '{"tool_use_id":"toolu_1","type":"tool_result","content":[{"text":"a done","type":"text"}],"is_error":false}'
    )
    assert '"is_error":false' in wire(by_id["toolu_2"])
    assert "interrupted before a result was produced" in wire(by_id["toolu_2"])
