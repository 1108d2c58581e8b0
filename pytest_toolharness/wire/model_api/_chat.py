"""OpenAI Chat Completions as the scripted server answers it: ``POST /v1/chat/completions``.

A turn goes back as a ``chat.completion`` or, for ``"stream": true``, as ``chat.completion.chunk``
events (:mod:`~pytest_toolharness.wire.model_api._chat_sse`); a request the API would reject gets
its 400 (:mod:`~pytest_toolharness.wire.model_api._chat_validation`). Point the ``openai`` SDK (or
anything speaking Chat Completions) at ``<base_url>/v1``: ``OPENAI_BASE_URL``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._chat_sse import (
    DONE_EVENT,
    chat_completion_json,
    chat_stream_chunks,
    encode_data,
)
from pytest_toolharness.wire.model_api._chat_validation import validate_chat_request
from pytest_toolharness.wire.model_api._encoding import wire_bytes
from pytest_toolharness.wire.model_api._messages import output_tokens
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS
from pytest_toolharness.wire.model_api._provider_errors import openai_error_body
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = [
    "CHAT_COMPLETIONS_PATH",
    "ChatCompletionsDialect",
    "chat_answer",
    "chat_neutral_request",
    "include_usage",
]

CHAT_COMPLETIONS_PATH = "/v1/chat/completions"


def include_usage(body: Mapping[str, Any]) -> bool:
    """True when a streamed request asked for the usage chunk (``stream_options.include_usage``)."""
    options = body.get("stream_options")
    return isinstance(options, Mapping) and options.get("include_usage") is True


def chat_answer(
    turn: AssistantTurn,
    body: Mapping[str, Any],
    *,
    completion_id: str,
    prompt_tokens: int,
    chunks: int = DEFAULT_CHUNKS,
) -> bytes | tuple[bytes, ...]:
    """The answer to a Chat Completions request: the completion's bytes, or its SSE events ending ``[DONE]``."""
    model = str(body.get("model", ""))
    completion_tokens = output_tokens(turn)
    if body.get("stream") is True:
        events = chat_stream_chunks(
            turn,
            completion_id=completion_id,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            include_usage=include_usage(body),
            chunks=chunks,
        )
        return (*(encode_data(event) for event in events), DONE_EVENT)
    return wire_bytes(
        chat_completion_json(
            turn,
            completion_id=completion_id,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
    )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def _arguments(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text  # the harness sent arguments that are not JSON: the checks see the raw text


def chat_neutral_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The API-neutral view of a Chat Completions request: tools, system text, each message as a turn.

    A turn has its ``role`` (``assistant``, or ``user`` for user, system and tool messages), its
    ``calls`` (``id``, ``name``, ``input``), ``outputs`` (``call_id``, ``text``, ``is_error``: always
    None, Chat has no flag and a failure is only its text) and ``reasoning`` (none in Chat). Tool
    messages that follow one another are one turn, as they answer one assistant message.
    """
    tools = [
        {
            "name": t["function"].get("name"),
            "description": t["function"].get("description"),
            "input_schema": t["function"].get("parameters"),
        }
        for t in body.get("tools") or ()
        if isinstance(t, Mapping) and isinstance(t.get("function"), Mapping)
    ]
    system = [
        _text_of(m.get("content"))
        for m in body.get("messages") or ()
        if isinstance(m, Mapping) and m.get("role") in ("system", "developer")
    ]
    turns: list[dict[str, Any]] = []
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping) or message.get("role") in ("system", "developer"):
            continue
        role = message.get("role")
        if role == "tool":
            output = {
                "call_id": message.get("tool_call_id"),
                "text": _text_of(message.get("content")),
                "is_error": None,
            }
            if turns and turns[-1]["outputs"] and not turns[-1]["text"]:
                turns[-1]["outputs"].append(output)
            else:
                turns.append({"role": "user", "calls": [], "outputs": [output], "text": "", "reasoning": []})
            continue
        calls = [
            {
                "id": c.get("id"),
                "name": (c.get("function") or {}).get("name"),
                "input": _arguments((c.get("function") or {}).get("arguments")),
            }
            for c in message.get("tool_calls") or ()
            if isinstance(c, Mapping)
        ]
        turns.append(
            {
                "role": "assistant" if role == "assistant" else "user",
                "calls": calls,
                "outputs": [],
                "text": _text_of(message.get("content")),
                "reasoning": [],
            }
        )
    return {"api": "chat", "tools": tools, "system": "\n\n".join(system), "turns": turns}


class ChatCompletionsDialect:
    """Chat Completions as a dialect of the scripted server: ``POST /v1/chat/completions``."""

    name = "chat"
    routes: tuple[tuple[str, str], ...] = (("POST", CHAT_COMPLETIONS_PATH),)

    def answers(self, method: str, path: str) -> bool:
        """True for ``POST /v1/chat/completions``."""
        return (method, path) in self.routes

    def validate(self, body: Any, path: str = CHAT_COMPLETIONS_PATH) -> ApiError | None:
        """The API's 400 for ``body``, or None (:func:`validate_chat_request`)."""
        return validate_chat_request(body)

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        """An error in OpenAI's shape, whatever kind of :class:`ApiError` it is (a scripted 529 too)."""
        return openai_error_body(error, request_id)

    def answer(
        self,
        turn: AssistantTurn,
        body: Mapping[str, Any],
        *,
        index: int,
        id_prefix: str,
        prompt_tokens: int,
        chunks: int = DEFAULT_CHUNKS,
        path: str = CHAT_COMPLETIONS_PATH,
    ) -> bytes | tuple[bytes, ...]:
        """The completion, or its SSE events when the body asked for a stream."""
        completion_id = f"chatcmpl-{id_prefix}{index:012d}"
        return chat_answer(
            turn, body, completion_id=completion_id, prompt_tokens=prompt_tokens, chunks=chunks
        )

    def neutral_request(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The API-neutral view (:func:`chat_neutral_request`)."""
        return chat_neutral_request(body)
