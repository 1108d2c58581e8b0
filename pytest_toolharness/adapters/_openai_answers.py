"""A framework's answer to a tool-call turn on OpenAI's APIs, read as the checks read a Messages answer.

The checks of ``execute()`` read ``tool_result`` blocks (``tool_use_id``, ``content``, ``is_error``). A
framework on Chat Completions answers with ``role: "tool"`` messages (``tool_call_id``), one on the
Responses API with ``function_call_output`` items (``call_id``); user text sent with them (smolagents'
``Observation:`` message) is a ``text`` block, as in the Messages API. Neither API has an ``is_error``
flag: a failure is only the output's text (``shared/design/PROTOCOLS.md``), so an output is marked
failed when its text says so (REQUIREMENTS.md PAIR-3, "text that says the call failed").

This is the answer side only; the scripted servers and the API-neutral request view are in
:mod:`pytest_toolharness.wire`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire import ScriptedEndpoint

__all__ = [
    "CHAT_COMPLETIONS",
    "RESPONSES",
    "chat_answer",
    "endpoint_answer",
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


def endpoint_answer(endpoint: ScriptedEndpoint, path: str) -> list[dict[str, Any]]:
    """The framework's answer to the scripted tool-call turn: ``[]`` when it sent no request after it.

    The turn answers the first request, so the answer is the second (also after a resume: the aborted
    run sent nothing more); later requests are the framework's own next steps.
    """
    bodies = requests_of(endpoint, path)
    if len(bodies) < 2:
        return []
    return chat_answer(bodies[1]) if path == CHAT_COMPLETIONS else responses_answer(bodies[1])


def sent_tools(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A request's function tools as sent, each with its ``name`` at the top (a Chat tool's ``function``)."""
    tools: list[dict[str, Any]] = []
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
            tools.append({"type": tool.get("type"), **tool["function"]})
        elif isinstance(tool, Mapping):
            tools.append(dict(tool))
    return tools
