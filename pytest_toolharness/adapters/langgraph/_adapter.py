"""The LangGraph adapter: the suite's scripted tools run by LangGraph's ``ToolNode`` in a real graph.

The graph is LangGraph's classic tool loop (``StateGraph(MessagesState)``: a model node, a
``ToolNode``, ``tools_condition``); the model is ``langchain_anthropic.ChatAnthropic`` whose
``anthropic.AsyncAnthropic`` client sends to a :class:`~pytest_toolharness.wire.ScriptedEndpoint`, so
LangGraph's tool calling, its error handling and langchain-anthropic's encoding of tool results run as
in production, and the suite reads the request the API would get.

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes a ``StructuredTool`` with the spec's JSON
schema as ``args_schema``. A tool's own validation (``rejects_when``) raises ``ToolException``,
langchain's way for a tool to refuse its input. The user's own graph: ``toolharness_agent =
"package.module:factory"``, called as ``factory(model, tools)`` and returning a compiled graph.

The default graph is compiled with LangGraph's ``InMemorySaver`` checkpointer and every run has its
own ``thread_id``: an abort cancels ``graph.ainvoke`` (``task.cancel()``), and the session resumes as
LangGraph resumes one, ``graph.ainvoke(None, config)`` from the last checkpoint (a user's graph needs a
checkpointer for that). A transcript becomes LangChain messages (``HumanMessage``, ``AIMessage`` with
``tool_calls``, ``ToolMessage``); ``render_request`` runs the graph on them and returns the request
langchain-anthropic's client sent.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anthropic import AsyncAnthropic
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from pydantic import SecretStr

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

__all__ = ["TOOL_SEARCH", "LangGraphAdapter", "LangGraphHarness", "default_graph", "make_adapter"]

GraphFactory = Callable[[ChatAnthropic, list[StructuredTool]], Any]

_THREADS = itertools.count(1)

# ToolNode hands a tool its call (with the tool_use id) but the tool's function only its arguments.
_CALL_ID: contextvars.ContextVar[str] = contextvars.ContextVar("toolharness_call_id", default="")


class _ScriptedTool(StructuredTool):
    """A ``StructuredTool`` that remembers which tool_use it is running (for the call recorder)."""

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        if isinstance(input, Mapping) and input.get("type") == "tool_call":
            _CALL_ID.set(str(input.get("id", "")))
        return await super().ainvoke(input, config, **kwargs)


def _model(endpoint: ScriptedEndpoint) -> ChatAnthropic:
    model = ChatAnthropic(  # type: ignore[call-arg]
        model=DEFAULT_MODEL,
        api_key=SecretStr("scripted"),
        base_url=endpoint.base_url,
        max_retries=0,
        max_tokens=1024,
    )
    client = AsyncAnthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.async_client(), max_retries=0
    )
    # langchain-anthropic builds its client in a cached property and takes no transport: the endpoint's
    # client goes where that property caches its value.
    model.__dict__["_async_client"] = client
    return model


def _tool(spec: ToolSpec, scenario: ExecutionScenario | None) -> StructuredTool:
    async def call(**tool_input: Any) -> Any:
        if scenario is None:
            return ""
        tool_use_id = _CALL_ID.get()
        try:
            output = await run_behavior(spec, tool_use_id, tool_input, scenario)
        except ValueError as exc:
            raise ToolException(str(exc)) from exc
        if output.kind == "blocks":
            # A ToolMessage's content blocks, in langchain's standard form (langchain-anthropic sends them
            # as the API's image and text blocks).
            return [
                {
                    "type": "image",
                    "base64": base64.b64encode(part.image_png).decode(),
                    "mime_type": "image/png",
                }
                if part.kind == "image"
                else {"type": "text", "text": part.text}
                for part in output.parts
            ]
        return output.text

    return _ScriptedTool.from_function(
        coroutine=call,
        name=spec.name,
        description=spec.description,
        args_schema=dict(spec.input_schema),
        handle_tool_error=True,
        # langchain-anthropic sends a tool's Anthropic extras (defer_loading) in its definition.
        extras={"defer_loading": True} if deferred(spec) else None,
    )


TOOL_SEARCH = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
"""Anthropic's server-side tool search, bound beside deferred tools (langchain-anthropic's documented way)."""


def default_graph(model: ChatAnthropic, tools: list[StructuredTool]) -> Any:
    """LangGraph's classic tool loop with ``ToolNode``'s default error handling.

    With a deferred tool (``extras={"defer_loading": True}``) the model is bound with Anthropic's tool
    search tool as well, which the API needs beside deferred tools.
    """
    searching = any((t.extras or {}).get("defer_loading") for t in tools)
    bound = model.bind_tools([*tools, TOOL_SEARCH] if searching else tools)

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=InMemorySaver())


def _config() -> dict[str, Any]:
    return {"configurable": {"thread_id": f"toolharness-{next(_THREADS)}"}}


def _messages(transcript: Transcript) -> list[BaseMessage]:
    """The transcript as LangChain messages, block for block."""
    messages: list[BaseMessage] = []
    for message in transcript.messages:
        blocks = transcript.blocks(message)
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        if message.get("role") == "assistant":
            calls = [
                {"name": str(b["name"]), "args": dict(b.get("input") or {}), "id": str(b["id"])}
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            messages.append(AIMessage(content="\n".join(texts), tool_calls=calls))
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                status = "error" if block.get("is_error") else "success"
                tool_call_id = str(block["tool_use_id"])
                messages.append(ToolMessage(text_of_result(block), tool_call_id=tool_call_id, status=status))
        if texts:
            messages.append(HumanMessage("\n".join(texts)))
    return messages


class LangGraphHarness(TranscriptSession):
    """One session: a fresh graph per batch, built by the user's factory or :func:`default_graph`."""

    def __init__(self, factory: GraphFactory | None) -> None:
        super().__init__()
        self._factory = factory or default_graph

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The request the graph sends for the history (``enable_tool_search`` is Claude Code's, unused)."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None) for spec in self._transcript.tools]
        messages = _messages(self._transcript)
        error: BaseException | None = None

        async def run() -> None:
            await self._factory(_model(endpoint), tools).ainvoke({"messages": messages}, _config())

        try:
            asyncio.run(run())
        except Exception as exc:  # LangChain refused before sending, or the API rejected the request
            error = exc
        return recorded_request(endpoint, error)

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let LangGraph run the scenario's tool_use turn; its next request holds the results."""
        tools = [_tool(spec, scenario) for spec in scenario.tools]
        config = _config()
        graphs: list[Any] = []

        async def run(endpoint: ScriptedEndpoint) -> object:
            graphs.append(self._factory(_model(endpoint), tools))
            return await graphs[0].ainvoke({"messages": [("user", PROMPT)]}, config)

        async def resume(endpoint: ScriptedEndpoint) -> object:
            return await graphs[0].ainvoke(None, config)

        return await framework_turn(scenario, run, resume)

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The tools array langchain-anthropic sends for these tools."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        tools = [_tool(spec, None) for spec in [*builtin, *mcp]]

        async def run() -> None:
            await self._factory(_model(endpoint), tools).ainvoke({"messages": [("user", PROMPT)]}, _config())

        asyncio.run(run())
        return [dict(t) for t in endpoint.message_requests[0].tools if isinstance(t, Mapping)]


class LangGraphAdapter:
    """The adapter: ``execution`` (with ``abort``), ``transcript``, ``classification``, ``schemas``; ``core``."""

    name = "langgraph (pytest-toolharness)"
    profiles = frozenset({"core"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("langgraph", "langchain_core")
    capabilities = frozenset({"execution", "abort", "transcript", "classification", "schemas"})

    def __init__(self, factory: GraphFactory | None = None) -> None:
        self._factory = factory

    def new_harness(self) -> LangGraphHarness:
        """A fresh session."""
        return LangGraphHarness(self._factory)


def make_adapter(config: Any = None) -> LangGraphAdapter:
    """The adapter factory; ``config`` (the pytest config) names the user's graph factory, if any."""
    return LangGraphAdapter(agent_factory(config))
