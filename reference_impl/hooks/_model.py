"""Hooks around a tool call: the hook model, matchers, the registry and settings.json parsing (HOOK-1).

The shapes follow claude-agent-sdk (``HookMatcher(matcher, hooks, timeout)``, callbacks called as
``(input_data, tool_use_id, context)`` returning hook JSON output) and Claude Code's settings.json
``hooks`` key (``{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", ...}]}]}``).

Running the hooks of an event and aggregating their results (HOOK-2..4, EXEC-5) is
:mod:`reference_impl.hooks._runner`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypedDict, get_args

from reference_impl.hooks._command import CommandHook, OnFailure
from reference_impl.permissions import (
    SETTINGS_PRECEDENCE,
    PermissionRule,
    RuleSyntaxError,
    SettingsFile,
    managed_flag,
    parse_rule,
)

__all__ = [
    "ALL_HOOK_EVENTS",
    "DOCUMENTED_HOOK_EVENTS",
    "LIFECYCLE_EVENTS",
    "PLUGIN_ROOT_VARIABLE",
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
    "HttpHook",
    "LifecycleEvent",
    "UnsupportedHook",
    "compile_matcher",
    "hooks_from_plugin",
    "hooks_from_settings",
    "hooks_from_settings_files",
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

DOCUMENTED_HOOK_EVENTS: frozenset[str] = frozenset(
    {
        *ALL_HOOK_EVENTS,
        "Setup",
        "InstructionsLoaded",
        "SubagentStart",
        "TaskCreated",
        "TaskCompleted",
        "StopFailure",
        "TeammateIdle",
        "PostCompact",
        "Elicitation",
        "ElicitationResult",
        "WorktreeCreate",
        "WorktreeRemove",
        "ConfigChange",
        "CwdChanged",
        "FileChanged",
    }
)
"""Every event name Claude Code documents (its hooks reference). The ones outside
``ALL_HOOK_EVENTS`` are loaded and kept, never run here; any other name refuses the file: a
misspelt ``PreToolUSE`` guard must not load and then never run."""

LifecycleEvent: TypeAlias = Literal[
    "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact", "Notification"
]
LIFECYCLE_EVENTS: tuple[LifecycleEvent, ...] = get_args(LifecycleEvent)
"""The events the agent loop runs at its lifecycle moments (HOOK-7), in ``ALL_HOOK_EVENTS`` order."""

MATCHERLESS_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "Stop", "SubagentStop"})
"""Events without a matcher (Claude Code ignores one): every entry runs. The other lifecycle events
match their ``matcher`` against a value of the event (SessionStart ``source``, PreCompact ``trigger``,
SessionEnd ``reason``, Notification ``notification_type``)."""

PLUGIN_ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"
"""Replaced by a plugin's directory in its hook commands, and set in their environment (HOOK-8)."""


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


@dataclass(frozen=True, slots=True)
class HttpHook:
    """A ``{"type": "http", "url": ..., "headers": ..., "allowedEnvVars": [...], "timeout": ...}`` hook (HOOK-8).

    The hook input is POSTed as JSON; a 2xx answer's JSON body is read like a command hook's stdout
    (an empty or non-JSON body says nothing). Any other status, a refused connection or a timeout is a
    non-blocking error: an http hook can block only with a decision in its body. ``$VAR`` / ``${VAR}``
    in a header value is replaced by the environment variable when it is in ``allowed_env_vars``,
    else by nothing.
    """

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    allowed_env_vars: tuple[str, ...] = ()
    timeout: float | None = None
    condition: PermissionRule | None = None
    """The ``if`` rule: the hook runs only for tool calls it matches (as a command hook's)."""
    on_failure: OnFailure = "continue"
    """``onFailure``: ``block`` makes an error answer, refused connection or timeout block the call."""

    @property
    def label(self) -> str:
        """How the hook is named in reasons and errors: its URL."""
        return self.url


HookEntry: TypeAlias = "HookCallback | CommandHook | HttpHook | UnsupportedHook"


@dataclass(frozen=True, slots=True)
class HookBaseInput:
    """The fields every hook input carries (Claude Code's ``BaseHookInput``, HOOK-6).

    ``prompt_id`` identifies the user prompt being processed (None before the first prompt, as at
    SessionStart). Claude Code 2.1 sends ``permission_mode`` with the prompt and tool events, not with
    SessionStart and SessionEnd; :meth:`to_dict` with ``with_mode=False`` leaves it out.
    """

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str = "default"
    prompt_id: str | None = None

    def to_dict(self, *, with_mode: bool = True) -> dict[str, Any]:
        """The JSON object fields, in Claude Code's order."""
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
        }
        if self.prompt_id is not None:
            data["prompt_id"] = self.prompt_id
        if with_mode:
            data["permission_mode"] = self.permission_mode
        return data


