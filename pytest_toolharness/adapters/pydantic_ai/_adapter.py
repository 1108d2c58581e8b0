"""The pydantic-ai adapter: the suite's scripted tools run by a real ``pydantic_ai.Agent``.

The agent's model is pydantic-ai's own ``AnthropicModel`` on an ``anthropic.AsyncAnthropic`` client whose
transport is a :class:`~pytest_toolharness.wire.ScriptedEndpoint`: pydantic-ai's tool calling, its
error handling and its encoding of tool results run as they do in production, and the suite reads the
request the API would get.

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes ``Tool.from_schema`` with the spec's JSON
schema; a tool that is not concurrency safe is ``sequential`` (pydantic-ai's own barrier), and a tool that
declares nothing (``declares_nothing``, CONC-3) gets pydantic-ai's default, ``sequential=False``. A tool's own
validation (``rejects_when``) raises ``ModelRetry``, pydantic-ai's way for a tool to refuse its input.
The user's agent: ``toolharness_agent = "package.module:factory"``, called as ``factory(model, tools)``.

An abort cancels ``agent.run`` (``task.cancel()``) inside ``capture_run_messages``; the session then
resumes as a pydantic-ai user resumes one, ``agent.run(message_history=saved)``, and pydantic-ai's own
history repair answers the batch. A transcript becomes pydantic-ai's message history
(``ModelRequest`` / ``ModelResponse`` parts); ``render_request`` runs the agent on it and returns the
request pydantic-ai's client sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anthropic import AsyncAnthropic
from pydantic_ai import Agent, BinaryContent, ModelRetry, RunContext, Tool, capture_run_messages
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from pytest_toolharness.adapters import ExecutionResult, ExecutionScenario, ToolSpec, WireRequest
from pytest_toolharness.adapters.framework import (
    DEFAULT_MODEL,
    PROMPT,
    Transcript,
    TranscriptSession,
    agent_factory,
    deferred,
    framework_turn,
    recorded_request,
    run_behavior,
    text_of_result,
)
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint

__all__ = ["PydanticAiAdapter", "PydanticAiHarness", "make_adapter"]

AgentFactory = Callable[[AnthropicModel, list[Tool[Any]]], Agent[Any, Any]]


def _model(endpoint: ScriptedEndpoint) -> AnthropicModel:
    client = AsyncAnthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.async_client(), max_retries=0
    )
    return AnthropicModel(DEFAULT_MODEL, provider=AnthropicProvider(anthropic_client=client))


def _tool(spec: ToolSpec, scenario: ExecutionScenario | None) -> Tool[Any]:
    async def call(ctx: RunContext[Any], **tool_input: Any) -> Any:
        if scenario is None:
            return ""
        try:
            output = await run_behavior(spec, str(ctx.tool_call_id), tool_input, scenario)
        except ValueError as exc:
            raise ModelRetry(str(exc)) from exc
        if output.kind == "blocks":
            # pydantic-ai's multi-part tool return: a list of its content parts, in order.
            return [
                BinaryContent(data=part.image_png, media_type="image/png")
                if part.kind == "image"
                else part.text
                for part in output.parts
            ]
        return output.value if output.kind == "json" else output.text

    tool = Tool.from_schema(
        call,
        name=spec.name,
        description=spec.description,
        json_schema=dict(spec.input_schema),
        takes_ctx=True,
        # declares_nothing: pydantic-ai's own default (Tool(sequential=False), tools.py). A tool is
        # sequential or not for every call, so one whose safety depends on the input is sequential.
        sequential=False
        if spec.declares_nothing
        else spec.concurrency_safe_when is not None or not spec.concurrency_safe,
    )
    # Tool(defer_loading=True), which from_schema does not take: pydantic-ai's ToolSearch capability
    # (injected into every agent) then sends it with defer_loading beside Anthropic's tool search tool.
    tool.defer_loading = deferred(spec)
    return tool


def _history(transcript: Transcript) -> list[ModelMessage]:
    """The transcript as pydantic-ai's message history, part for block."""
    names = transcript.tool_names()
    history: list[ModelMessage] = []
    for message in transcript.messages:
        blocks = transcript.blocks(message)
        if message.get("role") == "assistant":
            response: list[ModelResponsePart] = []
            for block in blocks:
                if block.get("type") == "text":
                    response.append(TextPart(str(block.get("text", ""))))
                elif block.get("type") == "tool_use":
                    args = dict(block.get("input") or {})
                    response.append(ToolCallPart(str(block["name"]), args, tool_call_id=str(block["id"])))
            history.append(ModelResponse(parts=response, model_name=DEFAULT_MODEL))
            continue
        request: list[ModelRequestPart] = []
        for block in blocks:
            if block.get("type") == "tool_result":
                call_id = str(block["tool_use_id"])
                name, text = names.get(call_id, ""), text_of_result(block)
                if block.get("is_error"):
                    request.append(RetryPromptPart(text, tool_name=name, tool_call_id=call_id))
                else:
                    request.append(ToolReturnPart(name, text, tool_call_id=call_id))
            elif block.get("type") == "text":
                request.append(UserPromptPart(str(block.get("text", ""))))
        history.append(ModelRequest(parts=request))
    return history


