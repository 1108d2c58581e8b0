"""The anthropic SDK tool runner adapter: the suite's scripted tools run by ``client.beta.messages.tool_runner``.

Every SDK user has this loop: ``tool_runner(model=..., max_tokens=..., tools=[...], messages=[...])``
with tools made by ``@beta_async_tool``, iterated until the model stops. The runner's client is an
``anthropic.AsyncAnthropic`` on a :class:`~pytest_toolharness.wire.ScriptedEndpoint`, so its loop runs as
it does in production, message threads included (the SDK 2.x runner sends a thread ``create`` then
``continue`` requests with only the new messages; the endpoint holds the conversation).

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes ``beta_async_tool(call, name=...,
description=..., input_schema=<the spec's JSON schema>, defer_loading=...)``, the SDK's documented way to
give a function tool its own schema. A tool's own validation (``rejects_when``) raises the SDK's
``ToolError``, the runner's way for a tool to refuse; a raising tool raises. A multi-block result is
returned as the SDK's content blocks; a JSON value is returned as it is (the ``@beta_async_tool`` result
type is ``str | Iterable[BetaContent]``, and the runner sends what the function returns).

A transcript (capability ``transcript``) is already in the Messages API's shape: ``render_request`` gives it
to the runner as its ``messages`` and returns the request the runner sent. An abort cancels the
iteration (``task.cancel()``); the session then goes on as an SDK user goes on, with a new runner on
the history the first one yielded (the prompt and its replies). The runner has no per-call timeout,
so the adapter does not declare ``timeouts``.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Sequence
from typing import Any, cast

from anthropic import AsyncAnthropic, beta_async_tool
from anthropic.lib.tools import BetaAsyncFunctionTool, ToolError
from anthropic.types.beta import BetaMessageParam

from pytest_toolharness.adapters import ExecutionResult, ExecutionScenario, ToolSpec, WireRequest
from pytest_toolharness.adapters.framework import (
    DEFAULT_MODEL,
    PROMPT,
    ScriptedCall,
    TranscriptSession,
    deferred,
    framework_turn,
    recorded_request,
    run_behavior,
)
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint

__all__ = ["TOOL_SEARCH", "ToolRunnerAdapter", "ToolRunnerHarness", "make_adapter"]

MAX_TOKENS = 1024
TOOL_SEARCH: dict[str, Any] = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
"""Anthropic's server-side tool search, sent beside deferred tools (the API needs one with ``defer_loading``)."""


def _client(endpoint: ScriptedEndpoint) -> AsyncAnthropic:
    return AsyncAnthropic(
        api_key="scripted", base_url=endpoint.base_url, http_client=endpoint.async_client(), max_retries=0
    )


def _returned(output: ScriptedCall) -> Any:
    """What a ``@beta_async_tool`` function returns for one scripted call's output."""
    if output.kind == "blocks":
        return [
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": "image/png",
                    "data": base64.b64encode(part.image_png).decode("ascii"),
                },
            }
            if part.kind == "image"
            else {"type": "text", "text": part.text}
            for part in output.parts
        ]
    # A JSON value goes back as the function's own value: what a user's tool returning a dict does.
    return output.value if output.kind == "json" else output.text


def _tool(spec: ToolSpec, scenario: ExecutionScenario | None) -> BetaAsyncFunctionTool[Any]:
    # The runner calls a tool with its input only, one call at a time in the reply's order (the async
    # runner awaits each in turn): the n-th call of a tool answers the n-th tool_use of that name.
    ids = [str(b["id"]) for b in scenario.tool_uses if b.get("name") == spec.name] if scenario else []

    async def call(**tool_input: Any) -> Any:
        if scenario is None:
            return ""
        tool_use_id = ids.pop(0) if ids else ""
        try:
            output = await run_behavior(spec, tool_use_id, tool_input, scenario)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        return _returned(output)

    return beta_async_tool(
        call,
        name=spec.name,
        description=spec.description,
        input_schema=dict(spec.input_schema),
        defer_loading=True if deferred(spec) else None,
    )


def _tools(specs: Sequence[ToolSpec], scenario: ExecutionScenario | None) -> list[Any]:
    tools: list[Any] = [_tool(spec, scenario) for spec in specs]
    if any(deferred(spec) for spec in specs):
        tools.append(dict(TOOL_SEARCH))
    return tools


async def _run(
    endpoint: ScriptedEndpoint,
    tools: list[Any],
    messages: list[dict[str, Any]],
    seen: list[dict[str, Any]] | None = None,
) -> None:
    """Iterate a tool runner to its end; each reply it yields goes to ``seen``, as its user keeps them."""
    # The suite's messages are the Messages API's own dicts: the SDK's params, as TypedDicts.
    history = cast("list[BetaMessageParam]", messages)
    runner = _client(endpoint).beta.messages.tool_runner(
        model=DEFAULT_MODEL, max_tokens=MAX_TOKENS, tools=tools, messages=history
    )
    async for message in runner:
        if seen is not None:
            seen.append({"role": "assistant", "content": [block.to_dict() for block in message.content]})


class ToolRunnerHarness(TranscriptSession):
    """One session: a fresh tool runner per batch, as an SDK user writes one."""

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let the tool runner run the scenario's tool_use turn; its next request holds the results."""
        tools = _tools(scenario.tools, scenario)
        prompt = {"role": "user", "content": PROMPT}
        seen: list[dict[str, Any]] = []

        async def run(endpoint: ScriptedEndpoint) -> object:
            await _run(endpoint, tools, [prompt], seen)
            return None

        async def resume(endpoint: ScriptedEndpoint) -> object:
            # After a cancel, the user goes on from the history the runner gave them: the replies it yielded.
            await _run(endpoint, tools, [prompt, *seen])
            return None

        return await framework_turn(scenario, run, resume)

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The request the runner sends for the transcript (``enable_tool_search`` is Claude Code's, unused)."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        error: BaseException | None = None
        try:
            asyncio.run(_run(endpoint, _tools(self._transcript.tools, None), list(self._transcript.messages)))
        except Exception as exc:  # the SDK refused before sending, or the API rejected the request
            error = exc
        return recorded_request(endpoint, error)

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The tools array the runner sends for these tools."""
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        error: BaseException | None = None
        try:
            asyncio.run(_run(endpoint, _tools([*builtin, *mcp], None), [{"role": "user", "content": PROMPT}]))
        except Exception as exc:  # the API rejected the tools (duplicate names): they were sent all the same
            error = exc
        tools = recorded_request(endpoint, error).body.get("tools") or []
        return [dict(t) for t in tools if isinstance(t, dict)]


class ToolRunnerAdapter:
    """The adapter: ``execution`` (``abort``), ``transcript``, ``classification``, ``schemas``; ``core``."""

    name = "anthropic SDK tool runner (pytest-toolharness)"
    profiles = frozenset({"core"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("anthropic",)
    capabilities = frozenset({"execution", "abort", "transcript", "classification", "schemas"})

    def new_harness(self) -> ToolRunnerHarness:
        """A fresh session."""
        return ToolRunnerHarness()


def make_adapter(config: Any = None) -> ToolRunnerAdapter:
    """The adapter factory (``config``, the pytest config, is not used: the runner takes no agent of its own)."""
    return ToolRunnerAdapter()
