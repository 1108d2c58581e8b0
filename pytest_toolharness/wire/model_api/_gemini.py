"""Gemini's ``generateContent`` as the scripted server answers it.

``POST /v1beta/models/{model}:generateContent`` gets a ``GenerateContentResponse``;
``:streamGenerateContent?alt=sse`` gets a stream of them
(:mod:`~pytest_toolharness.wire.model_api._gemini_sse`); ``:countTokens`` gets ``{"totalTokens"}``.
A request the API would reject gets Google's 400
(:mod:`~pytest_toolharness.wire.model_api._gemini_validation`). Point google-genai or the Gemini
CLI at the server's base URL: ``GOOGLE_GEMINI_BASE_URL``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._encoding import wire_bytes, wire_json
from pytest_toolharness.wire.model_api._gemini_sse import (
    encode_gemini_sse,
    gemini_response_json,
    gemini_stream_responses,
)
from pytest_toolharness.wire.model_api._gemini_validation import validate_gemini_request
from pytest_toolharness.wire.model_api._messages import output_tokens
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS
from pytest_toolharness.wire.model_api._provider_errors import GoogleError
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = [
    "GEMINI_METHODS",
    "GeminiDialect",
    "GeminiRoute",
    "gemini_answer",
    "gemini_neutral_request",
    "gemini_route",
]

#: The model methods the scripted server answers.
GEMINI_METHODS = ("generateContent", "streamGenerateContent", "countTokens")
_PATH = re.compile(r"/(?:v1beta|v1|v1alpha)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)")


@dataclass(frozen=True, slots=True)
class GeminiRoute:
    """What a Gemini request path names: the model and the method (``generateContent``, ...)."""

    model: str
    method: str

    @property
    def stream(self) -> bool:
        """True for ``streamGenerateContent``."""
        return self.method == "streamGenerateContent"


def gemini_route(path: str) -> GeminiRoute | None:
    """The model and method of ``/v1beta/models/{model}:{method}``, or None for another path or method."""
    match = _PATH.fullmatch(path)
    if match is None or match["method"] not in GEMINI_METHODS:
        return None
    return GeminiRoute(match["model"], match["method"])


def gemini_answer(
    turn: AssistantTurn,
    route: GeminiRoute,
    *,
    response_id: str,
    prompt_tokens: int,
    chunks: int = DEFAULT_CHUNKS,
) -> bytes | tuple[bytes, ...]:
    """The answer: the response's bytes, or the streamed responses' SSE events."""
    out = output_tokens(turn)
    if route.stream:
        responses = gemini_stream_responses(
            turn,
            model=route.model,
            response_id=response_id,
            prompt_tokens=prompt_tokens,
            output_tokens=out,
            chunks=chunks,
        )
        return tuple(encode_gemini_sse(response) for response in responses)
    return wire_bytes(
        gemini_response_json(
            turn,
            model=route.model,
            response_id=response_id,
            prompt_tokens=prompt_tokens,
            output_tokens=out,
        )
    )


def _parts(content: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    parts = content.get("parts")
    return [p for p in parts if isinstance(p, Mapping)] if isinstance(parts, list) else []


def gemini_neutral_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The API-neutral view of a ``generateContent`` request: tools, then each content as a turn.

    A ``model`` content is an assistant turn: its ``functionCall`` parts are the ``calls`` (``id``
    the call's id, None when the harness sent none), its ``thought`` parts and the ``thoughtSignature`` of calls
    the ``reasoning`` (``{"signature", "call_id"}`` for a signed call). A ``user`` content's
    ``functionResponse`` parts are its ``outputs``: ``call_id`` the response's id (else its name),
    ``text`` the response object's JSON, ``is_error`` True when the response holds an ``error`` key
    (the documented way to report a failure), False otherwise.
    """
    tools = [
        {
            "name": d.get("name"),
            "description": d.get("description"),
            "input_schema": d.get("parametersJsonSchema", d.get("parameters")),
        }
        for t in body.get("tools") or ()
        if isinstance(t, Mapping)
        for d in t.get("functionDeclarations", t.get("function_declarations")) or ()
        if isinstance(d, Mapping)
    ]
    instruction = body.get("systemInstruction")
    system = "".join(
        str(p.get("text", "")) for p in (_parts(instruction) if isinstance(instruction, Mapping) else [])
    )
    turns: list[dict[str, Any]] = []
    for content in body.get("contents") or ():
        if not isinstance(content, Mapping):
            continue
        calls: list[dict[str, Any]] = []
        outputs: list[dict[str, Any]] = []
        reasoning: list[dict[str, Any]] = []
        text: list[str] = []
        for part in _parts(content):
            call = part.get("functionCall")
            response = part.get("functionResponse")
            if isinstance(call, Mapping):
                calls.append({"id": call.get("id"), "name": call.get("name"), "input": call.get("args", {})})
                if part.get("thoughtSignature"):
                    reasoning.append({"signature": part["thoughtSignature"], "call_id": call.get("id")})
            elif isinstance(response, Mapping):
                result = response.get("response")
                outputs.append(
                    {
                        "call_id": response.get("id", response.get("name")),
                        "text": wire_json(result) if result is not None else "",
                        "is_error": isinstance(result, Mapping) and "error" in result,
                    }
                )
            elif part.get("thought") is True:
                reasoning.append({"thought": part.get("text", ""), "signature": part.get("thoughtSignature")})
            elif isinstance(part.get("text"), str):
                text.append(part["text"])
        role = "assistant" if content.get("role") == "model" else "user"
        turns.append(
            {"role": role, "calls": calls, "outputs": outputs, "text": "".join(text), "reasoning": reasoning}
        )
    return {"api": "gemini", "tools": tools, "system": system, "turns": turns}


class GeminiDialect:
    """Gemini as a dialect of the scripted server: ``POST /v1beta/models/{model}:{method}``."""

    name = "gemini"

    def answers(self, method: str, path: str) -> bool:
        """True for a POST to a model method the server answers."""
        return method == "POST" and gemini_route(path) is not None

    def validate(self, body: Any, path: str) -> ApiError | None:
        """Google's 400 for ``body`` sent to ``path`` (the model in the path decides G-SIG), or None."""
        route = gemini_route(path)
        if route is None:
            return GoogleError(f"Method not found: {path}", status=404)
        return validate_gemini_request(body, route.model)

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        """An error in Google's shape, whatever kind of :class:`ApiError` it is (a scripted 503 too)."""
        return GoogleError(error.message, type=error.type, status=error.status).body(request_id)

    def counts_tokens(self, path: str) -> bool:
        """True for ``:countTokens``: answered with :meth:`count_answer`, consuming no turn."""
        route = gemini_route(path)
        return route is not None and route.method == "countTokens"

    def count_answer(self, tokens: int) -> bytes:
        """The ``countTokens`` answer."""
        return wire_bytes({"totalTokens": tokens})

    def answer(
        self,
        turn: AssistantTurn,
        body: Mapping[str, Any],
        *,
        index: int,
        id_prefix: str,
        prompt_tokens: int,
        chunks: int = DEFAULT_CHUNKS,
        path: str,
    ) -> bytes | tuple[bytes, ...]:
        """The response, or the stream of them for ``streamGenerateContent``."""
        route = gemini_route(path)
        if route is None:
            raise ValueError(f"{path} is not a Gemini model method")
        return gemini_answer(
            turn, route, response_id=f"{id_prefix}{index:012d}", prompt_tokens=prompt_tokens, chunks=chunks
        )

    def neutral_request(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The API-neutral view (:func:`gemini_neutral_request`)."""
        return gemini_neutral_request(body)
