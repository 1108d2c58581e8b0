"""The openai-agents adapter: the suite's scripted tools run by a real ``agents.Agent`` and ``Runner``.

The agent's model is the SDK's own ``OpenAIResponsesModel`` (the SDK's default API) or
``OpenAIChatCompletionsModel`` on an ``openai.AsyncOpenAI`` client whose transport is a
:class:`~pytest_toolharness.wire.ScriptedEndpoint`: the SDK's tool calling, its error handling and its
encoding of tool outputs run as in production, and the suite reads the request the API would get.

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes a ``FunctionTool`` with the spec's JSON schema
as ``params_json_schema`` (``strict_json_schema=False``: a raw schema, as the SDK's MCP tools are) and the
failure policy of ``@function_tool`` and of MCP tools: a raising tool is answered by
``default_tool_error_function``. A tool's own validation (``rejects_when``) returns its message, the SDK's
documented way for a tool to refuse ("return a string error message"); ``call_timeout`` is the tool's
``timeout_seconds``. The user's agent: ``toolharness_agent = "package.module:factory"``, called as
``factory(model, tools)`` and returning an ``Agent``.

Every run keeps its items in a ``SQLiteSession`` (in memory): an abort cancels ``Runner.run``
(``task.cancel()``), and the session resumes as an SDK user resumes one, ``Runner.run(agent, [],
session=session)``; the request that resume sends is what the model sees of the batch.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    MaxTurnsExceeded,
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    SQLiteSession,
    ToolOutputImage,
    ToolOutputText,
    ToolSearchTool,
    set_tracing_disabled,
)
from agents.tool import set_function_tool_failure_error_function, with_function_tool_failure_error_handler
from agents.tool_context import ToolContext
from openai import AsyncOpenAI

from pytest_toolharness.adapters import (
    ExecutionResult,
    ExecutionScenario,
    LoopPromptResult,
    LoopRun,
    LoopScenario,
    ToolSpec,
    WireRequest,
)
from pytest_toolharness.adapters._framework_loop import loop_endpoint, loop_requests, loop_tools_scenario
from pytest_toolharness.adapters._openai_answers import (
    CHAT_COMPLETIONS,
    RESPONSES,
    endpoint_answer,
    first_request,
    messages_view,
    sent_tools,
    served,
)
from pytest_toolharness.adapters.framework import (
    PROMPT,
    Transcript,
    TranscriptSession,
    agent_factory,
    deferred,
    framework_turn,
    run_behavior,
    text_of_result,
)
from pytest_toolharness.wire import AssistantTurn, RecordedRequest, ScriptedEndpoint

__all__ = [
    "APIS",
    "DEFAULT_MODEL",
    "OpenAiAgentsAdapter",
    "OpenAiAgentsHarness",
    "make_adapter",
    "make_chat_adapter",
]

AgentFactory = Callable[[Model, list[FunctionTool]], Agent[Any]]

DEFAULT_MODEL = "gpt-5.1"
APIS = {"responses": RESPONSES, "chat_completions": CHAT_COMPLETIONS}
"""The SDK's two model APIs, by the name the adapter takes, and the path each posts to."""

_SESSIONS = itertools.count(1)

# The SDK exports traces to OpenAI by default: a check sends nothing anywhere but the scripted endpoint.
set_tracing_disabled(True)


def _model(endpoint: ScriptedEndpoint, api: str) -> Model:
    client = AsyncOpenAI(
        api_key="scripted",
        base_url=f"{endpoint.base_url}/v1",
        http_client=endpoint.async_client(),
        max_retries=0,
    )
    if api == "chat_completions":
        return OpenAIChatCompletionsModel(DEFAULT_MODEL, openai_client=client)
    return OpenAIResponsesModel(DEFAULT_MODEL, openai_client=client)


def _not_reported(*_: object) -> None:
    """The SDK's hook for logging a handled tool error (the suite reads the request instead)."""