class PydanticAiHarness(TranscriptSession):
    """One session: a fresh agent per batch, built by the user's factory or ``Agent(model, tools=...)``."""

    def __init__(self, factory: AgentFactory | None) -> None:
        super().__init__()
        self._factory = factory

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The request pydantic-ai sends for the history (``enable_tool_search`` is Claude Code's, unused)."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None) for spec in self._transcript.tools]
        history = _history(self._transcript)
        error: BaseException | None = None

        async def run() -> None:
            await self._agent(_model(endpoint), tools, None).run(message_history=history)

        try:
            asyncio.run(run())
        except Exception as exc:  # pydantic-ai refused (UserError) before sending, or the API rejected it
            error = exc
        return recorded_request(endpoint, error)

    def _agent(self, model: AnthropicModel, tools: list[Tool[Any]], timeout: float | None) -> Agent[Any, Any]:
        if self._factory is not None:
            return self._factory(model, tools)
        return Agent(model, tools=tools, tool_timeout=timeout)

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let pydantic-ai run the scenario's tool_use turn; its next request holds the results."""
        tools = [_tool(spec, scenario) for spec in scenario.tools]
        saved: list[ModelMessage] = []

        async def run(endpoint: ScriptedEndpoint) -> object:
            agent = self._agent(_model(endpoint), tools, scenario.call_timeout)
            with capture_run_messages() as messages:
                try:
                    return await agent.run(PROMPT)
                finally:
                    saved[:] = messages

        async def resume(endpoint: ScriptedEndpoint) -> object:
            agent = self._agent(_model(endpoint), tools, scenario.call_timeout)
            return await agent.run(message_history=list(saved))

        return await framework_turn(scenario, run, resume)

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The tools array pydantic-ai sends for these tools."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None) for spec in [*builtin, *mcp]]

        async def run() -> None:
            await self._agent(_model(endpoint), tools, None).run(PROMPT)

        asyncio.run(run())
        return [dict(t) for t in endpoint.message_requests[0].tools if isinstance(t, Mapping)]


class PydanticAiAdapter:
    """The adapter: ``execution`` (``timeouts``, ``abort``), ``transcript``, ``classification``, ``schemas``; ``core``."""

    name = "pydantic-ai (pytest-toolharness)"
    profiles = frozenset({"core"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("pydantic_ai",)
    capabilities = frozenset({"execution", "timeouts", "abort", "transcript", "classification", "schemas"})

    def __init__(self, factory: AgentFactory | None = None) -> None:
        self._factory = factory

    def new_harness(self) -> PydanticAiHarness:
        """A fresh session."""
        return PydanticAiHarness(self._factory)


def make_adapter(config: Any = None) -> PydanticAiAdapter:
    """The adapter factory; ``config`` (the pytest config) names the user's agent factory, if any."""
    return PydanticAiAdapter(agent_factory(config))
