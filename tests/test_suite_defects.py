"""The six defects of the suite itself found by checking two harnesses nobody here wrote (issue 31).

Each test failed on the code before the fix (531c59b), each by reporting a harness as failing a
requirement for a fault of the suite: a crash of the suite's own glue on its own draws, a result
block lost, a claude-code rule applied to every framework, a request graded that the API rejected or
that was not the answer, a scripted API looser than the real one, and a scripted API that did not
follow the SDK's message threads.
"""

from __future__ import annotations

import asyncio
import base64
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest

from conformance import test_pairing, test_schemas
from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec
from pytest_toolharness.adapters.framework import framework_turn, run_behavior
from pytest_toolharness.adapters.reference import make_adapter as reference_adapter
from pytest_toolharness.specs import ExecutionResult
from pytest_toolharness.wire import ScriptedEndpoint, tool_use_turn
from pytest_toolharness.wire.model_api import validate_messages_request

MODEL = "claude-sonnet-4-6"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nscripted").decode()


def _image(data: str = PNG) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


# -- 1. non-object tool inputs ------------------------------------------------------------------


class _ThroughTheApi:
    """The reference harness, given each batch as a framework adapter gives it: through the API's turn."""

    def __init__(self) -> None:
        self._harness = reference_adapter().new_harness()

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        tool_use_turn(scenario.tool_uses)  # what framework_turn scripts: the API's tool_use blocks
        result: ExecutionResult = await self._harness.execute(scenario)
        return result


def test_a_harness_fed_through_the_api_is_never_given_a_non_object_input() -> None:
    """Defect 1: the suite drew ``["n", 1]`` / ``"n=1"`` inputs for framework adapters and crashed on them."""
    capabilities = reference_adapter().capabilities - {"non_object_input"}
    test_pairing.test_results_in_tool_use_order(
        new_harness=_ThroughTheApi, toolharness_capabilities=capabilities
    )


@pytest.mark.parametrize("tool_input", [["n", 1], "n=1"])
def test_a_non_object_tool_use_input_is_refused_by_name(tool_input: Any) -> None:
    """The API delivers every input as an object: scripting another is a clear TypeError, never a crash."""
    with pytest.raises(TypeError, match=r"tool_use toolu_x input must be a mapping \(a JSON object"):
        tool_use_turn([{"id": "toolu_x", "name": "Alpha", "input": tool_input}])


# -- 2. multi-block results -----------------------------------------------------------------------


def test_run_behavior_keeps_every_block_of_a_multi_block_result() -> None:
    """Defect 2: two images became one and the text was dropped, so PAIR-4 failed falsely."""
    blocks = [_image(), _image(base64.b64encode(b"second").decode()), {"type": "text", "text": "caption"}]
    spec = ToolSpec("Alpha", behavior=ToolBehavior("json", value=blocks))
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=[spec], tool_uses=[], recorder=CallRecorder(), cwd=Path(tmp), session_dir=Path(tmp)
        )
        output = asyncio.run(run_behavior(spec, "toolu_a", {}, scenario))
    assert output.kind == "blocks"
    assert [(p.kind, p.image_png, p.text) for p in output.parts] == [
        ("image", base64.b64decode(PNG), ""),
        ("image", b"second", ""),
        ("text", b"", "caption"),
    ]


@pytest.mark.parametrize("framework", ["pydantic_ai", "langgraph"])
def test_a_framework_adapter_hands_the_framework_every_block_of_a_result(framework: str) -> None:
    """Defect 2, end to end: the image and its caption both reach the tool_result the framework sends."""
    module = pytest.importorskip(f"pytest_toolharness.adapters.{framework}")
    spec = ToolSpec("Alpha", behavior=ToolBehavior("image", text="caption"))
    uses = [{"type": "tool_use", "id": "toolu_a", "name": "Alpha", "input": {}}]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=[spec], tool_uses=uses, recorder=CallRecorder(), cwd=Path(tmp), session_dir=Path(tmp)
        )
        result = asyncio.run(module.make_adapter().new_harness().execute(scenario))
    [block] = result.user_content
    assert [(b["type"], b.get("text")) for b in block["content"]] == [("image", None), ("text", "caption")]


# -- 3. the core CACHE-3 test and the framework's own deferral rule -------------------------------


