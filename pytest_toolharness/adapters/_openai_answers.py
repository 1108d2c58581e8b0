"""A framework's answer to a tool-call turn on OpenAI's APIs, read as the checks read a Messages answer.

The checks of ``execute()`` read ``tool_result`` blocks (``tool_use_id``, ``content``, ``is_error``). A
framework on Chat Completions answers with ``role: "tool"`` messages (``tool_call_id``), one on the
Responses API with ``function_call_output`` items (``call_id``); user text sent with them (smolagents'
``Observation:`` message) is a ``text`` block, as in the Messages API. Neither API has an ``is_error``
flag: a failure is only the output's text (``shared/design/PROTOCOLS.md``), so an output is marked
failed when its text says so (REQUIREMENTS.md PAIR-3, "text that says the call failed").

:func:`messages_view` reads a whole request so (the ``transcript`` capability's checks read a rendered
request's ``tools`` by ``name`` and its ``tool_use`` ids): Chat ``tool_calls`` and Responses
``function_call`` items are ``tool_use`` blocks with the call's id, name and parsed arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire import ScriptedEndpoint

__all__ = [
    "CHAT_COMPLETIONS",
    "RESPONSES",
    "chat_answer",
    "endpoint_answer",
    "first_request",
    "messages_view",
    "requests_of",
    "responses_answer",
    "says_failed",
    "sent_tools",
]

CHAT_COMPLETIONS = "/chat/completions"
RESPONSES = "/responses"

# Words with which an output says its call failed (a success's text never needs them).
_FAILURE = re.compile(
    r"\b(error|errors|failed|fails|failure|exception|denied|invalid|unknown|not found|timed out|timeout"
    r"|interrupted|cancelled|canceled|aborted|rejected|refused|does not accept|cannot|unable)\b",
    re.IGNORECASE,
)


def says_failed(text: str) -> bool:
    """Whether an output's text says that its call failed (the only failure mark the OpenAI APIs have)."""
    return bool(_FAILURE.search(text))


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, Mapping) and "text" in part
        )
    return "" if content is None else str(content)


def _result(call_id: object, content: object) -> dict[str, Any]:
    text = _text(content)
    return {
        "type": "tool_result",
        "tool_use_id": str(call_id),
        "content": text,
        "is_error": says_failed(text),
    }


def chat_answer(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The messages after the request's last assistant message: tool messages, then any user text."""
    messages = [m for m in body.get("messages") or () if isinstance(m, Mapping)]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    blocks: list[dict[str, Any]] = []
    for message in messages[last + 1 :]:
        if message.get("role") == "tool":
            blocks.append(_result(message.get("tool_call_id"), message.get("content")))
        elif message.get("role") == "user":
            blocks.append({"type": "text", "text": _text(message.get("content"))})
    return blocks


def responses_answer(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The items after the last message that came before the request's calls: outputs, then user text."""
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or ())
    items = [i for i in items if isinstance(i, Mapping)]
    calls = [i for i, item in enumerate(items) if item.get("type") == "function_call"]
    start = 0
    if calls:
        before = [i for i in range(calls[-1]) if _is_message(items[i])]
        start = before[-1] + 1 if before else 0
    blocks: list[dict[str, Any]] = []
    for item in items[start:]:
        if item.get("type") == "function_call_output":
            blocks.append(_result(item.get("call_id"), item.get("output")))
        elif _is_message(item) and item.get("role") == "user":
            blocks.append({"type": "text", "text": _text(item.get("content"))})
    return blocks


def _is_message(item: Mapping[str, Any]) -> bool:
    return item.get("type", "message") == "message" and "role" in item


def requests_of(endpoint: ScriptedEndpoint, path: str) -> list[Mapping[str, Any]]:
    """The JSON bodies of the endpoint's requests to ``path`` (``/chat/completions``, ``/responses``)."""
    return [r.json for r in endpoint.requests if r.path.endswith(path) and isinstance(r.json, Mapping)]


def first_request(endpoint: ScriptedEndpoint, path: str, error: BaseException | None) -> Mapping[str, Any]:
    """The first request the framework sent to ``path``; ``ValueError`` with its own error if it sent none.

    Only the request matters (the tools it sends, how it renders a history), not how the run ended.
    """
    bodies = requests_of(endpoint, path)
    if not bodies:
        raise ValueError(f"the framework sent no request: {error!r}") from error
    return bodies[0]


def endpoint_answer(endpoint: ScriptedEndpoint, path: str) -> list[dict[str, Any]]:
    """The framework's answer to the scripted tool-call turn: ``[]`` when it sent no request after it.

    The turn answers the first request, so the answer is the second (also after a resume: the aborted
    run sent nothing more); later requests are the framework's own next steps.
    """
    bodies = requests_of(endpoint, path)
    if len(bodies) < 2:
        return []
    return chat_answer(bodies[1]) if path == CHAT_COMPLETIONS else responses_answer(bodies[1])


def _definition(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A function definition in the Messages API's words: its ``parameters`` are its ``input_schema``."""
    return {("input_schema" if key == "parameters" else key): value for key, value in tool.items()}


def sent_tools(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A request's tools as sent, each with its ``name`` at the top (a Chat tool's ``function``).

    A function's ``parameters`` are read as ``input_schema`` (the checks name the field so); every other
    key and every value are as sent.
    """
    tools: list[dict[str, Any]] = []
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
            tools.append(_definition({"type": tool.get("type"), **tool["function"]}))
        elif isinstance(tool, Mapping):
            tools.append(_definition(tool))
    return tools


def _input(arguments: object) -> object:
    """A call's arguments as the model wrote them: parsed JSON, else the raw text."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _append(messages: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": role, "content": list(blocks)})


def _chat_messages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role == "tool":
            _append(messages, "user", [_result(message.get("tool_call_id"), message.get("content"))])
            continue
        text = _text(message.get("content"))
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "input": _input(function.get("arguments")),
                    }
                )
            _append(messages, "assistant", blocks)
        elif role == "user":
            _append(messages, "user", blocks)
    return messages


def _responses_messages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or ())
    messages: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            block = {
                "type": "tool_use",
                "id": item.get("call_id"),
                "name": item.get("name"),
                "input": _input(item.get("arguments")),
            }
            _append(messages, "assistant", [block])
        elif kind == "function_call_output":
            _append(messages, "user", [_result(item.get("call_id"), item.get("output"))])
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            _append(messages, str(item["role"]), [{"type": "text", "text": _text(item.get("content"))}])
    return messages


def messages_view(body: Mapping[str, Any]) -> dict[str, Any]:
    """A Chat Completions or Responses request as the Messages API's ``tools`` and ``messages``."""
    messages = _chat_messages(body) if "messages" in body else _responses_messages(body)
    return {"model": body.get("model"), "tools": sent_tools(body), "messages": messages}