HookErrorKind: TypeAlias = Literal[
    "spawn",
    "timeout",
    "signal",
    "exit_code",
    "invalid_output",
    "output_too_large",
    "callback_raised",
    "unsupported",
    "http",
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

    ``timeout`` (seconds) applies to every hook here that doesn't set its own; default 600.
    """

    matcher: str | None = None
    hooks: list[HookEntry] = field(default_factory=list)
    timeout: float | None = None
    source: str = ""
    """The settings file (or plugin) the hooks come from: identical hooks are run once per source."""

    def matches(self, tool_name: str) -> bool:
        """Whether this matcher selects ``tool_name``."""
        return compile_matcher(self.matcher)(tool_name)


class Hooks:
    """The hooks of a session: event name -> matchers, in declaration order.

    The tool pipeline runs the tool events; the agent loop runs the lifecycle events (HOOK-7); other
    names are kept and never run. Matchers are checked at construction: an invalid regex is a
    :class:`HookConfigError`. Async command hooks started by a run are kept in :attr:`background`
    until the loop collects them.
    """

    __slots__ = ("_compiled", "background", "events", "source")

    def __init__(
        self, events: Mapping[str, Sequence[HookMatcher]] | None = None, *, source: str = ""
    ) -> None:
        self.source = source
        self.events: dict[str, tuple[HookMatcher, ...]] = {k: tuple(v) for k, v in (events or {}).items()}
        self._compiled: dict[str, list[tuple[Callable[[str], bool], HookMatcher]]] = {}
        self.background: list[Any] = []
        """Async hooks still running or not yet collected: ``(event, asyncio.Task)`` pairs."""
        for event, matchers in self.events.items():
            if event in MATCHERLESS_EVENTS:
                self._compiled[event] = [(lambda _value: True, m) for m in matchers]
                continue
            if event not in ALL_HOOK_EVENTS:
                continue  # kept, never run: its matcher may follow rules of its own (FileChanged globs)
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

        ``tool_name`` is the event's matched value: the tool, or the SessionStart ``source``, the
        PreCompact ``trigger``... (ignored for events without a matcher). Identical command hooks and
        identical http hooks of one source are run once (Claude Code deduplicates them); the same
        command line from two sources, or from two plugins (two plugin roots), is two hooks, and so is
        the same command under another ``if``, ``onFailure`` or ``async``.
        """
        seen: set[tuple[str, str | None, str, PermissionRule | None, str, bool]] = set()
        for predicate, m in self._compiled.get(event, ()):
            if not predicate(tool_name):
                continue
            for hook in m.hooks:
                # Hooks that differ in arguments, condition, failure mode or being async are different
                # hooks: an async twin seen first must not stand for a command hook that can decide.
                key = (
                    (
                        m.source,
                        hook.plugin_root,
                        f"command:{hook.label}",
                        hook.condition,
                        hook.on_failure,
                        hook.run_async,
                    )
                    if isinstance(hook, CommandHook)
                    else (m.source, None, f"http:{hook.url}", hook.condition, hook.on_failure, False)
                    if isinstance(hook, HttpHook)
                    else None
                )
                if key is not None:
                    if key in seen:
                        continue
                    seen.add(key)
                yield hook, m.timeout

    def has(self, event: str) -> bool:
        """Whether any hook is configured for ``event`` (the loop skips building inputs otherwise)."""
        return any(m.hooks for m in self.events.get(event, ()))

    @property
    def unsupported(self) -> list[str]:
        """Notes for hooks that are kept but not run (``prompt``, ``agent`` and unknown types), in order."""
        notes = []
        for event, matchers in self.events.items():
            for m in matchers:
                for h in m.hooks:
                    if isinstance(h, UnsupportedHook):
                        notes.append(f"{event}: {h.type!r} hooks are not supported; skipped")
        return notes


HookConfig = Hooks


_SHARED_HANDLER_KEYS = frozenset({"type", "timeout", "if", "onFailure", "statusMessage", "once"})
"""Handler keys every runnable type takes. ``statusMessage`` (a spinner text) and ``once`` (skills'
frontmatter only) change no decision: checked for their type, otherwise ignored."""

_HANDLER_KEYS: dict[str, frozenset[str]] = {
    "command": _SHARED_HANDLER_KEYS | {"command", "args", "async", "asyncRewake", "shell"},
    "http": _SHARED_HANDLER_KEYS | {"url", "headers", "allowedEnvVars"},
}
"""The documented keys of each hook type this harness runs; any other key refuses the file (a key
that is dropped may be one that narrows the hook, and a narrowed hook silently widened fails open)."""

_IF_EVENTS = frozenset(TOOL_MATCHER_EVENTS)
"""Events whose hooks may carry ``if``: the tool events, where a call can match a permission rule."""


def _check_handler_keys(raw: Mapping[str, Any], kind: str, where: str) -> None:
    unknown = sorted(str(k) for k in raw if k not in _HANDLER_KEYS[kind])
    if unknown:
        known = ", ".join(sorted(_HANDLER_KEYS[kind]))
        raise HookConfigError(
            f"{where}: unknown {kind} hook key {unknown[0]!r} (known: {known}); "
            "a hook key this harness can't honour refuses the hook"
        )
    for key, expected in (("statusMessage", str), ("once", bool), ("asyncRewake", bool)):
        value = raw.get(key)
        if value is not None and not isinstance(value, expected):
            what = "a string" if expected is str else "true or false"
            raise HookConfigError(f"{where}: {key!r} must be {what}, got {value!r}")
    shell = raw.get("shell")
    if shell is not None and shell != "bash":
        # Hooks run under bash here; another shell would run the command as a different program.
        raise HookConfigError(f"{where}: 'shell' {shell!r} is not supported (hooks run with bash)")


def _parse_condition(raw: Mapping[str, Any], where: str, event: str) -> PermissionRule | None:
    text = raw.get("if")
    if text is None:
        return None
    if event not in _IF_EVENTS:
        raise HookConfigError(f"{where}: 'if' applies to tool events only, not {event}")
    if not isinstance(text, str):
        raise HookConfigError(f"{where}: 'if' must be a permission rule string, got {text!r}")
    try:
        # As a deny rule: a compound command matches when any of its commands does (Claude Code).
        return parse_rule(text, "deny", "session")
    except RuleSyntaxError as exc:
        raise HookConfigError(f"{where}: 'if' {text!r} is not a permission rule: {exc}") from None


def _parse_on_failure(raw: Mapping[str, Any], where: str) -> OnFailure:
    value = raw.get("onFailure", "continue")
    if value == "continue":
        return "continue"
    if value == "block":
        return "block"
    raise HookConfigError(f'{where}: \'onFailure\' must be "continue" or "block", got {value!r}')


def _parse_http(
    raw: Mapping[str, Any],
    where: str,
    timeout: float | None,
    condition: PermissionRule | None,
    on_failure: OnFailure,
) -> HttpHook:
    url, headers, allowed = raw.get("url"), raw.get("headers", {}), raw.get("allowedEnvVars", [])
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise HookConfigError(f"{where}: an http hook needs an http(s) 'url', got {url!r}")
    if not isinstance(headers, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise HookConfigError(f"{where}: 'headers' must map header names to strings, got {headers!r}")
    if not isinstance(allowed, list) or not all(isinstance(v, str) for v in allowed):
        raise HookConfigError(f"{where}: 'allowedEnvVars' must be a list of names, got {allowed!r}")
    return HttpHook(url, dict(headers), tuple(allowed), timeout, condition, on_failure)


def _parse_args(raw: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    args = raw.get("args")
    if args is None:
        return None
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise HookConfigError(f"{where}: 'args' must be a list of strings, got {args!r}")
    return tuple(args)


def _parse_hook(raw: Any, where: str, event: str, plugin_root: str | None = None) -> HookEntry:
    if not isinstance(raw, Mapping):
        raise HookConfigError(f"{where}: a hook must be an object with a 'type', got {type(raw).__name__}")
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        raise HookConfigError(f"{where}: a hook needs a string 'type' (e.g. \"command\"), got {kind!r}")
    if kind not in ("command", "http"):
        return UnsupportedHook(kind, dict(raw))
    _check_handler_keys(raw, kind, where)
    timeout = raw.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise HookConfigError(f"{where}: 'timeout' must be a positive number of seconds, got {timeout!r}")
    seconds = float(timeout) if timeout is not None else None
    condition = _parse_condition(raw, where, event)
    on_failure = _parse_on_failure(raw, where)
    if kind == "http":
        return _parse_http(raw, where, seconds, condition, on_failure)
    command, run_async = raw.get("command"), raw.get("async", False)
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"{where}: a command hook needs a non-empty 'command' string, got {command!r}")
    if not isinstance(run_async, bool):
        raise HookConfigError(f"{where}: 'async' must be true or false, got {run_async!r}")
    if run_async and on_failure == "block":
        raise HookConfigError(
            f"{where}: an async hook can't block, so 'onFailure': \"block\" can't be honoured"
        )
    args = _parse_args(raw, where)
    if plugin_root is not None:
        variable = "${" + PLUGIN_ROOT_VARIABLE + "}"
        command = command.replace(variable, plugin_root)
        args = None if args is None else tuple(a.replace(variable, plugin_root) for a in args)
    return CommandHook(command, seconds, run_async, plugin_root, args, condition, on_failure)


def hooks_from_settings(settings: Mapping[str, Any], *, name: str, plugin_root: str | None = None) -> Hooks:
    """Parse the ``hooks`` key of a Claude Code settings.json (``name`` is the file, for errors).

    Raises :class:`HookConfigError` naming the file and the entry when the shape is wrong: ``hooks``
    not an object, an unknown event name, an event not a list of ``{"matcher", "hooks": [...]}``
    entries, a hook without a type, a command hook without a command, a bad timeout, an invalid
    matcher regex, a handler key that is unknown or of the wrong type, an ``if`` that is not a
    permission rule, an ``onFailure`` other than ``continue`` / ``block``.
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
        if event not in DOCUMENTED_HOOK_EVENTS:
            near = next((e for e in sorted(DOCUMENTED_HOOK_EVENTS) if e.lower() == str(event).lower()), None)
            hint = f"; did you mean {near!r}?" if near else ""
            raise HookConfigError(
                f"{where}: unknown hook event {event!r}{hint} (event names are case-sensitive)"
            )
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
            parsed = [
                _parse_hook(h, f"{where}[{i}].hooks[{j}]", str(event), plugin_root)
                for j, h in enumerate(hooks)
            ]
            matchers.append(HookMatcher(matcher=matcher, hooks=parsed, source=name))
        events[str(event)] = matchers
    return Hooks(events, source=name)


def _hooks_disabled(files: Sequence[SettingsFile]) -> tuple[bool, bool]:
    """``disableAllHooks`` as the settings say it: (every hook off, every non-managed hook off).

    Set true in managed settings, no hook runs. Elsewhere the highest-precedence file that sets it
    decides, and it can't turn managed hooks off (Claude Code's settings hierarchy).
    """
    for f in files:
        value = f.data.get("disableAllHooks")
        if value is not None and not isinstance(value, bool):
            raise HookConfigError(f"{f.name}: 'disableAllHooks' must be true or false, got {value!r}")
    rank = {source: i for i, source in enumerate(SETTINGS_PRECEDENCE)}
    others = sorted(
        (f for f in files if f.source != "policySettings" and "disableAllHooks" in f.data),
        key=lambda f: rank.get(f.source, -1),
    )
    return managed_flag(files, "disableAllHooks"), bool(others) and others[-1].data["disableAllHooks"] is True


def hooks_from_settings_files(
    files: Sequence[SettingsFile], *, plugin_dirs: Sequence[str | Path] = ()
) -> Hooks:
    """The session's hooks: each settings file's ``hooks`` then each plugin's, as the settings allow.

    ``disableAllHooks: true`` turns hooks off (:func:`_hooks_disabled`); ``allowManagedHooksOnly``
    (honoured from managed settings only) keeps the managed files' hooks and no other file's or
    plugin's. A malformed ``hooks`` key is refused even in a file whose hooks are off.
    """
    every_hook_off, others_off = _hooks_disabled(files)
    managed_only = others_off or managed_flag(files, "allowManagedHooksOnly")
    hooks = Hooks()
    for f in files:
        parsed = hooks_from_settings(f.data, name=f.name)
        if not every_hook_off and (not managed_only or f.source == "policySettings"):
            hooks = hooks.merged(parsed)
    if not every_hook_off and not managed_only:
        for plugin in plugin_dirs:
            hooks = hooks.merged(hooks_from_plugin(plugin))
    return hooks


def hooks_from_plugin(plugin_root: str | Path) -> Hooks:
    """The hooks of a Claude Code plugin: its ``hooks/hooks.json`` (HOOK-8).

    The file has the settings.json shape (``{"description": ..., "hooks": {event: [...]}}``). In each
    command, ``${CLAUDE_PLUGIN_ROOT}`` becomes the plugin's absolute directory, which the command also
    gets as ``CLAUDE_PLUGIN_ROOT`` in its environment. A plugin without the file has no hooks; a file
    that is not JSON or has the wrong shape raises :class:`HookConfigError` naming it.
    """
    root = Path(plugin_root).resolve()
    path = root / "hooks" / "hooks.json"
    if not path.is_file():
        return Hooks(source=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HookConfigError(f"{path}: can't be read as JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise HookConfigError(f"{path}: must hold a JSON object with a 'hooks' key")
    return hooks_from_settings(data, name=str(path), plugin_root=str(root))