def _tool(spec: ToolSpec, scenario: ExecutionScenario | None, api: str) -> FunctionTool:
    async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
        if scenario is None:
            return ""
        tool_input = json.loads(arguments) if arguments else {}
        if not isinstance(tool_input, Mapping):
            # A function tool takes keyword arguments: a non-object input fails in the tool, as it would.
            raise TypeError(f"{spec.name} takes an object, got {arguments}")
        try:
            output = await run_behavior(spec, ctx.tool_call_id, tool_input, scenario)
        except ValueError as exc:
            return str(exc)
        if output.kind == "blocks":
            # Every block of the result, as the SDK's structured outputs (a list of them is one output).
            return [
                ToolOutputImage(
                    image_url=f"data:image/png;base64,{base64.b64encode(part.image_png).decode()}"
                )
                if part.kind == "image"
                else ToolOutputText(text=part.text)
                for part in output.parts
            ]
        return output.text

    tool = FunctionTool(
        name=spec.name,
        description=spec.description,
        params_json_schema=dict(spec.input_schema),
        on_invoke_tool=with_function_tool_failure_error_handler(invoke, _not_reported),
        strict_json_schema=False,
        timeout_seconds=None if scenario is None else scenario.call_timeout,
        # Hidden until the Responses API's hosted tool search loads it (the default agent adds it);
        # Chat Completions has no deferred loading.
        defer_loading=api == "responses" and deferred(spec),
    )
    return set_function_tool_failure_error_function(tool)


def _items(transcript: Transcript) -> list[dict[str, Any]]:
    """The transcript as the SDK's input items (the Responses item shapes it takes for both APIs)."""
    items: list[dict[str, Any]] = []
    for message in transcript.messages:
        role = str(message.get("role"))
        for block in transcript.blocks(message):
            if block.get("type") == "text":
                items.append({"role": role, "content": str(block.get("text", ""))})
            elif block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input") or {})
                items.append(
                    {
                        "type": "function_call",
                        "call_id": block["id"],
                        "name": block["name"],
                        "arguments": arguments,
                    }
                )
            elif block.get("type") == "tool_result":
                output = text_of_result(block)
                items.append(
                    {"type": "function_call_output", "call_id": block["tool_use_id"], "output": output}
                )
    return items


class OpenAiAgentsHarness(TranscriptSession):
    """One session: a fresh agent per batch, built by the user's factory or ``Agent(...)``."""

    def __init__(self, factory: AgentFactory | None, api: str) -> None:
        super().__init__()
        self._factory = factory
        self._api = api

    def is_deferred(self, spec: ToolSpec) -> bool:
        """Whether the tool is sent with ``defer_loading``: as its spec asks on Responses, never on Chat.

        Chat Completions has no deferred loading (``_tool`` builds every tool loaded there).
        """
        return self._api == "responses" and deferred(spec)

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The SDK's request for the transcript, read as the Messages API's ``tools`` and ``messages``.

        ``enable_tool_search`` is Claude Code's, unused. A transcript the SDK refuses before sending
        raises ``ValueError`` with the SDK's error.
        """
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None, self._api) for spec in self._transcript.tools]
        items = _items(self._transcript)

        async def run() -> None:
            await Runner.run(self._agent(_model(endpoint, self._api), tools), items)  # type: ignore[arg-type]

        return WireRequest(body=messages_view(self._sent(endpoint, run)))

    def _sent(
        self, endpoint: ScriptedEndpoint, run: Callable[[], Coroutine[Any, Any, None]]
    ) -> RecordedRequest:
        error: BaseException | None = None
        try:
            asyncio.run(run())
        except Exception as exc:  # the SDK refused (UserError) before sending, or the API rejected it
            error = exc
        return first_request(endpoint, APIS[self._api], error)

    def _agent(self, model: Model, tools: list[FunctionTool]) -> Agent[Any]:
        if self._factory is not None:
            return self._factory(model, tools)
        searching = any(tool.defer_loading for tool in tools)
        return Agent(
            name="toolharness", model=model, tools=[*tools, ToolSearchTool()] if searching else list(tools)
        )

    async def run_loop(self, scenario: LoopScenario) -> LoopRun:
        """Each prompt a ``Runner.run`` of one session (``max_turns``); the requests read as the Messages API's.

        A prompt's run that raises (an unknown tool) ends it; the next prompt goes on in the session.
        """
        endpoint = loop_endpoint(scenario)
        carrier = loop_tools_scenario(scenario)
        agent = self._agent(
            _model(endpoint, self._api), [_tool(spec, carrier, self._api) for spec in scenario.tools]
        )
        session = SQLiteSession(f"toolharness-{next(_SESSIONS)}")
        prompts: list[LoopPromptResult] = []
        for prompt in scenario.prompts:
            try:
                await Runner.run(agent, prompt, session=session, max_turns=scenario.max_turns)
                prompts.append(LoopPromptResult("end_turn"))
            except MaxTurnsExceeded:
                prompts.append(LoopPromptResult("max_turns"))
            except Exception as exc:  # the SDK's own error ends the prompt's run
                prompts.append(LoopPromptResult("error", [f"{type(exc).__name__}: {exc}"]))
        return LoopRun(requests=loop_requests(endpoint, APIS[self._api]), prompts=prompts)

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let the SDK run the scenario's tool-call turn; its next request holds the outputs."""
        tools = [_tool(spec, scenario, self._api) for spec in scenario.tools]
        session = SQLiteSession(f"toolharness-{next(_SESSIONS)}")
        agents: list[Agent[Any]] = []

        async def run(endpoint: ScriptedEndpoint) -> object:
            agents.append(self._agent(_model(endpoint, self._api), tools))
            return await Runner.run(agents[0], PROMPT, session=session)

        async def resume(endpoint: ScriptedEndpoint) -> object:
            return await Runner.run(agents[0], [], session=session)

        return await framework_turn(
            scenario, run, resume, answer=lambda endpoint: endpoint_answer(endpoint, APIS[self._api])
        )

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The function tools the SDK sends for these tools, each with its ``name`` at the top."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None, self._api) for spec in [*builtin, *mcp]]

        async def run() -> None:
            await Runner.run(self._agent(_model(endpoint, self._api), tools), PROMPT)

        return sent_tools(self._sent(endpoint, run).json)


