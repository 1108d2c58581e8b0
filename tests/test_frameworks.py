"""The scripted endpoint and the framework adapters, with the real frameworks (skipped without their extra)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import anthropic
import pytest

from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_endpoint_answers_the_anthropic_client_in_process() -> None:
    endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
    client = anthropic.Anthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.client()
    )
    message = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "Hi"}]
    )
    assert [block.type for block in message.content] == ["text"]
    [request] = endpoint.message_requests
    assert request.json["messages"] == [{"role": "user", "content": "Hi"}]


def test_endpoint_rejects_what_the_api_rejects() -> None:
    endpoint = ScriptedEndpoint([AssistantTurn.text("never sent")])
    client = anthropic.Anthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.client(), max_retries=0
    )
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="claude-sonnet-4-6", max_tokens=16, messages=[])
    assert endpoint.message_requests[0].status == 400


def _scenario(root: Path) -> ExecutionScenario:
    tools = [
        ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Bravo", input_schema=SCHEMA, behavior=ToolBehavior("empty")),
        ToolSpec("Delta", input_schema=SCHEMA, rejects_when="forbidden"),
    ]
    uses: list[dict[str, Any]] = [
        {"type": "tool_use", "id": "toolu_a", "name": "Alpha", "input": {"n": 1}},
        {"type": "tool_use", "id": "toolu_b", "name": "Bravo", "input": {"n": 2}},
        {"type": "tool_use", "id": "toolu_m", "name": "Missing", "input": {"n": 3}},
        {"type": "tool_use", "id": "toolu_d", "name": "Delta", "input": {"n": 4, "forbidden": True}},
    ]
    return ExecutionScenario(tools=tools, tool_uses=uses, recorder=CallRecorder(), cwd=root, session_dir=root)


@pytest.mark.parametrize("framework", ["pydantic_ai", "langgraph"])
def test_framework_adapter_answers_through_the_framework_client(framework: str) -> None:
    """The results are what the framework's own client sent: one per tool_use, errors marked."""
    module = pytest.importorskip(f"pytest_toolharness.adapters.{framework}")
    with tempfile.TemporaryDirectory() as tmp:
        scenario = _scenario(Path(tmp))
        result = asyncio.run(module.make_adapter().new_harness().execute(scenario))
    by_id = {block["tool_use_id"]: block for block in result.user_content}
    assert list(by_id) == ["toolu_a", "toolu_b", "toolu_m", "toolu_d"]
    assert [by_id[i]["is_error"] for i in by_id] == [False, False, True, True]
    assert scenario.recorder.started() == ["toolu_a", "toolu_b"]
    # The finding of docs/frameworks/*.md: the empty output goes out empty.
    assert "completed with no output" not in json.dumps(by_id["toolu_b"])


def test_a_raising_tool_leaves_the_batch_without_results_by_default() -> None:
    module = pytest.importorskip("pytest_toolharness.adapters.langgraph")
    with tempfile.TemporaryDirectory() as tmp:
        scenario = _scenario(Path(tmp))
        scenario.tools = [
            *scenario.tools,
            ToolSpec("Echo", input_schema=SCHEMA, behavior=ToolBehavior("raise")),
        ]
        scenario.tool_uses = [
            *scenario.tool_uses,
            {"type": "tool_use", "id": "toolu_e", "name": "Echo", "input": {"n": 5}},
        ]
        result = asyncio.run(module.make_adapter().new_harness().execute(scenario))
    assert result.user_content == []
