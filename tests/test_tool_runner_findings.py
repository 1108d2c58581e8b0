"""The findings of ``docs/frameworks/anthropic-tool-runner.md``, each proved with the bytes the page quotes.

Each test drives the shipped adapter, so the SDK's real tool runner and its real client, against the
scripted endpoint, and compares what the runner sent with the page (the SDK sends compact JSON in the
body's own key order). Skipped without the extra.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec
from pytest_toolharness.specs import ExecutionResult

runner = pytest.importorskip("pytest_toolharness.adapters.anthropic_tool_runner")
framework = pytest.importorskip("pytest_toolharness.adapters.framework")

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
PAGE = (
    Path(__file__).resolve().parent.parent / "docs" / "frameworks" / "anthropic-tool-runner.md"
).read_text()


def wire(value: Any) -> str:
    """A wire value as the SDK's request body spells it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _run(
    spec: ToolSpec, tool_input: dict[str, Any], **options: Any
) -> tuple[ExecutionResult, Any, list[bytes]]:
    """One call through the adapter: the result, the recorder and every request body after the first."""
    bodies: list[bytes] = []
    original = framework.answer_of_turn

    def recording(endpoint: Any, ids: Any) -> Any:
        bodies.extend(r.body for r in endpoint.message_requests[1:])
        return original(endpoint, ids)

    uses = [{"type": "tool_use", "id": "toolu_1", "name": spec.name, "input": tool_input}]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        patch.setattr(framework, "answer_of_turn", recording)
        scenario = ExecutionScenario(
            tools=[spec],
            tool_uses=uses,
            recorder=CallRecorder(),
            cwd=Path(tmp),
            session_dir=Path(tmp),
            **options,
        )
        result = asyncio.run(runner.make_adapter().new_harness().execute(scenario))
    return result, scenario.recorder, bodies


def test_a_dict_result_is_sent_as_its_keys_and_rejected() -> None:
    spec = ToolSpec(
        "Alpha", input_schema=SCHEMA, behavior=ToolBehavior("json", value={"answer": 42, "items": [1, 2]})
    )
    result, _recorder, bodies = _run(spec, {"n": 1})
    [body] = bodies
    assert body.decode() in PAGE
    assert result.rejection == (
        "messages.2.content.0.tool_result.content.0: Input should be a valid dictionary or object to extract fields from"
    )


def test_input_failing_the_schema_runs_and_succeeds() -> None:
    spec = ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="Alpha done"))
    result, recorder, _bodies = _run(spec, {"n": "not an integer"})
    assert recorder.started() == ["toolu_1"]
    [block] = result.user_content
    assert wire(block) in PAGE
    assert "is_error" not in block


def test_empty_output_is_sent_empty() -> None:
    result, _recorder, _bodies = _run(
        ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("empty")), {"n": 1}
    )
    [block] = result.user_content
    assert wire(block) == '{"type":"tool_result","tool_use_id":"toolu_1","content":""}'
    assert wire(block) in PAGE


def test_a_cancelled_batch_is_resumed_unanswered_and_rejected() -> None:
    spec = ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("hang"))
    result, _recorder, bodies = _run(spec, {"n": 1}, abort_after_starts=1)
    assert result.user_content == []
    assert bodies[-1].decode() in PAGE
    assert result.rejection is not None
    assert result.rejection.startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")
    assert result.rejection in PAGE.replace("\n", " ")


def test_names_and_ids_are_sent_as_given() -> None:
    harness = runner.make_adapter().new_harness()
    tools = harness.render_tools([ToolSpec("Read"), ToolSpec("Read")], [])
    assert wire(tools) in PAGE
    session = runner.make_adapter().new_harness()
    session.set_tools([ToolSpec("Read"), ToolSpec("Read")], [])
    session.append_message({"role": "user", "content": "go"})
    assert session.render_request().rejection == "tools: Tool names must be unique."
    session = runner.make_adapter().new_harness()
    session.set_tools([ToolSpec("ReadFile")], [])
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for output in ("one", "two"):
        history.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Calling ReadFile."},
                    {"type": "tool_use", "id": "toolu_1", "name": "ReadFile", "input": {}},
                ],
            }
        )
        history.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}],
            }
        )
    for message in history:
        session.append_message(message)
    assert wire(session.render_request().body["messages"]) in PAGE


def test_calls_of_a_reply_run_one_at_a_time() -> None:
    def tool(name: str) -> ToolSpec:
        behavior = ToolBehavior("sleep", seconds=0.05, text=name)
        return ToolSpec(name, input_schema=SCHEMA, behavior=behavior, concurrency_safe=True, read_only=True)

    uses = [
        {"type": "tool_use", "id": "toolu_1", "name": "Alpha", "input": {"n": 1}},
        {"type": "tool_use", "id": "toolu_2", "name": "Bravo", "input": {"n": 2}},
    ]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=[tool("Alpha"), tool("Bravo")],
            tool_uses=uses,
            recorder=CallRecorder(),
            cwd=Path(tmp),
            session_dir=Path(tmp),
        )
        asyncio.run(runner.make_adapter().new_harness().execute(scenario))
    order = ", ".join(f"{e.kind} {e.tool_use_id}" for e in scenario.recorder.events)
    assert order == "start toolu_1, end toolu_1, start toolu_2, end toolu_2"
    assert order in PAGE


def test_a_tool_changed_within_the_session_is_sent_changed() -> None:
    harness = runner.make_adapter().new_harness()
    first = harness.render_tools([ToolSpec("Slack", description="send.")], [])
    later = harness.render_tools([ToolSpec("Slack", description="slack.")], [])
    assert first != later
    assert wire(first[0]) in PAGE
    assert wire(later[0]) in PAGE
