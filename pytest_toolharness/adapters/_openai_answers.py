"""A framework's requests on OpenAI's APIs, read as the checks read a Messages request.

The checks read ``tool_result`` blocks (``tool_use_id``, ``content``, ``is_error``) and a rendered
request's ``tools`` by ``name`` and its ``tool_use`` ids. The scripted server records a Chat Completions
or Responses request with its view in the Messages API's shape
(:attr:`~pytest_toolharness.wire.RecordedRequest.messages_body`: tool messages and ``function_call_output``
items as ``tool_result`` blocks, ``tool_calls`` and ``function_call`` items as ``tool_use`` blocks,
reasoning items as ``thinking`` blocks); this module reads that view.

Neither API has an ``is_error`` flag: a failure is only the output's text (``shared/design/PROTOCOLS.md``),
so an output is marked failed when its text says so (REQUIREMENTS.md PAIR-3, "text that says the call
failed"). The tools a request sent are read as sent (:func:`sent_tools`: only ``parameters`` renamed
``input_schema``), so that a check of their bytes sees every byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire import RecordedRequest, ScriptedEndpoint

__all__ = [
    "CHAT_COMPLETIONS",
    "RESPONSES",
    "endpoint_answer",
    "first_request",
    "messages_view",
    "requests_of",
    "says_failed",
    "sent_tools",
    "served",
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


def served(path: str) -> bool:
    """Whether the scripted server answers ``path`` (``/v1/responses``): a path it does not know gets 404.

    An adapter on an API the server does not speak yet refuses to run: its runs would see a 404 where
    the model should answer, and the checks would blame the framework for the suite's gap.
    """
    endpoint = ScriptedEndpoint()
    with endpoint.client() as client:
        return bool(client.post(path, json={}).status_code != 404)


def requests_of(endpoint: ScriptedEndpoint, path: str) -> list[RecordedRequest]:
    """The endpoint's requests to ``path`` (``/chat/completions``, ``/responses``) with a JSON object body."""
    return [r for r in endpoint.requests if r.path.endswith(path) and isinstance(r.json, Mapping)]


def first_request(endpoint: ScriptedEndpoint, path: str, error: BaseException | None) -> RecordedRequest:
    """The first request the framework sent to ``path``; ``ValueError`` with its own error if it sent none.

    Only the request matters (the tools it sends, how it renders a history), not how the run ended.
    """
    requests = requests_of(endpoint, path)
    if not requests:
        raise ValueError(f"the framework sent no request: {error!r}") from error
    return requests[0]


def _marked(block: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tool_result`` of a flagless API, ``is_error`` when its text says the call failed."""
    if block.get("type") != "tool_result" or "is_error" in block:
        return dict(block)
    return {**block, "is_error": says_failed(_text(block.get("content")))}


def messages_view(request: RecordedRequest) -> dict[str, Any]:
    """A Chat Completions or Responses request as the Messages API's ``tools`` and ``messages``."""
    if request.view is None:
        raise ValueError(f"{request.method} {request.path} is no model request of an OpenAI API")
    body = dict(request.view)
    body["messages"] = [
        {**m, "content": [_marked(b) for b in m["content"]]} if isinstance(m.get("content"), list) else m
        for m in body.get("messages") or ()
    ]
    return body


def endpoint_answer(endpoint: ScriptedEndpoint, path: str) -> tuple[list[dict[str, Any]], str | None]:
    """The framework's answer to the scripted tool-call turn, and the API's rejection of it (400 text).

    The turn answers the first request, so the answer is the second (also after a resume: the aborted
    run sent nothing more): the content of its last message when that is the user's; ``[]`` when it
    sent no request after the turn. Later requests are the framework's own next steps.
    """
    requests = requests_of(endpoint, path)
    if len(requests) < 2:
        return [], None
    request = requests[1]
    rejection = request.error.message if request.rejected and request.error is not None else None
    messages = messages_view(request)["messages"]
    if not messages or messages[-1].get("role") != "user":
        return [], rejection
    content = messages[-1]["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return blocks, rejection


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
