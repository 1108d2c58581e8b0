"""A request a scripted model API server received, and how it answered it.

:class:`RecordedRequest` keeps the raw request (method, path, query, headers, body) and its parsed
JSON; its properties read a Messages API body (``messages``, ``tools``, ``anthropic-beta``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._messages import MESSAGES_PATH
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = ["RecordedRequest", "parse_json_body"]


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the server received and how it answered.

    ``headers`` has lowercased names (repeated headers joined with ``", "``); ``query`` maps each
    query parameter to its last value; ``json`` is the parsed body, or None when it was not JSON.
    ``status`` is None only while a script callable is deciding the answer; ``error`` is the answer's
    error when it was one, so a request the API would reject (``status`` 400) stays visible as
    rejected, with the API's text. ``resolved`` is the whole request a message-thread ``continue``
    stands for (the held history, ``system`` and ``tools`` with the new messages), or the body of a
    ``create`` without its ``thread``; None for a request without ``thread``.
    """

    index: int
    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: bytes
    json: Any
    status: int | None = None
    error: ApiError | None = None
    turn: AssistantTurn | None = None
    script_exhausted: bool = False
    traceback: str | None = field(default=None, repr=False)
    #: A model request of another API (Chat Completions, Gemini): its body in the Messages shape.
    view: Any = field(default=None, repr=False)
    resolved: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def is_messages(self) -> bool:
        """True for ``POST /v1/messages`` (any query), or a model request of another API (it has a view)."""
        return self.view is not None or (self.method == "POST" and self.path == MESSAGES_PATH)

    @property
    def messages_body(self) -> Any:
        """The body in the Messages API's shape: the view of another API's request, else the JSON."""
        return self.view if self.view is not None else self.json

    @property
    def stream(self) -> bool:
        """True when the body asked for a streamed answer."""
        return isinstance(self.json, Mapping) and self.json.get("stream") is True

    @property
    def messages(self) -> list[Any]:
        """The body's ``messages`` (empty if absent), in the Messages shape."""
        body = self.messages_body
        value = body.get("messages") if isinstance(body, Mapping) else None
        return list(value) if isinstance(value, list) else []

    @property
    def rejected(self) -> bool:
        """True when the server answered with a 400: the API would not have taken the request."""
        return self.status == 400 and self.error is not None

    @property
    def conversation(self) -> list[Any]:
        """The whole conversation the request stands for: :attr:`messages`, or a thread's whole history."""
        if self.resolved is not None and isinstance(self.resolved.get("messages"), list):
            return list(self.resolved["messages"])
        return self.messages

    @property
    def tools(self) -> list[Any]:
        """The body's ``tools`` (empty if absent), in the Messages shape."""
        body = self.messages_body
        value = body.get("tools") if isinstance(body, Mapping) else None
        return list(value) if isinstance(value, list) else []

    @property
    def tool_names(self) -> list[str]:
        """The names in ``tools``, in order."""
        return [t["name"] for t in self.tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)]

    @property
    def beta_headers(self) -> list[str]:
        """The comma-separated values of ``anthropic-beta``."""
        raw = self.headers.get("anthropic-beta", "")
        return [part.strip() for part in raw.split(",") if part.strip()]


def parse_json_body(body: bytes) -> Any:
    """The parsed JSON of a request body, or None when it is empty or not JSON."""
    if not body:
        return None
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
