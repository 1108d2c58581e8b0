"""The pydantic-ai adapter: the suite's scripted tools run by a real ``pydantic_ai.Agent``.

The agent's model is pydantic-ai's own ``AnthropicModel`` on an ``anthropic.AsyncAnthropic`` client whose
transport is a :class:`~pytest_toolharness.wire.ScriptedEndpoint`: pydantic-ai's tool calling, its
error handling and its encoding of tool results run as they do in production, and the suite reads the
request the API would get.

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes ``Tool.from_schema`` with the spec's JSON
schema; a tool that is not concurrency safe is ``sequential`` (pydantic-ai's own barrier). A tool's own
validation (``rejects_when``) raises ``ModelRetry``, pydantic-ai's way for a tool to refuse its input.
The user's agent: ``toolharness_agent = "package.module:factory"``, called as ``factory(model, tools)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anthropic import AsyncAnthropic
from pydantic_ai import Agent, BinaryContent, ModelRetry, RunContext, Tool
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from pytest_toolharness.adapters import ExecutionResult, ExecutionScenario, ToolSpec
from pytest_toolharness.adapters.framework import (
    DEFAULT_MODEL,
    PROMPT,
    agent_factory,
    framework_turn,
    run_behavior,
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
        if output.kind == "image":
            return BinaryContent(data=output.image_png, media_type="image/png")
        return output.value if output.kind == "json" else output.text

    return Tool.from_schema(
        call,
        name=spec.name,
        description=spec.description,
        json_schema=dict(spec.input_schema),
        takes_ctx=True,
        sequential=not spec.concurrency_safe,
    )


class PydanticAiHarness:
    """One session: a fresh agent per batch, built by the user's factory or ``Agent(model, tools=...)``."""

    def __init__(self, factory: AgentFactory | None) -> None:
        self._factory = factory

    def _agent(self, model: AnthropicModel, tools: list[Tool[Any]], timeout: float | None) -> Agent[Any, Any]:
        if self._factory is not None:
            return self._factory(model, tools)
        return Agent(model, tools=tools, tool_timeout=timeout)

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let pydantic-ai run the scenario's tool_use turn; its next request holds the results."""

        async def run(endpoint: ScriptedEndpoint) -> object:
            tools = [_tool(spec, scenario) for spec in scenario.tools]
            agent = self._agent(_model(endpoint), tools, scenario.call_timeout)
            return await agent.run(PROMPT)

        return await framework_turn(scenario, run)

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The tools array pydantic-ai sends for these tools."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None) for spec in [*builtin, *mcp]]

        async def run() -> None:
            await self._agent(_model(endpoint), tools, None).run(PROMPT)

        asyncio.run(run())
        return [dict(t) for t in endpoint.message_requests[0].tools if isinstance(t, Mapping)]


class PydanticAiAdapter:
    """The adapter: ``execution`` (with ``timeouts``) and ``schemas``, profile ``core``."""

    name = "pydantic-ai (pytest-toolharness)"
    profiles = frozenset({"core"})
    capabilities = frozenset({"execution", "timeouts", "schemas"})

    def __init__(self, factory: AgentFactory | None = None) -> None:
        self._factory = factory
        self.not_applicable = {
            "RESULT-1": "pydantic-ai has no persistence of large tool results; it sends every result inline",
        }

    def new_harness(self) -> PydanticAiHarness:
        """A fresh session."""
        return PydanticAiHarness(self._factory)


def make_adapter(config: Any = None) -> PydanticAiAdapter:
    """The adapter factory; ``config`` (the pytest config) names the user's agent factory, if any."""
    return PydanticAiAdapter(agent_factory(config))
