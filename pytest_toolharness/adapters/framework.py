"""Helpers for framework adapters: a scripted batch through a framework's real Anthropic client.

Public: the shipped adapters (``pytest_toolharness.adapters.pydantic_ai``, ``...langgraph``) use only
these names, :mod:`pytest_toolharness.adapters` and :mod:`pytest_toolharness.wire`, and so can an
adapter for any other framework.


A framework adapter turns the suite's :class:`~pytest_toolharness.adapters.ToolSpec` into the
framework's tools (each call runs the spec's scripted behaviour, recorded by the scenario's
:class:`~pytest_toolharness.adapters.CallRecorder`), scripts the model's turn with the scenario's
``tool_use`` blocks on a :class:`~pytest_toolharness.wire.ScriptedEndpoint`, lets the framework run, and
answers with the ``tool_result`` message the framework's client sent next: the bytes the API would get.

After an abort (capability ``abort``) the framework's run is cancelled as a user would cancel it
(``task.cancel()``); an adapter that passes ``resume`` then continues the session the framework's own
way (pydantic-ai from the history it saved, LangGraph from its checkpoint), and the request that resume
sends is the answer: what the model sees of the aborted batch. A transcript (capability ``transcript``)
is kept by :class:`Transcript`; the adapter renders it into the framework's own message history and
answers ``render_request`` with the request the framework's client sent for it.

The user's own agent is named by the ``toolharness_agent`` ini key (or ``--toolharness-agent``): a
``package.module:factory`` the adapter calls with the framework's model and the suite's tools, which
returns the agent the suite checks (their toolsets, approval handlers, error handling, ...).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_toolharness.specs import (
    ExecutionResult,
    ExecutionScenario,
    ScriptedErrorResult,
    ScriptedToolError,
    ToolSpec,
    WireRequest,
)
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint, tool_use_turn

__all__ = [
    "AGENT_INI",
    "DEFAULT_MODEL",
    "PROMPT",
    "RESUME_BOUND",
    "ScriptedCall",
    "ScriptedPart",
    "Transcript",
    "TranscriptSession",
    "agent_factory",
    "answer_of_turn",
    "deferred",
    "framework_turn",
    "recorded_request",
    "run_behavior",
    "text_of_result",
]

AGENT_INI = "toolharness_agent"
DEFAULT_MODEL = "claude-sonnet-4-6"
PROMPT = "Run the tools."
RESUME_BOUND = 2.0
"""Seconds a resumed session may run before it is given up (it re-ran a tool that never returns)."""


def _message_blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(b) for b in content or () if isinstance(b, Mapping)] if isinstance(content, list) else []


@dataclass
class Transcript:
    """A session's tools and its messages in the Messages API's shape, as the suite gives them."""

    tools: list[ToolSpec] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def set_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> None:
        """The tools from now on: built-in tools, then MCP tools, as given (duplicates included)."""
        self.tools = [*builtin, *mcp]

    def append_message(self, message: dict[str, Any]) -> None:
        """One more user or assistant message."""
        self.messages.append(message)

    def blocks(self, message: Mapping[str, Any]) -> list[dict[str, Any]]:
        """A message's content as a list of blocks (a string is one text block)."""
        return _message_blocks(message)

    def tool_names(self) -> dict[str, str]:
        """The tool name of every ``tool_use`` id in the transcript (a tool_result names only the id)."""
        return {
            str(b["id"]): str(b["name"])
            for m in self.messages
            if m.get("role") == "assistant"
            for b in self.blocks(m)
            if b.get("type") == "tool_use"
        }


class TranscriptSession:
    """What a framework harness keeps for the ``transcript`` capability: the session's tools and messages.

    A framework harness subclasses it and renders ``self._transcript`` in its framework's own terms.
    """

    def __init__(self) -> None:
        self._transcript = Transcript()

    def is_deferred(self, spec: ToolSpec) -> bool:
        """Whether the tool is built with ``defer_loading`` (its spec asks for it)."""
        return deferred(spec)

    def set_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> None:
        """The session's tools from now on."""
        self._transcript.set_tools(builtin, mcp)

    def append_message(self, message: dict[str, Any]) -> None:
        """One more message of the session's history."""
        self._transcript.append_message(message)