def test_the_deferral_overlay_test_follows_the_adapters_rule() -> None:
    """Defect 3: the core CACHE-3 test applied Claude Code's rule (every MCP tool deferred, DEFER-1)."""
    module = pytest.importorskip("pytest_toolharness.adapters.pydantic_ai")
    test_schemas.test_deferral_overlay_never_alters_the_base(new_harness=module.make_adapter().new_harness)


# -- 4. which request framework_turn grades -------------------------------------------------------


def _turn_scenario(root: Path) -> ExecutionScenario:
    uses = [
        {"type": "tool_use", "id": "toolu_a", "name": "Alpha", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "Bravo", "input": {}},
    ]
    tools = [ToolSpec("Alpha"), ToolSpec("Bravo")]
    return ExecutionScenario(tools=tools, tool_uses=uses, recorder=CallRecorder(), cwd=root, session_dir=root)


def _framework(*then: list[dict[str, Any]]) -> Callable[[ScriptedEndpoint], Any]:
    """A hand-made framework: asks for the turn, then sends each of ``then`` appended to the history."""

    async def run(endpoint: ScriptedEndpoint) -> None:
        client = anthropic.AsyncAnthropic(
            api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.async_client(), max_retries=0
        )
        history: list[Any] = [{"role": "user", "content": "Run the tools."}]
        reply = await client.messages.create(model=MODEL, max_tokens=64, messages=history)
        history.append({"role": "assistant", "content": [b.to_dict() for b in reply.content]})
        for messages in then:
            history.extend(messages)
            try:
                await client.messages.create(model=MODEL, max_tokens=64, messages=history)
            except anthropic.BadRequestError:
                return
            history.append({"role": "assistant", "content": "Done."})

    return run


def _result(tool_use_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


def _framework_turn(run: Callable[[ScriptedEndpoint], Any]) -> ExecutionResult:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(framework_turn(_turn_scenario(Path(tmp)), run))


def test_a_rejected_request_is_graded_with_its_rejection() -> None:
    """Defect 4: a request the endpoint rejected with 400 was graded as if the model had seen it."""
    bad = [{"role": "user", "content": [_result("toolu_a", [{"foo": 1}]), _result("toolu_b")]}]
    result = _framework_turn(_framework(bad))
    assert result.rejection == "messages.2.content.0.tool_result.content.0.type: Field required"
    assert [b["tool_use_id"] for b in result.user_content] == ["toolu_a", "toolu_b"]


def test_results_sent_over_several_messages_of_the_turn_are_the_answer() -> None:
    """Defect 4: results in an earlier user message of the turn were missed (a false PAIR-1 failure)."""
    split = [
        {"role": "user", "content": [_result("toolu_a")]},
        {"role": "user", "content": [_result("toolu_b")]},
    ]
    result = _framework_turn(_framework(split))
    assert result.rejection is None
    assert [b["tool_use_id"] for b in result.user_content] == ["toolu_a", "toolu_b"]


def test_the_answer_is_the_turn_after_the_tool_uses_not_the_last_user_message() -> None:
    """Defect 4: a framework that goes on after the results was graded on its later user message."""
    answered = [{"role": "user", "content": [_result("toolu_a"), _result("toolu_b")]}]
    later = [{"role": "user", "content": "And now?"}]
    result = _framework_turn(_framework(answered, later))
    assert [b.get("tool_use_id") for b in result.user_content] == ["toolu_a", "toolu_b"]


# -- 5. tool_result content shapes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            ["a", "b"],
            "tool_result.content.0: Input should be a valid dictionary or object to extract fields from",
        ),
        (
            [1, 2],
            "tool_result.content.0: Input should be a valid dictionary or object to extract fields from",
        ),
        ([{"foo": 1}], "tool_result.content.0.type: Field required"),
        (None, "tool_result.content: Input should be a valid string"),
    ],
)
def test_a_tool_result_content_the_api_rejects_is_rejected(content: Any, expected: str) -> None:
    """Defect 5: these shapes were accepted; one is what the SDK's tool runner sends for a dict result."""
    body = {
        "model": MODEL,
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_a", "name": "Alpha", "input": {}}],
            },
            {"role": "user", "content": [_result("toolu_a", content)]},
        ],
    }
    error = validate_messages_request(body)
    assert error is not None
    assert error.message == f"messages.2.content.0.{expected}"


# -- 6. the SDK's message threads -----------------------------------------------------------------


