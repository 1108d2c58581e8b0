"""Prompt-cache stability: the cache-break hash, the beta-header latch, the message marker.

* :func:`cache_break_hash` (CACHE-1, 000 §8.3): a digest of what the prompt cache is keyed on,
  to detect a cache break. Tools sent with ``defer_loading`` are left out: the API strips them
  from the prompt, so connecting or dropping an MCP server must not look like a cache break.
* :class:`BetaLatch` (CACHE-6): the tool-search beta header, once sent in a session, is sent on
  every later request (headers are part of the cache key) until :meth:`BetaLatch.reset`.
* :func:`place_message_cache_marker` (CACHE-5): exactly one message-level
  ``cache_control`` breakpoint, on the last content block of the last message.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from anthropic.types import MessageParam

from reference_impl._wire import wire_bytes

__all__ = [
    "ADVANCED_TOOL_USE_BETA",
    "EPHEMERAL",
    "TOOL_SEARCH_TOOL_BETA",
    "BetaLatch",
    "Provider",
    "cache_break_hash",
    "place_message_cache_marker",
    "tool_search_beta_header",
]

Provider = Literal["firstParty", "foundry", "vertex", "bedrock"]
ADVANCED_TOOL_USE_BETA = "advanced-tool-use-2025-11-20"
TOOL_SEARCH_TOOL_BETA = "tool-search-tool-2025-10-19"
EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}
_PROVIDERS: tuple[Provider, ...] = ("firstParty", "foundry", "vertex", "bedrock")


def cache_break_hash(request: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the wire bytes of ``model``, ``system`` and the non-deferred ``tools``.

    ``request`` is a Messages API request body (or :attr:`BuiltRequest.params`). Adding, removing
    or changing a tool sent with ``defer_loading: true`` leaves the hash unchanged; any change to
    another tool changes it (CACHE-1).
    """
    tools = [t for t in request.get("tools", ()) if not (isinstance(t, Mapping) and t.get("defer_loading"))]
    key = {"model": request.get("model"), "system": request.get("system", ()), "tools": tools}
    return hashlib.sha256(wire_bytes(key)).hexdigest()


def tool_search_beta_header(provider: Provider) -> str:
    """The beta that enables ``defer_loading`` and ``tool_reference`` for ``provider`` (000 §5.4)."""
    if provider in ("firstParty", "foundry"):
        return ADVANCED_TOOL_USE_BETA
    if provider in ("vertex", "bedrock"):
        return TOOL_SEARCH_TOOL_BETA
    raise ValueError(f"unknown API provider {provider!r}: expected one of {', '.join(_PROVIDERS)}")


class BetaLatch:
    """The session's tool-search beta: once sent, always sent, until :meth:`reset` (CACHE-6).

    Changing headers mid-session would change the cache key, so a request after tool search
    turned off (tst-auto below its threshold, a switch to Haiku) still carries the header.
    Bedrock: Claude Code does not put the header in the ``anthropic-beta`` list for Bedrock
    (000 §5.4; Bedrock takes betas in the request body), so :meth:`betas` returns none for it
    while :attr:`latched` still records that tool search was used.
    """

    def __init__(self, provider: Provider = "firstParty") -> None:
        self.header = tool_search_beta_header(provider)
        self.provider = provider
        self._latched = False

    @property
    def latched(self) -> bool:
        """Whether the header has been sent in this session (since the last reset)."""
        return self._latched

    def betas(self, *, tool_search_enabled: bool) -> tuple[str, ...]:
        """The ``anthropic-beta`` values for a request; latches the header when tool search is on."""
        if tool_search_enabled:
            self._latched = True
        if not self._latched or self.provider == "bedrock":
            return ()
        return (self.header,)

    def reset(self) -> None:
        """Forget the latch (``/clear`` or compaction, when the cache is rebuilt anyway)."""
        self._latched = False


_MARKABLE_SKIP = frozenset({"thinking", "redacted_thinking"})


def _strip_markers(block: dict[str, Any]) -> None:
    block.pop("cache_control", None)
    content = block.get("content")
    if block.get("type") == "tool_result" and isinstance(content, list):
        for item in content:
            if isinstance(item, dict):
                item.pop("cache_control", None)


def place_message_cache_marker(messages: Sequence[MessageParam]) -> list[MessageParam]:
    """A copy of ``messages`` with exactly one ``cache_control`` marker, on the last block (CACHE-5).

    Every other message-level marker (including inside tool results) is removed; a string
    content becomes one text block so that it can carry the marker; thinking blocks, which can't
    carry one, are skipped. The caller's messages are never changed. An empty list stays empty.
    """
    copied = cast(list[dict[str, Any]], copy.deepcopy(list(messages)))
    for message in copied:
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    _strip_markers(block)
    if not copied:
        return []
    last = copied[-1]
    if isinstance(last.get("content"), str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    blocks = [b for b in last["content"] if isinstance(b, dict) and b.get("type") not in _MARKABLE_SKIP]
    if not blocks:
        raise ValueError("the last message has no content block that can carry a cache_control marker")
    blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return cast(list[MessageParam], copied)