class OpenAiAgentsAdapter:
    """The adapter: ``execution`` (``timeouts``, ``abort``), ``transcript``, ``schemas``, ``agent_loop``; ``core``.

    On the Responses API ``classification`` too: a deferred tool is a ``FunctionTool(defer_loading=True)``
    beside the hosted ``ToolSearchTool``, which Chat Completions does not have.
    """

    profiles = frozenset({"core"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("agents", "litellm", "openai")

    def __init__(self, factory: AgentFactory | None = None, api: str = "responses") -> None:
        if api not in APIS:
            raise ValueError(f"openai-agents adapter: unknown api {api!r}, expected one of {sorted(APIS)}")

        self._factory = factory
        self._api = api
        self.name = f"openai-agents {api} (pytest-toolharness)"
        common = {"execution", "timeouts", "abort", "transcript", "schemas", "agent_loop"}
        self.capabilities = frozenset(common | ({"classification"} if api == "responses" else set()))
        self.not_applicable: dict[str, str] = {}
        if api == "chat_completions":
            self.not_applicable["PAIR-8"] = (
                "Chat Completions delivers no reasoning with tool calls, so there is none to send back"
            )
        else:
            # Responses delivers reasoning items with the calls (PAIR-8).
            self.capabilities = self.capabilities | {"reasoning"}

    def new_harness(self) -> OpenAiAgentsHarness:
        """A fresh session."""
        return OpenAiAgentsHarness(self._factory, self._api)


def _served(api: str) -> str:
    """``api``, once the scripted server is known to answer it (else the check would blame the SDK for a 404)."""
    if not served(f"/v1{APIS[api]}"):
        raise RuntimeError(
            f"openai-agents adapter: the scripted server does not answer /v1{APIS[api]} yet "
            "(issue 32: its scripted server), so the SDK's runs can't be checked on that API"
        )
    return api


def make_adapter(config: Any = None) -> OpenAiAgentsAdapter:
    """The adapter on the Responses API (the SDK's default); ``config`` names the user's agent factory."""
    return OpenAiAgentsAdapter(agent_factory(config), _served("responses"))


def make_chat_adapter(config: Any = None) -> OpenAiAgentsAdapter:
    """The adapter on the Chat Completions API (``OpenAIChatCompletionsModel``)."""
    return OpenAiAgentsAdapter(agent_factory(config), _served("chat_completions"))
