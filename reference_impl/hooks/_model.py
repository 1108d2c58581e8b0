"""Hooks around a tool call: the hook model, matchers, the registry and settings.json parsing (HOOK-1).

The shapes follow claude-agent-sdk (``HookMatcher(matcher, hooks, timeout)``, callbacks called as
``(input_data, tool_use_id, context)`` returning hook JSON output) and Claude Code's settings.json
``hooks`` key (``{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", ...}]}]}``).

Running the hooks of an event and aggregating their results (HOOK-2..4, EXEC-5) is
:mod:`reference_impl.hooks._runner`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict, get_args

from reference_impl.hooks._command import CommandHook

__all__ = [
    "ALL_HOOK_EVENTS",
    "TOOL_HOOK_EVENTS",
    "TOOL_MATCHER_EVENTS",
    "HookBaseInput",
    "HookCallback",
    "HookConfig",
    "HookConfigError",
    "HookContext",
    "HookEntry",
    "HookError",
    "HookErrorKind",
    "HookEvent",
    "HookMatcher",
    "Hooks",
    "UnsupportedHook",
    "compile_matcher",
    "hooks_from_settings",
]

HookEvent: TypeAlias = Literal["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]
TOOL_HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
"""The events the tool pipeline runs. Other Claude Code events are loaded and kept, never run here."""

TOOL_MATCHER_EVENTS: tuple[str, ...] = (*TOOL_HOOK_EVENTS, "PermissionDenied")
"""Events whose matcher is a tool name (Claude Code); only these matchers are compiled as regexes."""

ALL_HOOK_EVENTS: tuple[str, ...] = (
    *TOOL_MATCHER_EVENTS,
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
"""The Claude Code hook events known by name: the tool events, then the lifecycle ones (HOOK-7)."""


class HookConfigError(ValueError):
    """A hooks configuration that can't be used; the message names the file and the entry."""


class HookContext(TypedDict):
    """The third argument of a callback (claude-agent-sdk): ``signal`` is reserved, always None."""

    signal: Any | None


HookCallback: TypeAlias = Callable[[dict[str, Any], str | None, HookContext], Awaitable[dict[str, Any]]]
"""An in-process hook: ``(input_data, tool_use_id, context) -> hook JSON output`` (claude-agent-sdk)."""


