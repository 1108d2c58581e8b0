"""Permission inputs: rules as written in settings, settings files, and the host that answers asks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "HostAnswer",
    "HostSpec",
    "RuleSpec",
    "SettingsSpec",
]


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """A permission rule as written in settings (``Bash(npm test:*)``), its list and its source."""

    text: str
    behavior: Literal["allow", "ask", "deny"]
    source: str = "projectSettings"


@dataclass(frozen=True, slots=True)
class HostAnswer:
    """What the host (user or embedding application) answers when asked about a call.

    ``interrupt`` (with ``deny``) also stops the batch, as a user who rejects a prompt and stops the
    agent does (the SDK's ``PermissionResultDeny(interrupt=True)``; capability ``host_interrupt``).
    """

    behavior: Literal["allow", "deny"]
    updated_input: Mapping[str, Any] | None = None
    message: str = "the user said no"
    interrupt: bool = False


@dataclass(slots=True)
class HostSpec:
    """A host that answers permission questions, recording every question it was asked."""

    answer: Callable[[str, Mapping[str, Any]], HostAnswer] = lambda _name, _input: HostAnswer("allow")
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def ask(self, tool_name: str, tool_input: Mapping[str, Any]) -> HostAnswer:
        """Record the question and answer it."""
        self.asked.append((tool_name, dict(tool_input)))
        return self.answer(tool_name, tool_input)


@dataclass(frozen=True, slots=True)
class SettingsSpec:
    """One Claude Code settings file of the session: its JSON ``content`` and the ``source`` it sits in.

    ``source`` is ``userSettings``, ``projectSettings``, ``localSettings``, ``flagSettings``
    (``--settings FILE``) or ``policySettings`` (managed); a scenario's files come in any order, and
    the harness applies its own precedence. The permission keys the suite uses:
    ``permissions.allow/ask/deny`` (rules), ``defaultMode``, ``additionalDirectories`` (relative ones
    are relative to the working directory), ``blockWritesOutsideWorkingDirectories``,
    ``denyInsteadOfPrompting``, ``disableBypassPermissionsMode`` and ``disableAutoMode``.
    """

    source: str
    content: Mapping[str, Any]
