"""Which tools are deferred, and whether tool search is on for a request (000 §4, §9)."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from anthropic.types import ToolParam

from reference_impl.tools._tool import Tool, ToolState

__all__ = [
    "CRITICAL_CHANNEL_TOOLS",
    "DEFAULT_AUTO_PERCENT",
    "TOOL_SEARCH_TOOL_NAME",
    "TokenCounter",
    "ToolSearchMode",
    "ToolSearchSetting",
    "is_deferred_tool",
    "is_tool_search_enabled",
    "model_supports_tool_reference",
    "parse_enable_tool_search",
    "tool_state",
]

TOOL_SEARCH_TOOL_NAME = "ToolSearch"
DEFAULT_AUTO_PERCENT = 10
CHARS_PER_TOKEN = 2.5
CRITICAL_CHANNEL_TOOLS: frozenset[str] = frozenset({"Brief", "SendUserFile"})
"""Tools that are a primary communication channel and must be usable on the first turn."""


def is_deferred_tool(tool: Tool, *, critical_channel_tools: Collection[str] = CRITICAL_CHANNEL_TOOLS) -> bool:
    """Whether ``tool`` is deferred, in the seed's order (DEFER-1).

    1. ``always_load`` is never deferred (MCP tools too); 2. MCP tools are deferred; 3. the
    search tool itself is never deferred; 4. critical-channel tools are never deferred;
    5. otherwise the tool's own ``should_defer``.
    """
    if tool.always_load:
        return False
    if tool.is_mcp:
        return True
    if tool.name == TOOL_SEARCH_TOOL_NAME:
        return False
    if tool.name in critical_channel_tools:
        return False
    return tool.should_defer


def tool_state(pool: Sequence[Tool], *, deferred_tool_names: Collection[str] | None = None) -> ToolState:
    """The :class:`ToolState` for ``pool``: its deferred tools are those :func:`is_deferred_tool` defers.

    Pass ``deferred_tool_names`` when the request decided otherwise (tool search off: none).
    """
    names = (
        frozenset(deferred_tool_names)
        if deferred_tool_names is not None
        else frozenset(tool.name for tool in pool if is_deferred_tool(tool))
    )
    return ToolState(tuple(pool), names)


class ToolSearchMode(enum.Enum):
    """``tst``: always defer; ``tst-auto``: defer above a token threshold; ``standard``: never."""

    TST = "tst"
    TST_AUTO = "tst-auto"
    STANDARD = "standard"


@dataclass(frozen=True, slots=True)
class ToolSearchSetting:
    """A parsed ``ENABLE_TOOL_SEARCH`` value."""

    mode: ToolSearchMode
    auto_percent: int = DEFAULT_AUTO_PERCENT


_AUTO_N = re.compile(r"auto:(\d{1,3})")


def parse_enable_tool_search(value: str | None) -> ToolSearchSetting:
    """Parse ``ENABLE_TOOL_SEARCH`` (DEFER-8).

    Unset, empty, ``true`` and ``auto:0`` mean always (tst); ``false`` and ``auto:100`` mean
    never (standard); ``auto`` and ``auto:N`` (1..99) mean on above N% of the context window.
    Anything else is a :class:`ValueError` that quotes the value.
    """
    if value is None:
        return ToolSearchSetting(ToolSearchMode.TST)
    text = value.strip().lower()
    if text in ("", "true", "1"):
        return ToolSearchSetting(ToolSearchMode.TST)
    if text in ("false", "0"):
        return ToolSearchSetting(ToolSearchMode.STANDARD)
    if text == "auto":
        return ToolSearchSetting(ToolSearchMode.TST_AUTO)
    match = _AUTO_N.fullmatch(text)
    if match:
        percent = int(match.group(1))
        if percent == 0:
            return ToolSearchSetting(ToolSearchMode.TST)
        if percent >= 100:
            if percent > 100:
                raise ValueError(f"ENABLE_TOOL_SEARCH={value!r}: the percentage must be 0 to 100")
            return ToolSearchSetting(ToolSearchMode.STANDARD)
        return ToolSearchSetting(ToolSearchMode.TST_AUTO, auto_percent=percent)
    raise ValueError(
        f"ENABLE_TOOL_SEARCH={value!r} is not one of: true, false, auto, auto:N (N from 0 to 100)"
    )


TokenCounter = Callable[[Sequence[ToolParam]], int | None]
"""Counts the tokens of some tool schemas; None when it can't (the character estimate is used)."""


def model_supports_tool_reference(model: str) -> bool:
    """Whether ``model`` understands ``tool_reference`` blocks (Haiku models do not)."""
    return "haiku" not in model.lower()


def _schema_chars(param: ToolParam) -> int:
    from reference_impl._wire import wire_json  # local: _wire imports this module's names

    return len(param["name"]) + len(param.get("description", "")) + len(wire_json(param["input_schema"]))


def is_tool_search_enabled(
    deferred_params: Sequence[ToolParam] | Callable[[], Sequence[ToolParam]],
    *,
    setting: ToolSearchSetting,
    model: str,
    search_tool_available: bool,
    context_window: int = 200_000,
    token_counter: TokenCounter | None = None,
    supports_tool_reference: Callable[[str], bool] = model_supports_tool_reference,
) -> bool:
    """Decide, for one request, whether deferred loading is on (DEFER-8; made anew per request).

    Off for a model without tool_reference support and when the search tool is not in the pool
    (denied). In tst-auto mode, on when the deferred tools' token count reaches
    ``auto_percent`` of ``context_window``; without a count, characters / 2.5 stand in.
    ``deferred_params`` may be a function that makes them: it is called only when they are counted
    (rendering 10,000 schemas for a decision that doesn't look at them is waste).
    """
    if not supports_tool_reference(model) or not search_tool_available:
        return False
    if setting.mode is ToolSearchMode.TST:
        return True
    if setting.mode is ToolSearchMode.STANDARD:
        return False
    threshold_tokens = context_window * setting.auto_percent / 100
    if callable(deferred_params):
        deferred_params = deferred_params()
    tokens = token_counter(deferred_params) if token_counter is not None else None
    if tokens is not None:
        return tokens >= threshold_tokens
    chars = sum(_schema_chars(p) for p in deferred_params)
    return chars >= threshold_tokens * CHARS_PER_TOKEN
