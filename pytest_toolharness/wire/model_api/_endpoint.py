"""The scripted Messages API in process: an ``httpx`` transport any framework's real client can use.

:class:`ScriptedEndpoint` answers exactly as :class:`~pytest_toolharness.wire.ScriptedApiServer` does
(the same script, validation, streaming and recording), without a socket: give a client
``http_client=endpoint.async_client()`` (an ``httpx2``, or ``httpx``, client on an in-process ``MockTransport``) and ``base_url=endpoint.base_url``,
and the framework's own Anthropic client, its encoding of tool results and its retries run for real.

This is how the shipped framework adapters (``pytest_toolharness.adapters.pydantic_ai`` and
``...langgraph``) check a framework's tool-calling code, and how an adapter for any other framework can:
script the model's turn with the scenario's ``tool_use`` blocks, let the framework run its tools, and
read the ``tool_result`` blocks from the request it sends next (:meth:`ScriptedEndpoint.last_user_content`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from pytest_toolharness.wire.model_api._recording import RecordedRequest, parse_json_body
from pytest_toolharness.wire.model_api._script import Script, ScriptSource
from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import AssistantTurn, ToolUseBlock

__all__ = ["ENDPOINT_BASE_URL", "ScriptedEndpoint", "tool_use_turn"]

ENDPOINT_BASE_URL = "http://scripted-messages-api.invalid"
"""The base URL a client is given; nothing resolves it, the transport answers."""


def http_module(name: str | None = None) -> ModuleType:
    """The HTTP library a client is built on: ``name``, else ``httpx2`` (the anthropic SDK's), else ``httpx``."""
    if name is not None:
        return importlib.import_module(name)
    try:
        return importlib.import_module("httpx2")
    except ImportError:
        return importlib.import_module("httpx")


def tool_use_turn(tool_uses: Sequence[Mapping[str, Any]]) -> AssistantTurn:
    """An assistant turn made of these ``tool_use`` blocks (``id``, ``name``, ``input``), in order.

    The API delivers every ``input`` as a JSON object: any other input raises ``TypeError`` naming the
    block (the suite draws none for a harness without the ``non_object_input`` capability).
    """
    return AssistantTurn(
        tuple(
            ToolUseBlock(name=str(block["name"]), input=block.get("input", {}), id=str(block["id"]))
            for block in tool_uses
        )
    )


class ScriptedEndpoint:
    """The scripted Messages API behind an in-process ``httpx`` transport.

    ``script`` is what :class:`~pytest_toolharness.wire.ScriptedApiServer` takes (assistant turns, API
    errors, a callable or a :class:`~pytest_toolharness.wire.Script`); the keyword options are its
    options too. Every request is recorded (:attr:`requests`), answered or rejected as the API would.
    """

    base_url = ENDPOINT_BASE_URL

    def __init__(self, script: ScriptSource | Script = (), **options: Any) -> None:
        # The server is never started: only its answering logic is used.
        self._server = ScriptedApiServer(script, **options)

    def handle(self, request: Any) -> Any:
        """Answer one request (the transport's handler); the response is of the request's own library."""
        http = importlib.import_module(type(request).__module__.partition(".")[0])
        server = self._server
        headers: dict[str, str] = {}
        for name, value in request.headers.multi_items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        body = request.content
        recorded = RecordedRequest(
            index=server._reserve_index(),
            method=request.method,
            path=request.url.path,
            query=dict(request.url.params.items()),
            headers=headers,
            body=body,
            json=parse_json_body(body),
        )
        recorded, response = server._answer(recorded)
        server._record(recorded)
        answer_headers = {"request-id": server._request_id(recorded.index)}
        if response.events is None:
            answer_headers["content-type"] = "application/json"
            if response.no_retry:
                answer_headers["x-should-retry"] = "false"
            return http.Response(response.status, headers=answer_headers, content=response.body)
        answer_headers["content-type"] = "text/event-stream; charset=utf-8"
        return http.Response(response.status, headers=answer_headers, content=b"".join(response.events))

    def transport(self, library: str | None = None) -> Any:
        """A ``MockTransport`` (sync and async clients) answered by this endpoint.

        ``library`` is ``"httpx2"`` (what the anthropic SDK uses) or ``"httpx"``; see :func:`http_module`.
        """
        return http_module(library).MockTransport(self.handle)

    def async_client(self, library: str | None = None) -> Any:
        """An ``AsyncClient`` on this endpoint, for a client's ``http_client=`` argument."""
        return http_module(library).AsyncClient(transport=self.transport(library), base_url=self.base_url)

    def client(self, library: str | None = None) -> Any:
        """A ``Client`` on this endpoint."""
        return http_module(library).Client(transport=self.transport(library), base_url=self.base_url)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in arrival order."""
        return self._server.requests

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/messages`` requests."""
        return self._server.message_requests

    @property
    def script_errors(self) -> list[str]:
        """Tracebacks of script callables that raised."""
        return self._server.script_errors

    def last_user_content(self) -> list[dict[str, Any]] | None:
        """The content of the last user message of the last messages request (None if there is none).

        After a turn of ``tool_use`` blocks, this is the framework's ``tool_result`` message exactly as
        its client sent it (a string content becomes one text block).
        """
        for request in reversed(self.message_requests):
            messages = request.messages
            if messages and isinstance(messages[-1], Mapping) and messages[-1].get("role") == "user":
                content = messages[-1].get("content")
                if isinstance(content, str):
                    return [{"type": "text", "text": content}]
                return [dict(b) for b in content] if isinstance(content, list) else []
            return None
        return None
