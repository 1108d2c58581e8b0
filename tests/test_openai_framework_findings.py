"""The findings of ``docs/frameworks/openai-agents.md`` and ``smolagents.md``, with the bytes they quote (issue 32).

Each test drives the shipped adapter, so the real SDK and its real OpenAI client, against the scripted
endpoint, and compares the request the SDK sent after the scripted tool-call turn with the page. The
OpenAI client sends compact JSON in the body's own key order, which :func:`wire` reproduces. Skipped
without the framework's extra. The scripted endpoint answers both of the SDK's APIs (Chat Completions and
Responses) as the real ones would, rejecting what they reject.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec
from pytest_toolharness.wire import ScriptedEndpoint

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}
PATHS = {"chat_completions": "/v1/chat/completions", "responses": "/v1/responses"}


OPENAI_AGENTS = [
    pytest.param("make_adapter", "responses", id="responses"),
    pytest.param("make_chat_adapter", "chat_completions", id="chat"),
]


def wire(value: Any) -> str:
    """A wire value as the OpenAI client's request body spells it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _module(framework: str) -> ModuleType:
    return pytest.importorskip(f"pytest_toolharness.adapters.{framework}")


def _run(harness: Any, tools: list[ToolSpec], uses: list[dict[str, Any]], after: int | None = None) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=tools,
            tool_uses=uses,
            recorder=CallRecorder(),
            cwd=Path(tmp),
            session_dir=Path(tmp),
            abort_after_starts=after,
        )
        result = asyncio.run(harness.execute(scenario))
    return scenario.recorder, {b["tool_use_id"]: b for b in result.user_content if "tool_use_id" in b}, result


