"""The host decision: asking the user or embedding application about a call (004 §5.7).

The shapes follow claude-agent-sdk's ``can_use_tool`` callback: it gets the tool name, the input
and a :class:`ToolPermissionContext`, and answers :class:`PermissionResultAllow` (optionally with an
updated input) or :class:`PermissionResultDeny` (with a message for the model, and ``interrupt`` to
stop the whole batch).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "CanUseTool",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "ToolPermissionContext",
]


@dataclass(frozen=True, slots=True)
class ToolPermissionContext:
    """What the host gets besides the call: the abort signal and why it is being asked."""

    signal: asyncio.Event | None = None
    suggestions: Sequence[Any] = ()
    reason: str = ""
    tool_use_id: str = ""


@dataclass(frozen=True, slots=True)
class PermissionResultAllow:
    """The host allows the call, possibly with a rewritten input (validated and judged again)."""

    behavior: Literal["allow"] = "allow"
    updated_input: Mapping[str, Any] | None = None
    updated_permissions: Sequence[Any] | None = field(default=None)


@dataclass(frozen=True, slots=True)
class PermissionResultDeny:
    """The host denies the call; ``message`` goes to the model; ``interrupt`` aborts the batch."""

    behavior: Literal["deny"] = "deny"
    message: str = ""
    interrupt: bool = False


PermissionResult: TypeAlias = PermissionResultAllow | PermissionResultDeny
CanUseTool: TypeAlias = Callable[[str, dict[str, Any], ToolPermissionContext], Awaitable[PermissionResult]]
