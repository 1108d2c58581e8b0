"""The responses a scripted Responses API keeps, as ``previous_response_id`` and item ids refer to them.

A response created with ``store`` true (the default) is kept with the whole conversation it answered
(its ``previous_response_id`` chain, its ``input``, its ``output``), and its items by id, so a later
request may name the response or send an item by its id alone. A response created with ``store: false``
is not kept: its item ids are remembered only to answer the API's "not persisted" 404 (R-STORE). The
model's reasoning item before each function call it produced is remembered either way: the API asks for
it back with the call (R-REASONING, R-RSFOLLOW).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ResponseStore", "StoredResponse", "input_items"]


def input_items(body: Mapping[str, Any]) -> list[Any]:
    """A request's ``input`` as items: a string is one user message."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    if isinstance(raw, Sequence) and not isinstance(raw, str | bytes | bytearray):
        return list(raw)
    return []


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """A kept response: the conversation it answered (its input resolved) and its output items."""

    context: tuple[Any, ...]
    output: tuple[dict[str, Any], ...]


class ResponseStore:
    """Kept responses and items of one scripted server (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._responses: dict[str, StoredResponse] = {}
        self._items: dict[str, Mapping[str, Any]] = {}
        self._unstored: set[str] = set()
        self._reasoning_of: dict[str, str] = {}
        self._produced_by: dict[str, str] = {}

    def response(self, response_id: Any) -> StoredResponse | None:
        """The kept response ``response_id``, or None."""
        with self._lock:
            return self._responses.get(response_id) if isinstance(response_id, str) else None

    def item(self, item_id: Any) -> Mapping[str, Any] | None:
        """The kept item ``item_id``, or None."""
        with self._lock:
            return self._items.get(item_id) if isinstance(item_id, str) else None

    def unstored(self, item_id: Any) -> bool:
        """True for an item the server sent in a response created with ``store: false``."""
        with self._lock:
            return item_id in self._unstored

    def reasoning_of(self, call_item_id: Any) -> str | None:
        """The id of the reasoning item that came before the function call item ``call_item_id``."""
        with self._lock:
            return self._reasoning_of.get(call_item_id) if isinstance(call_item_id, str) else None

    def produced_by(self, reasoning_id: Any) -> str | None:
        """The id of the item the reasoning item ``reasoning_id`` was followed by in its response."""
        with self._lock:
            return self._produced_by.get(reasoning_id) if isinstance(reasoning_id, str) else None

    def resolve(self, item: Any) -> Any:
        """An ``item_reference`` or an id-only reasoning item as the kept item; any other item as given."""
        if not isinstance(item, Mapping):
            return item
        bare_reasoning = item.get("type") == "reasoning" and not item.get("encrypted_content")
        if item.get("type") == "item_reference" or bare_reasoning:
            kept = self.item(item.get("id"))
            return dict(kept) if kept is not None else item
        return item

    def conversation(self, body: Mapping[str, Any]) -> list[Any]:
        """The items the model sees: the previous response's whole conversation, then this ``input``."""
        previous = self.response(body.get("previous_response_id"))
        before = [*previous.context, *previous.output] if previous is not None else []
        return [*before, *(self.resolve(item) for item in input_items(body))]

    def hold(self, body: Mapping[str, Any], response_id: str, output: Sequence[dict[str, Any]]) -> None:
        """Keep a response just answered (unless ``store`` is false) and what its reasoning produced."""
        context = tuple(self.conversation(body))
        with self._lock:
            reasoning: str | None = None
            for item in output:
                if item["type"] == "reasoning":
                    reasoning = item["id"]
                    continue
                if reasoning is not None:
                    self._produced_by.setdefault(reasoning, item["id"])
                    if item["type"] == "function_call":
                        self._reasoning_of[item["id"]] = reasoning
            if body.get("store") is False:
                self._unstored.update(item["id"] for item in output)
                return
            self._responses[response_id] = StoredResponse(context, tuple(output))
            for item in (*context, *output):
                if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                    self._items.setdefault(item["id"], item)