def _use(call_id: str, name: str, tool_input: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": dict(tool_input or {})}


class _Recorded:
    """The requests an adapter's endpoints received (the adapters build one endpoint per run)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        self.endpoints: list[ScriptedEndpoint] = []
        self.errors: list[BaseException] = []
        original = module._adapter.framework_turn

        async def framework_turn(scenario: Any, run: Any, resume: Any = None, **kwargs: Any) -> Any:
            async def recording_run(endpoint: ScriptedEndpoint) -> object:
                self.endpoints.append(endpoint)
                try:
                    return await run(endpoint)
                except Exception as exc:  # the framework's own error: what a user's run raises
                    self.errors.append(exc)
                    raise

            return await original(scenario, recording_run, resume, **kwargs)

        monkeypatch.setattr(module._adapter, "framework_turn", framework_turn)

    def bodies(self, path: str) -> list[Any]:
        return [r.json for e in self.endpoints for r in e.requests if r.path == path]


def _outputs(body: Mapping[str, Any], api: str) -> list[str]:
    """The tool outputs of a request, each as its bytes."""
    if api == "responses":
        return [wire(i) for i in body["input"] if i.get("type") == "function_call_output"]
    return [wire(m) for m in body["messages"] if m.get("role") == "tool"]


# -- openai-agents -------------------------------------------------------------------------------


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_sends_an_empty_output_empty(
    monkeypatch: pytest.MonkeyPatch, factory: str, api: str
) -> None:
    """PAIR-4: a tool returning ``""`` is answered with an empty output, no placeholder."""
    module = _module("openai_agents")
    recorded = _Recorded(monkeypatch, module)
    tools = [ToolSpec("Empty", input_schema=SCHEMA, behavior=ToolBehavior("empty"))]
    _, by_id, _ = _run(getattr(module, factory)().new_harness(), tools, [_use("toolu_1", "Empty")])
    assert by_id["toolu_1"]["content"] == ""
    expected = {
        "responses": '{"call_id":"toolu_1","output":"","type":"function_call_output"}',
        "chat_completions": '{"role":"tool","tool_call_id":"toolu_1","content":""}',
    }[api]
    assert _outputs(recorded.bodies(PATHS[api])[1], api) == [expected]


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_fails_the_run_on_an_unknown_tool(
    monkeypatch: pytest.MonkeyPatch, factory: str, api: str
) -> None:
    """PAIR-2: a call of an unknown tool ends the run (ModelBehaviorError): no call of the batch is answered."""
    module = _module("openai_agents")
    recorded = _Recorded(monkeypatch, module)
    tools = [ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done"))]
    recorder, by_id, _ = _run(
        getattr(module, factory)().new_harness(),
        tools,
        [_use("toolu_1", "Alpha"), _use("toolu_2", "Missing")],
    )
    assert by_id == {}
    assert recorder.started() == []  # the run ends before any tool runs
    assert len(recorded.bodies(PATHS[api])) == 1
    assert [f"{type(e).__name__}: {e}" for e in recorded.errors] == [
        "ModelBehaviorError: Tool Missing not found in agent toolharness"
    ]


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_runs_input_that_breaks_the_schema(
    monkeypatch: pytest.MonkeyPatch, factory: str, api: str
) -> None:
    """EXEC-1, PAIR-3: a raw-schema tool (``strict_json_schema=False``) runs on ``{"n": "x"}`` and succeeds."""
    module = _module("openai_agents")
    recorded = _Recorded(monkeypatch, module)
    tools = [ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done"))]
    recorder, _, _ = _run(
        getattr(module, factory)().new_harness(), tools, [_use("toolu_4", "Alpha", {"n": "x"})]
    )
    assert recorder.started() == ["toolu_4"]
    expected = {
        "responses": '{"call_id":"toolu_4","output":"a done","type":"function_call_output"}',
        "chat_completions": '{"role":"tool","tool_call_id":"toolu_4","content":"a done"}',
    }[api]
    assert _outputs(recorded.bodies(PATHS[api])[1], api) == [expected]


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_hides_what_went_wrong(monkeypatch: pytest.MonkeyPatch, factory: str, api: str) -> None:
    """PAIR-3: a raising tool is answered by ``default_tool_error_function``, which leaves out the error.

    The fixed text is the installed SDK's own (0.25 dropped "Please try again."): the finding is that
    the answer is that text and never says what went wrong, not one release's wording.
    """
    module = _module("openai_agents")
    agents = pytest.importorskip("agents")
    recorded = _Recorded(monkeypatch, module)
    tools = [ToolSpec("Boom", input_schema=SCHEMA, behavior=ToolBehavior("raise", message="disk full"))]
    _run(getattr(module, factory)().new_harness(), tools, [_use("toolu_3", "Boom")])
    text = agents.default_tool_error_function(None, RuntimeError("disk full"))
    assert "disk full" not in text
    expected = {
        "responses": f'{{"call_id":"toolu_3","output":"{text}","type":"function_call_output"}}',
        "chat_completions": f'{{"role":"tool","tool_call_id":"toolu_3","content":"{text}"}}',
    }[api]
    assert _outputs(recorded.bodies(PATHS[api])[1], api) == [expected]


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_overlaps_a_tool_that_is_not_concurrency_safe(factory: str, api: str) -> None:
    """CONC-1: every function call of a turn runs at once; a tool can't ask to run alone."""
    module = _module("openai_agents")
    tools = [
        ToolSpec(
            "Write", input_schema=SCHEMA, concurrency_safe=False, behavior=ToolBehavior("sleep", seconds=0.05)
        ),
        ToolSpec("Read", input_schema=SCHEMA, behavior=ToolBehavior("sleep", seconds=0.05)),
    ]
    recorder, _, _ = _run(
        getattr(module, factory)().new_harness(), tools, [_use("toolu_1", "Write"), _use("toolu_2", "Read")]
    )
    assert [(e.kind, e.tool_use_id) for e in recorder.events][:2] == [
        ("start", "toolu_1"),
        ("start", "toolu_2"),
    ]


@pytest.mark.parametrize(("factory", "api"), OPENAI_AGENTS)
def test_openai_agents_session_forgets_a_cancelled_batch(
    monkeypatch: pytest.MonkeyPatch, factory: str, api: str
) -> None:
    """CONC-5: cancelled, the run's session keeps only the prompt: resumed, it sends no call and no output.

    The finished call ran (its side effects are done) and the model never learns of it.
    """
    module = _module("openai_agents")
    recorded = _Recorded(monkeypatch, module)
    tools = [
        ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Bravo", input_schema=SCHEMA, behavior=ToolBehavior("hang")),
    ]
    recorder, by_id, _ = _run(
        getattr(module, factory)().new_harness(),
        tools,
        [_use("toolu_1", "Alpha"), _use("toolu_2", "Bravo")],
        after=2,
    )
    assert sorted(recorder.started()) == ["toolu_1", "toolu_2"]
    assert by_id == {}
    resumed = recorded.bodies(PATHS[api])[1]
    history = resumed["input"] if api == "responses" else resumed["messages"]
    assert (
        wire(history)
        == {
            "responses": '[{"content":"Run the tools.","role":"user"}]',
            "chat_completions": '[{"role":"user","content":"Run the tools."}]',
        }[api]
    )


def test_openai_agents_sends_a_deferred_and_a_loaded_tool_of_one_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PAIR-6 (Responses): a deferred and a loaded tool of one name are both sent, with a warning only.

    The SDK refuses two deferred tools of one name (``UserError``) and sends one of two loaded ones, but a
    deferred ``ReadFile`` beside a loaded ``ReadFile`` goes out twice in one tools array.
    """
    module = _module("openai_agents")
    endpoints: list[ScriptedEndpoint] = []

    class Recording(ScriptedEndpoint):
        def __init__(self, *args: Any, **options: Any) -> None:
            super().__init__(*args, **options)
            endpoints.append(self)

    monkeypatch.setattr(module._adapter, "ScriptedEndpoint", Recording)
    harness = module.make_adapter().new_harness()
    deferred = ToolSpec("ReadFile", description="The ReadFile tool.", should_defer=True)
    harness.render_tools([deferred, ToolSpec("ReadFile", description="The ReadFile tool.")], [])
    (request,) = endpoints[0].requests
    assert wire(request.json["tools"]) == (
        '[{"name":"ReadFile","parameters":{"type":"object","properties":{}},"strict":false,"type":"function",'
        '"description":"The ReadFile tool.","defer_loading":true},{"name":"ReadFile","parameters":{"type":'
        '"object","properties":{}},"strict":false,"type":"function","description":"The ReadFile tool."},'
        '{"type":"tool_search"}]'
    )


def test_openai_agents_on_chat_says_it_defers_nothing() -> None:
    """The Chat Completions harness's own deferral rule is what it sends: nothing deferred.

    Chat Completions has no deferred loading, so the tool goes out without ``defer_loading``; a harness
    saying it defers the tool (the framework default) made CACHE-3's overlay test blame the SDK for the
    adapter's claim (a false finding in the Chat baseline's check).
    """
    module = _module("openai_agents")
    harness = module.make_chat_adapter().new_harness()
    spec = ToolSpec(
        "mcp__slack__send", description="send.", should_defer=True, mcp_server="slack", mcp_tool="send"
    )
    assert harness.is_deferred(spec) is False
    (sent,) = [t for t in harness.render_tools([], [spec]) if t.get("name") == spec.name]
    assert "defer_loading" not in sent
    assert module.make_adapter().new_harness().is_deferred(spec) is True


# -- smolagents ----------------------------------------------------------------------------------


def test_smolagents_sends_a_batch_back_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """PAIR-1, PAIR-4: the calls go back as one text message, the outputs as one ``Observation:`` text.

    No ``tool`` message answers a call, nothing ties an output to its call, and the empty output is gone.
    """
    module = _module("smolagents")
    recorded = _Recorded(monkeypatch, module)
    tools = [
        ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Empty", input_schema=SCHEMA, behavior=ToolBehavior("empty")),
    ]
    _, by_id, result = _run(
        module.make_adapter().new_harness(), tools, [_use("toolu_1", "Alpha"), _use("toolu_2", "Empty")]
    )
    assert by_id == {}
    messages = recorded.bodies(PATHS["chat_completions"])[1]["messages"]
    assert [wire(m) for m in messages[2:]] == [
        '{"role":"assistant","content":[{"type":"text","text":"Calling tools:\\n[{\'id\': \'toolu_1\', \'type\': '
        "'function', 'function': {'name': 'Alpha', 'arguments': {}}}, {'id': 'toolu_2', 'type': 'function', "
        "'function': {'name': 'Empty', 'arguments': {}}}]\"}]}",
        '{"role":"user","content":[{"type":"text","text":"Observation:\\na done"}]}',
    ]
    assert result.user_content == [{"type": "text", "text": "Observation:\na done"}]


def test_smolagents_erases_the_batch_when_one_call_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """PAIR-2, PAIR-3: one raising call: neither the calls nor any output is sent, only the error, in the task."""
    module = _module("smolagents")
    recorded = _Recorded(monkeypatch, module)
    tools = [
        ToolSpec("Alpha", input_schema=SCHEMA, behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Boom", input_schema=SCHEMA, behavior=ToolBehavior("raise", message="disk full")),
    ]
    recorder, by_id, _ = _run(
        module.make_adapter().new_harness(), tools, [_use("toolu_1", "Alpha"), _use("toolu_2", "Boom")]
    )
    assert sorted(recorder.started()) == ["toolu_1", "toolu_2"]
    assert by_id == {}
    messages = recorded.bodies(PATHS["chat_completions"])[1]["messages"]
    assert wire(messages[1:]) == (
        '[{"role":"user","content":[{"type":"text","text":"New task:\\nRun the tools.\\nError:\\nError executing '
        "tool 'Boom' with arguments {}: ScriptedToolError: disk full\\nPlease try again or use another tool\\nNow "
        "let's retry: take care not to repeat previous errors! If you have retried several times, try a completely "
        'different approach.\\n"}]}]'
    )


def test_smolagents_overlaps_a_tool_that_is_not_concurrency_safe() -> None:
    """CONC-1: a batch of several calls runs in a thread pool, all at once; a tool can't ask to run alone."""
    module = _module("smolagents")
    tools = [
        ToolSpec(
            "Write", input_schema=SCHEMA, concurrency_safe=False, behavior=ToolBehavior("sleep", seconds=0.05)
        ),
        ToolSpec("Read", input_schema=SCHEMA, behavior=ToolBehavior("sleep", seconds=0.05)),
    ]
    recorder, _, _ = _run(
        module.make_adapter().new_harness(), tools, [_use("toolu_1", "Write"), _use("toolu_2", "Read")]
    )
    assert sorted(e.kind for e in recorder.events[:2]) == ["start", "start"]