def test_the_sdk_tool_runner_runs_its_loop_over_message_threads() -> None:
    """Defect 6: the runner's thread ``continue`` (only the new messages) got a misleading 400."""

    @anthropic.beta_tool
    def add(a: int, b: int) -> str:
        """Add two numbers."""
        return str(a + b)

    uses = [{"type": "tool_use", "id": "toolu_a", "name": "add", "input": {"a": 1, "b": 2}}]
    endpoint = ScriptedEndpoint([tool_use_turn(uses)])
    client = anthropic.Anthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.client()
    )
    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=64, tools=[add], messages=[{"role": "user", "content": "Add 1 and 2."}]
    )
    assert [m.stop_reason for m in runner] == ["tool_use", "end_turn"]
    first, second = endpoint.message_requests
    assert first.json["thread"] == {"type": "create"}
    assert second.json["thread"] == {"type": "continue", "previous_message_id": "msg_01Scripted000000000000"}
    assert second.status == 200
    assert [m["role"] for m in second.json["messages"]] == ["user"]
    assert [m["role"] for m in second.conversation] == ["user", "assistant", "user"]
    assert second.conversation[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "3"}
    ]
    assert second.resolved is not None
    assert second.resolved["tools"] == first.json["tools"]


def test_a_lost_thread_is_the_sdks_404_and_a_continued_one_its_400() -> None:
    """Defect 6: the thread errors come with the statuses the SDK maps to its own error types.

    The SDK raises ``ThreadNotFoundError`` only for ``(404, "thread_not_found")`` and
    ``ThreadAlreadyContinuedError`` for ``(400, "thread_already_continued")``; a 400 ``thread_not_found``
    (as the scripted API answered before) reached the SDK as a plain ``BadRequestError``.
    """
    from anthropic.types import ThreadAlreadyContinuedError, ThreadNotFoundError

    from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock

    endpoint = ScriptedEndpoint([AssistantTurn([TextBlock("Hi.")]), AssistantTurn([TextBlock("Hi again.")])])
    client = anthropic.Anthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.client()
    )
    betas = ["message-threads-2026-08-12"]
    user: list[Any] = [{"role": "user", "content": "Hello"}]
    with pytest.raises(ThreadNotFoundError) as lost:
        client.beta.messages.create(
            model=MODEL,
            max_tokens=16,
            messages=user,
            betas=betas,
            extra_body={"thread": {"type": "continue", "previous_message_id": "msg_gone"}},
        )
    assert (lost.value.status_code, lost.value.type, lost.value.error_code) == (
        404,
        "not_found_error",
        "thread_not_found",
    )
    first = client.beta.messages.create(
        model=MODEL, max_tokens=16, messages=user, betas=betas, extra_body={"thread": {"type": "create"}}
    )
    follow_up: list[Any] = [{"role": "user", "content": "Again"}]
    again = {"thread": {"type": "continue", "previous_message_id": first.id}}
    client.beta.messages.create(model=MODEL, max_tokens=16, messages=follow_up, betas=betas, extra_body=again)
    with pytest.raises(ThreadAlreadyContinuedError) as continued:
        client.beta.messages.create(
            model=MODEL, max_tokens=16, messages=follow_up, betas=betas, extra_body=again
        )
    assert continued.value.status_code == 400


# -- found re-verifying the baselines: a Responses image output seen as "" ------------------------


def test_a_responses_image_output_is_seen_as_its_image() -> None:
    """An image-only ``function_call_output`` read as its text alone was ``""``: a false PAIR-4 failure.

    The OpenAI Agents SDK sends a tool's image as ``input_image`` (it did; the baseline blamed it).
    """
    from pytest_toolharness.wire.model_api._messages_view import view_as_messages_body
    from pytest_toolharness.wire.model_api._responses import responses_neutral_request

    image = "data:image/png;base64,iVBORw0KGgo="
    body = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Run the tools."},
            {"type": "function_call", "call_id": "toolu_1", "name": "Alpha", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "toolu_1",
                "output": [
                    {"type": "input_text", "text": "a chart:"},
                    {"type": "input_image", "image_url": image},
                ],
            },
        ],
    }
    messages = view_as_messages_body(responses_neutral_request(body), body)["messages"]
    assert messages[-1]["content"][0]["content"] == [
        {"type": "text", "text": "a chart:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
    ]
