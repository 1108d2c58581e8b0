"""Scripted assistant turns: the content blocks and the turn a scripted model API answers with.

An :class:`AssistantTurn` is one assistant message the server sends back: a list of content blocks
(:class:`TextBlock`, :class:`ThinkingBlock`, :class:`ToolUseBlock`), a stop reason and, optionally,
a model name. :func:`tool_use_id` and :class:`ToolUseIds` make deterministic tool_use ids.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, get_args

from pytest_toolharness.wire.model_api._encoding import wire_json

__all__ = [
    "STOP_REASONS",
    "AssistantTurn",
    "ContentBlock",
    "StopReason",
    "StreamFault",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "ToolUseIds",
    "tool_use_id",
]

StopReason: TypeAlias = Literal[
    "end_turn",
    "max_tokens",
    "stop_sequence",
    "tool_use",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
]
STOP_REASONS: tuple[str, ...] = get_args(StopReason)

_ID_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True, slots=True)
class TextBlock:
    """A ``text`` content block."""

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"TextBlock.text must be a str, got {type(self.text).__name__}")

    def to_api(self) -> dict[str, Any]:
        """The block as it appears in a Message's ``content``."""
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """A ``thinking`` content block with its signature."""

    thinking: str
    signature: str = "c2lnbmF0dXJl"

    def __post_init__(self) -> None:
        if not isinstance(self.thinking, str) or not isinstance(self.signature, str):
            raise TypeError("ThinkingBlock.thinking and .signature must be str")

    def to_api(self) -> dict[str, Any]:
        """The block as it appears in a Message's ``content``."""
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    """A ``tool_use`` content block: the model asks to call ``name`` with ``input``."""

    id: str
    name: str
    input: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or not set(self.id) <= _ID_ALPHABET:
            raise ValueError(f"tool_use id must be a non-empty string of [A-Za-z0-9_-], got {self.id!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"tool_use name must be a non-empty str, got {self.name!r}")
        if not isinstance(self.input, Mapping):
            raise TypeError(
                f"tool_use {self.id} input must be a mapping (a JSON object: the Messages API delivers no "
                f"other), got {type(self.input).__name__} {self.input!r}"
            )
        # Fail now, not mid-stream, when the input can't be encoded as JSON.
        try:
            wire_json(self.input)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"tool_use {self.id} input is not JSON-encodable: {exc}") from exc

    def input_json(self) -> str:
        """The input as the JSON text the API streams in ``input_json_delta`` chunks."""
        return wire_json(self.input)

    def to_api(self) -> dict[str, Any]:
        """The block as it appears in a Message's ``content``."""
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": dict(self.input)}


ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock


@dataclass(frozen=True, slots=True)
class StreamFault:
    """A turn's stream that breaks mid-turn: after ``after_blocks`` whole content blocks it ends.

    ``kind`` ``cut``: the stream just ends, without ``message_delta`` and ``message_stop``;
    ``error``: an ``error`` event (``overloaded_error``) comes instead, as the API sends when it
    fails mid-stream. Only the Messages API's stream expresses it; a non-streamed request for such
    a turn is answered 529 ``overloaded_error``.
    """

    kind: Literal["cut", "error"]
    after_blocks: int

    def __post_init__(self) -> None:
        if self.kind not in ("cut", "error"):
            raise ValueError(f"StreamFault.kind must be 'cut' or 'error', got {self.kind!r}")
        if not isinstance(self.after_blocks, int) or self.after_blocks < 0:
            raise ValueError(f"StreamFault.after_blocks must be an int >= 0, got {self.after_blocks!r}")


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    """One scripted assistant message.

    ``stop_reason`` defaults to ``"tool_use"`` when any block is a tool_use and to ``"end_turn"``
    otherwise; ``model`` defaults to the model the request asked for. ``fault``: the stream breaks
    mid-turn (:class:`StreamFault`).
    """

    blocks: Sequence[ContentBlock]
    stop_reason: StopReason | None = None
    model: str | None = None
    fault: StreamFault | None = None

    def __post_init__(self) -> None:
        if isinstance(self.blocks, str | bytes) or not isinstance(self.blocks, Sequence):
            raise TypeError("AssistantTurn.blocks must be a sequence of TextBlock/ThinkingBlock/ToolUseBlock")
        blocks = tuple(self.blocks)
        for index, block in enumerate(blocks):
            if not isinstance(block, TextBlock | ThinkingBlock | ToolUseBlock):
                raise TypeError(
                    f"AssistantTurn.blocks[{index}] is a {type(block).__name__}, not a content block"
                )
        ids = [block.id for block in blocks if isinstance(block, ToolUseBlock)]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"AssistantTurn has duplicate tool_use ids: {', '.join(duplicates)}")
        if self.stop_reason is not None and self.stop_reason not in STOP_REASONS:
            raise ValueError(f"unknown stop_reason {self.stop_reason!r}; expected one of {STOP_REASONS}")
        # A tuple keeps the frozen turn immutable even when built from a list.
        object.__setattr__(self, "blocks", blocks)

    @classmethod
    def text(cls, text: str, *, model: str | None = None) -> AssistantTurn:
        """A turn with a single text block (stop reason ``end_turn``)."""
        return cls((TextBlock(text),), model=model)

    @property
    def effective_stop_reason(self) -> str:
        """The stop reason sent: the explicit one, else ``tool_use`` if any tool_use, else ``end_turn``."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_uses else "end_turn"

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        """The tool_use blocks, in order."""
        return tuple(block for block in self.blocks if isinstance(block, ToolUseBlock))

    def content(self) -> list[dict[str, Any]]:
        """The ``content`` array of the Message."""
        return [block.to_api() for block in self.blocks]


def tool_use_id(n: int, prefix: str = "01Scripted") -> str:
    """The ``n``-th deterministic tool_use id: ``toolu_`` + ``prefix`` + ``n`` zero-padded.

    The suffix is 24 characters long like the API's ids, so ids sort in creation order.
    """
    if n < 0:
        raise ValueError(f"tool_use id counter must be >= 0, got {n}")
    if not prefix or not set(prefix) <= _ID_ALPHABET:
        raise ValueError(f"tool_use id prefix must be non-empty [A-Za-z0-9_-], got {prefix!r}")
    width = max(24 - len(prefix), 1)
    return f"toolu_{prefix}{n:0{width}d}"


class ToolUseIds:
    """A thread-safe counter of unique, deterministic tool_use ids (see :func:`tool_use_id`)."""

    def __init__(self, prefix: str = "01Scripted", start: int = 1) -> None:
        tool_use_id(start, prefix)  # validates prefix and start
        self._prefix = prefix
        self._next = start
        self._lock = threading.Lock()

    def next(self) -> str:
        """A fresh id."""
        with self._lock:
            n = self._next
            self._next += 1
        return tool_use_id(n, self._prefix)

    def block(self, name: str, input: Mapping[str, Any] | None = None) -> ToolUseBlock:
        """A :class:`ToolUseBlock` for ``name`` with a fresh id."""
        return ToolUseBlock(self.next(), name, dict(input or {}))