def test_smolagents_refuses_an_argument_the_schema_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    """CONC-2: an argument its tool's inputs do not list is refused, though the JSON schema allows it."""
    module = _module("smolagents")
    recorded = _Recorded(monkeypatch, module)
    tools = [ToolSpec("Search", input_schema=SCHEMA, behavior=ToolBehavior("text", text="done"))]
    recorder, _, _ = _run(
        module.make_adapter().new_harness(), tools, [_use("toolu_1", "Search", {"n": 1, "cached": True})]
    )
    assert recorder.started() == []
    text = recorded.bodies(PATHS["chat_completions"])[1]["messages"][-1]["content"][0]["text"]
    assert "Error:\nArgument cached is not in the tool's input schema\n" in text


def test_smolagents_gets_an_mcp_tool_under_the_name_its_mcp_path_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SNAP-1 glue: an MCP tool is named as mcpadapt names it, and called and reported by that name.

    smolagents refuses a name that is no Python identifier (``mcp__slack-slack__slack``); its MCP path
    (``ToolCollection.from_mcp``, mcpadapt) names the tool ``my_slack`` from its MCP name ``my-slack``.
    The request carries that name, the scripted call by that name runs the spec's behaviour, and
    ``render_tools`` reports the tool under the spec's name.
    """
    module = _module("smolagents")
    spec = ToolSpec(
        "mcp__slack-slack__my-slack",
        description="send.",
        input_schema=SCHEMA,
        mcp_server="slack-slack",
        mcp_tool="my-slack",
        behavior=ToolBehavior("text", text="sent"),
    )
    with pytest.raises(Exception, match=r"Invalid Tool name 'mcp__slack-slack__my-slack'"):
        module.make_tool(replace(spec, mcp_tool=None))  # a tool named as the suite names it
    assert module.smolagents_name(spec) == "my_slack"
    recorded = _Recorded(monkeypatch, module)
    recorder, _, _ = _run(module.make_adapter().new_harness(), [spec], [_use("toolu_1", spec.name, {"n": 1})])
    assert recorder.started() == ["toolu_1"]
    first = recorded.bodies(PATHS["chat_completions"])[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["my_slack", "final_answer"]
    rendered = module.make_adapter().new_harness().render_tools([], [spec])
    assert [t["name"] for t in rendered] == [spec.name, "final_answer"]