@dataclass(frozen=True, slots=True)
class UnsupportedHook:
    """A hook of a type this harness doesn't run (``prompt``, ``agent``, ``http``...): kept, skipped, noted."""

    type: str
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How the hook is named in notes."""
        return f"<{self.type} hook>"


HookEntry: TypeAlias = "HookCallback | CommandHook | UnsupportedHook"


@dataclass(frozen=True, slots=True)
class HookBaseInput:
    """The fields every hook input carries (Claude Code's ``BaseHookInput``)."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str = "default"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object fields, in Claude Code's order."""
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "permission_mode": self.permission_mode,
        }


HookErrorKind: TypeAlias = Literal[
    "spawn",
    "timeout",
    "signal",
    "exit_code",
    "invalid_output",
    "output_too_large",
    "callback_raised",
    "unsupported",
]


@dataclass(frozen=True, slots=True)
class HookError:
    """A non-blocking hook failure: recorded, shown to the user, never a decision."""

    event: str
    hook: str
    kind: HookErrorKind
    message: str


_LITERAL_MATCHER = re.compile(r"[A-Za-z0-9_|]+")


def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
    """The predicate for a matcher, with Claude Code's rules (HOOK-1).

    None, ``""`` and ``*`` match every tool; a matcher of only letters, digits, ``_`` and ``|`` is an
    exact name or a ``|``-separated list of exact names; anything else is a regular expression
    searched in the name (unanchored, like JavaScript's ``RegExp.test``). An invalid regex raises
    :class:`HookConfigError`.
    """
    if matcher is None or matcher in ("", "*"):
        return lambda _name: True
    if not isinstance(matcher, str):
        raise HookConfigError(f"a matcher must be a string, got {type(matcher).__name__}")
    if _LITERAL_MATCHER.fullmatch(matcher):
        names = frozenset(part.strip() for part in matcher.split("|"))
        return lambda name: name in names
    try:
        pattern = re.compile(matcher)
    except re.error as exc:
        raise HookConfigError(f"invalid regular expression matcher {matcher!r}: {exc}") from None
    return lambda name: pattern.search(name) is not None


@dataclass(slots=True)
class HookMatcher:
    """Hooks that run for tools the matcher selects (claude-agent-sdk's ``HookMatcher``).

    ``timeout`` (seconds) applies to every hook here that doesn't set its own; default 60.
    """

    matcher: str | None = None
    hooks: list[HookEntry] = field(default_factory=list)
    timeout: float | None = None

    def matches(self, tool_name: str) -> bool:
        """Whether this matcher selects ``tool_name``."""
        return compile_matcher(self.matcher)(tool_name)


class Hooks:
    """The hooks of a session: event name -> matchers, in declaration order.

    Unknown events (``SessionStart``, ``Stop``...) are kept but never run by the tool pipeline.
    Matchers of tool events are checked at construction: an invalid regex is a :class:`HookConfigError`.
    """

    __slots__ = ("_compiled", "events", "source")

    def __init__(
        self, events: Mapping[str, Sequence[HookMatcher]] | None = None, *, source: str = ""
    ) -> None:
        self.source = source
        self.events: dict[str, tuple[HookMatcher, ...]] = {k: tuple(v) for k, v in (events or {}).items()}
        self._compiled: dict[str, list[tuple[Callable[[str], bool], HookMatcher]]] = {}
        for event, matchers in self.events.items():
            if event not in TOOL_MATCHER_EVENTS:
                continue
            compiled = []
            for i, m in enumerate(matchers):
                try:
                    compiled.append((compile_matcher(m.matcher), m))
                except HookConfigError as exc:
                    where = f"{source}: " if source else ""
                    raise HookConfigError(f"{where}hooks.{event}[{i}].matcher: {exc}") from None
            self._compiled[event] = compiled

    def __repr__(self) -> str:
        return f"Hooks({self.events!r}, source={self.source!r})"

    def merged(self, *others: Hooks) -> Hooks:
        """These hooks followed by ``others``' (settings sources combine by concatenation)."""
        events: dict[str, list[HookMatcher]] = {k: list(v) for k, v in self.events.items()}
        for other in others:
            for k, v in other.events.items():
                events.setdefault(k, []).extend(v)
        return Hooks(events, source=", ".join(s for s in (self.source, *(o.source for o in others)) if s))

    def matching(self, event: str, tool_name: str) -> Iterator[tuple[HookEntry, float | None]]:
        """Hooks for ``event`` whose matcher selects ``tool_name``, with the matcher's timeout.

        Identical command hooks are run once (Claude Code deduplicates them).
        """
        seen: set[str] = set()
        for predicate, m in self._compiled.get(event, ()):
            if not predicate(tool_name):
                continue
            for hook in m.hooks:
                if isinstance(hook, CommandHook):
                    if hook.command in seen:
                        continue
                    seen.add(hook.command)
                yield hook, m.timeout

    @property
    def unsupported(self) -> list[str]:
        """Notes for hooks that are kept but not run (other types, async commands), in order."""
        notes = []
        for event, matchers in self.events.items():
            for m in matchers:
                for h in m.hooks:
                    if isinstance(h, UnsupportedHook):
                        notes.append(f"{event}: {h.type!r} hooks are not supported; skipped")
                    elif isinstance(h, CommandHook) and h.run_async:
                        notes.append(f"{event}: async command hook {h.command!r} is not run; skipped")
        return notes


HookConfig = Hooks


def _parse_hook(raw: Any, where: str) -> HookEntry:
    if not isinstance(raw, Mapping):
        raise HookConfigError(f"{where}: a hook must be an object with a 'type', got {type(raw).__name__}")
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        raise HookConfigError(f"{where}: a hook needs a string 'type' (e.g. \"command\"), got {kind!r}")
    if kind != "command":
        return UnsupportedHook(kind, dict(raw))
    command, timeout, run_async = raw.get("command"), raw.get("timeout"), raw.get("async", False)
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"{where}: a command hook needs a non-empty 'command' string, got {command!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise HookConfigError(f"{where}: 'timeout' must be a positive number of seconds, got {timeout!r}")
    if not isinstance(run_async, bool):
        raise HookConfigError(f"{where}: 'async' must be true or false, got {run_async!r}")
    return CommandHook(command, float(timeout) if timeout is not None else None, run_async)


def hooks_from_settings(settings: Mapping[str, Any], *, name: str) -> Hooks:
    """Parse the ``hooks`` key of a Claude Code settings.json (``name`` is the file, for errors).

    Raises :class:`HookConfigError` naming the file and the entry when the shape is wrong: ``hooks``
    not an object, an event not a list of ``{"matcher", "hooks": [...]}`` entries, a hook without a
    type, a command hook without a command, a bad timeout, an invalid matcher regex.
    """
    raw = settings.get("hooks")
    if raw is None:
        return Hooks(source=name)
    if not isinstance(raw, Mapping):
        raise HookConfigError(
            f"{name}: 'hooks' must be an object mapping event names to lists, got {type(raw).__name__}"
        )
    events: dict[str, list[HookMatcher]] = {}
    for event, entries in raw.items():
        where = f"{name}: hooks.{event}"
        if not isinstance(entries, list):
            raise HookConfigError(
                f'{where} must be a list of {{"matcher": ..., "hooks": [...]}} entries, got {type(entries).__name__}'
            )
        matchers = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise HookConfigError(f"{where}[{i}] must be an object, got {type(entry).__name__}")
            matcher = entry.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                raise HookConfigError(f"{where}[{i}].matcher must be a string, got {matcher!r}")
            hooks = entry.get("hooks")
            if not isinstance(hooks, list):
                raise HookConfigError(f"{where}[{i}].hooks must be a list of hooks, got {hooks!r}")
            parsed = [_parse_hook(h, f"{where}[{i}].hooks[{j}]") for j, h in enumerate(hooks)]
            matchers.append(HookMatcher(matcher=matcher, hooks=parsed))
        events[str(event)] = matchers
    return Hooks(events, source=name)