def deferred(spec: ToolSpec) -> bool:
    """Whether a framework adapter sends ``spec`` with ``defer_loading`` (capability ``classification``).

    A framework defers the tools its user marks: here the spec's ``should_defer``, unless ``always_load``.
    (Claude Code's own rule, every MCP tool deferred, is a claude-code choice, DEFER-1.)
    """
    return spec.should_defer and not spec.always_load


def text_of_result(block: Mapping[str, Any]) -> str:
    """The text of a ``tool_result`` block's content (a string, or its text blocks joined)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or () if isinstance(b, Mapping))


def recorded_request(endpoint: ScriptedEndpoint, error: BaseException | None) -> WireRequest:
    """The first request the framework sent, as a :class:`WireRequest`.

    A framework that refused before sending anything raises ``ValueError`` with its own error (the
    contract's way to refuse a transcript or a pool), never a request it did not send.
    """
    requests = endpoint.message_requests
    if not requests:
        raise ValueError(f"the framework sent no request: {error!r}") from error
    first = requests[0]
    # A message thread's continue stands for its whole conversation: that is the request checked.
    rejection = first.error.message if first.rejected and first.error is not None else None
    return WireRequest(body=first.resolved or first.json, headers=dict(first.headers), rejection=rejection)


@dataclass(frozen=True)
class ScriptedPart:
    """One block of a scripted result: a text, or a PNG image."""

    kind: str  # "text" or "image"
    text: str = ""
    image_png: bytes = b""


@dataclass(frozen=True)
class ScriptedCall:
    """What one scripted call returned, in plain terms a framework tool function can hand back.

    ``kind`` is ``"text"``, ``"json"`` (``value``, ``text`` its JSON) or ``"blocks"``: a result of
    content blocks, every one of them in ``parts`` in order (``text`` is their texts joined, for a
    framework whose tools return text only).
    """

    kind: str  # "text", "json" or "blocks"
    text: str = ""
    value: Any = None
    parts: tuple[ScriptedPart, ...] = ()


async def run_behavior(
    spec: ToolSpec, tool_use_id: str, tool_input: Mapping[str, Any], scenario: ExecutionScenario
) -> ScriptedCall:
    """Run the spec's behaviour for one call; raises ``ScriptedToolError`` when scripted to fail.

    A spec with ``rejects_when`` raises ``ValueError`` when that input key is truthy (the tool's own
    validation); the framework adapter turns it into the framework's own "invalid input" path.
    ``validation_raises_when`` raises ``RuntimeError`` (a validator that crashes).
    """
    if spec.validation_raises_when is not None and spec.validation_raises_when in tool_input:
        # A framework tool validates inside its call: a broken validator is an exception there.
        raise RuntimeError(f"scripted: {spec.name}'s input validation is broken")
    if spec.rejects_when is not None and tool_input.get(spec.rejects_when):
        raise ValueError(spec.rejection_message())
    value = await spec.behavior.run(tool_use_id, spec.name, tool_input, scenario.abort, scenario.recorder)
    if isinstance(value, ScriptedErrorResult):
        # A framework tool fails by raising: its error result is the framework's own failure path.
        raise ScriptedToolError(value.text)
    if isinstance(value, str):
        return ScriptedCall("text", text=value)
    if isinstance(value, list) and value and all(isinstance(b, Mapping) for b in value):
        parts = tuple(
            ScriptedPart("image", image_png=base64.b64decode(b["source"]["data"]))
            if b.get("type") == "image"
            else ScriptedPart("text", text=str(b.get("text", "")))
            for b in value
        )
        text = "\n".join(p.text for p in parts if p.kind == "text")
        return ScriptedCall("blocks", text=text, parts=parts)
    return ScriptedCall("json", value=value, text=json.dumps(value, sort_keys=True))


def agent_factory(config: Any) -> Callable[..., Any] | None:
    """The user's agent factory named by ``--toolharness-agent`` / ``toolharness_agent``, or None."""
    if config is None:
        return None
    spec = ""
    try:
        spec = str(config.getoption("toolharness_agent", default=None) or config.getini(AGENT_INI) or "")
    except (ValueError, KeyError):
        spec = ""
    if not spec:
        return None
    from pytest_toolharness.adapters._factories import resolve_factory

    return resolve_factory(spec.strip(), (config.invocation_params.dir, config.rootpath))


async def framework_turn(
    scenario: ExecutionScenario,
    run: Callable[[ScriptedEndpoint], Awaitable[object]],
    resume: Callable[[ScriptedEndpoint], Awaitable[object]] | None = None,
    *,
    answer: Callable[[ScriptedEndpoint], tuple[list[dict[str, Any]], str | None]] | None = None,
) -> ExecutionResult:
    """Script one ``tool_use`` turn, let ``run(endpoint)`` drive the framework, return its results.

    A later request carries the ``tool_result`` turn (:func:`answer_of_turn`: the first request the API
    accepts, else a rejected one with the rejection's text, which the suite grades); a framework
    that stops with an exception before sending it has sent no result at all (an empty user
    message, which the pairing checks then name). The abort, when the scenario has one, cancels the framework's run; ``resume``
    (when given) then continues the session, and its request is the answer (at most
    :data:`RESUME_BOUND` seconds: a resumed session that hangs has sent nothing).

    ``answer`` reads the results from the endpoint for a framework on another API (OpenAI Chat
    Completions, Responses): the tool outputs of its request after the tool-call turn, as ``tool_result``
    blocks (``[]`` when it sent none), and the API's rejection of that request (its 400 text, or None).
    Without it the framework speaks the Messages API.
    """
    endpoint = ScriptedEndpoint(
        [tool_use_turn(scenario.tool_uses), AssistantTurn.text("Done."), AssistantTurn.text("Done.")]
    )
    if scenario.abort_after_starts is not None:
        scenario.recorder.trigger_after_starts(scenario.abort_after_starts, scenario.abort)
    task = asyncio.ensure_future(run(endpoint))
    aborted = asyncio.ensure_future(scenario.abort.wait())
    try:
        await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    cancelled = not task.done()
    if cancelled:
        task.cancel()
    # The framework gave up (an exception, or the abort): whatever it sent is what the model would see.
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await task
    if cancelled and resume is not None:
        with contextlib.suppress(Exception, asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(resume(endpoint), RESUME_BOUND)
    if answer is not None:
        content, rejection = answer(endpoint)
        return ExecutionResult(user_content=content, rejection=rejection)
    content, rejection = answer_of_turn(endpoint, [str(b["id"]) for b in scenario.tool_uses])
    return ExecutionResult(user_content=content, rejection=rejection)


def _answering_turn(conversation: Sequence[Any], ids: Sequence[str]) -> list[dict[str, Any]] | None:
    """The user turn right after the assistant message holding ``ids`` (its messages combined), or None."""
    turn: list[dict[str, Any]] | None = None
    for message in conversation:
        if not isinstance(message, Mapping) or message.get("role") == "system":
            continue
        blocks = _message_blocks(message)
        if message.get("role") == "assistant":
            if turn is not None:
                return turn
            if any(b.get("type") == "tool_use" and b.get("id") in ids for b in blocks):
                turn = []
        elif turn is not None:
            # The API combines consecutive user messages into one turn.
            turn.extend(blocks)
    return turn or None


def answer_of_turn(endpoint: ScriptedEndpoint, ids: Sequence[str]) -> tuple[list[dict[str, Any]], str | None]:
    """The user turn answering the scripted ``tool_use`` turn (``ids``), and the API's rejection of it.

    The turn is read from the whole conversation of each request after the scripted one (a thread's
    history included), its consecutive user messages combined as the API combines them: the first
    request the API accepts carries the answer the model sees. When only rejected requests carry
    one, the first of them is the answer, with its 400 text: the model never sees it. No request
    carrying one: an empty answer (the framework sent no result at all), with the text of the first
    request the API rejected, if one was (a session resumed without the results, for instance).
    """
    rejected: tuple[list[dict[str, Any]], str | None] | None = None
    first_rejection: str | None = None
    for request in endpoint.message_requests:
        if request.rejected and first_rejection is None and request.error is not None:
            first_rejection = request.error.message
        turn = _answering_turn(request.conversation, ids)
        if turn is None:
            continue
        if not request.rejected:
            return turn, None
        if rejected is None:
            rejected = (turn, request.error.message if request.error is not None else None)
    return rejected if rejected is not None else ([], first_rejection)
