"""Running the hooks of one event and aggregating their results (HOOK-2..8, EXEC-5).

All hooks matching one event run concurrently; their results are read back in declaration order so
aggregation is deterministic. A hook that fails in any way (raises, times out, exits 1, prints
garbage) is a non-blocking error: it is recorded and never allows anything. Only a valid decision or
an exit code 2 counts. The PreToolUse verdict is an *input* to the decision engine, which keeps deny
and ask rules above a hook's allow (PERM-2); PostToolUse runs after the call and can't undo it
(HOOK-4): its block becomes text for the model. Every event's ``continue: false``, ``stopReason`` and
``systemMessage`` are collected for the agent loop (HOOK-5); the lifecycle events the loop runs are
:func:`run_lifecycle` (HOOK-7). Http hooks and async command hooks follow the same rules (HOOK-8).

What a hook is and which hooks match a tool is :mod:`reference_impl.hooks._model`.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from reference_impl.hooks._command import DEFAULT_HOOK_TIMEOUT, CommandHook, HookRunResult, run_command_hook
from reference_impl.hooks._http import HttpHookResult, run_http_hook
from reference_impl.hooks._model import (
    MATCHERLESS_EVENTS,
    HookBaseInput,
    HookContext,
    HookEntry,
    HookError,
    HookEvent,
    Hooks,
    HttpHook,
    LifecycleEvent,
    UnsupportedHook,
)
from reference_impl.permissions import HookVerdict, PermissionBehavior
from reference_impl.tools import parse_mcp_name

__all__ = [
    "BackgroundHookResult",
    "HookSignals",
    "LifecycleOutcome",
    "OutputUpdate",
    "PermissionRequestDecision",
    "PermissionRequestOutcome",
    "PostToolUseOutcome",
    "PreToolUseOutcome",
    "collect_background",
    "format_hook_error",
    "run_lifecycle",
    "run_permission_request",
    "run_post_tool_use",
    "run_post_tool_use_failure",
    "run_pre_tool_use",
]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class OutputUpdate:
    """A PostToolUse hook's replacement for the tool output (``updatedMCPToolOutput``)."""

    value: Any
    hook: str


def format_hook_error(event: str, tool_name: str, text: str) -> str:
    """The model-visible text of a hook block: ``PreToolUse:Bash hook error: <text>`` (Claude Code)."""
    return f"{event}:{tool_name} hook error: {text}"


class _Invalid(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Run:
    """One hook's raw result: a JSON object, an exit-2 block, an error, or nothing to say.

    ``text`` is plain (non-JSON) output of a successful hook: context for UserPromptSubmit and
    SessionStart, ignored elsewhere.
    """

    label: str
    output: dict[str, Any] | None = None
    blocking: str | None = None
    error: HookError | None = None
    text: str | None = None


def _interpret_command(res: HookRunResult, event: str) -> _Run:
    label = res.command
    if res.spawn_error is not None:
        return _Run(label, error=HookError(event, label, "spawn", res.spawn_error))
    if res.timed_out:
        return _Run(label, error=HookError(event, label, "timeout", f"hook timed out after {res.timeout:g}s"))
    if res.signal is not None:
        return _Run(label, error=HookError(event, label, "signal", f"hook was killed by signal {res.signal}"))
    if res.exit_code == 2:
        # Exit 2: stdout (and any JSON in it) is ignored; stderr is the message for the model.
        return _Run(label, blocking=res.stderr.strip() or "No stderr output")
    if res.exit_code != 0:
        detail = res.stderr.strip()[:2000]
        return _Run(
            label,
            error=HookError(event, label, "exit_code", f"hook exited with code {res.exit_code}: {detail}"),
        )
    if res.stdout_truncated:
        return _Run(
            label,
            error=HookError(event, label, "output_too_large", "hook stdout exceeded the size limit; ignored"),
        )
    return _parse_output(label, res.stdout, event)


def _parse_output(label: str, raw: str, event: str) -> _Run:
    """A successful hook's output (command stdout, http body): a JSON object, plain text, or nothing."""
    text = raw.strip()
    if not text.startswith("{"):
        return _Run(label, text=text or None)  # plain output: no decision (Claude Code logs it)
    try:
        value = json.loads(text)
    except ValueError as exc:
        return _Run(
            label, error=HookError(event, label, "invalid_output", f"hook stdout is not valid JSON: {exc}")
        )
    if not isinstance(value, dict):
        return _Run(
            label, error=HookError(event, label, "invalid_output", "hook JSON output is not an object")
        )
    return _Run(label, output=value)


def _interpret_http(res: HttpHookResult, event: str) -> _Run:
    label = res.url
    if res.error is not None:
        kind: Any = "timeout" if res.timed_out else "http"
        return _Run(label, error=HookError(event, label, kind, res.error))
    if res.status is None or not 200 <= res.status < 300:
        detail = res.body.strip()[:2000]
        msg = f"http hook answered {res.status}: {detail}".rstrip(": ")
        return _Run(label, error=HookError(event, label, "http", msg))
    return _parse_output(label, res.body, event)


_SDK_KEYS = {"continue_": "continue", "async_": "async"}


def _label(hook: HookEntry) -> str:
    if isinstance(hook, CommandHook | HttpHook | UnsupportedHook):
        return hook.label
    return str(getattr(hook, "__qualname__", None) or repr(hook))


@dataclass(frozen=True, slots=True)
class BackgroundHookResult:
    """An async command hook that finished in the background: what it said, read later by the loop.

    It can't decide anything (the call went on without it); its ``systemMessage`` and
    ``additionalContext`` are delivered on the next turn, its failure is a non-blocking error.
    """

    event: str
    hook: str
    system_message: str | None = None
    additional_context: str | None = None
    error: HookError | None = None


def _background_result(event: str, run: _Run) -> BackgroundHookResult:
    if run.error is not None:
        return BackgroundHookResult(event, run.label, error=run.error)
    if run.blocking is not None:
        msg = f"async hook exited 2 (it can't block; the call already went on): {run.blocking}"
        return BackgroundHookResult(event, run.label, error=HookError(event, run.label, "exit_code", msg))
    out = run.output or {}
    message = out.get("systemMessage")
    hso = out.get("hookSpecificOutput")
    context = hso.get("additionalContext") if isinstance(hso, dict) else None
    return BackgroundHookResult(
        event,
        run.label,
        system_message=message if isinstance(message, str) and message else None,
        additional_context=context if isinstance(context, str) and context else None,
    )


async def collect_background(hooks: Hooks, *, wait: bool = False) -> list[BackgroundHookResult]:
    """The async hooks that finished (all of them, awaited, with ``wait``), removed from ``hooks``.

    In the order they were started; a hook cancelled on the way out is left out.
    """
    if wait and hooks.background:
        await asyncio.gather(*(task for _, task in hooks.background), return_exceptions=True)
    done: list[BackgroundHookResult] = []
    pending = []
    for event, task in hooks.background:
        if not task.done():
            pending.append((event, task))
        elif not task.cancelled() and task.exception() is None:
            done.append(_background_result(event, task.result()))
    hooks.background[:] = pending
    return done


async def _run_one(
    hook: HookEntry,
    matcher_timeout: float | None,
    event: str,
    input_data: dict[str, Any],
    tool_use_id: str | None,
    cwd: str,
    background: list[Any] | None = None,
) -> _Run:
    label = _label(hook)
    if isinstance(hook, UnsupportedHook):
        what = f"{hook.type!r} hooks are not supported; skipped"
        return _Run(label, error=HookError(event, label, "unsupported", what))
    if isinstance(hook, HttpHook):
        timeout = hook.timeout if hook.timeout is not None else matcher_timeout
        return _interpret_http(await run_http_hook(hook, input_data, timeout=timeout), event)
    if isinstance(hook, CommandHook):
        timeout = hook.timeout if hook.timeout is not None else matcher_timeout
        if hook.run_async and background is not None:
            # Started and left running: the event goes on without it (Claude Code's "async": true).
            async def in_background() -> _Run:
                res = await run_command_hook(hook, input_data, cwd=cwd, timeout=timeout)
                return _interpret_command(res, event)

            background.append((event, asyncio.ensure_future(in_background())))
            return _Run(label)
        return _interpret_command(await run_command_hook(hook, input_data, cwd=cwd, timeout=timeout), event)
    timeout = matcher_timeout if matcher_timeout is not None else DEFAULT_HOOK_TIMEOUT
    context: HookContext = {"signal": None}
    try:
        # A deep copy: a callback mutating its input must not rewrite the call behind our back.
        result: Any = await asyncio.wait_for(hook(copy.deepcopy(input_data), tool_use_id, context), timeout)
    except TimeoutError:
        return _Run(label, error=HookError(event, label, "timeout", f"hook timed out after {timeout:g}s"))
    except Exception as exc:
        return _Run(
            label,
            error=HookError(event, label, "callback_raised", f"hook raised {type(exc).__name__}: {exc}"),
        )
    if not isinstance(result, dict):
        msg = f"hook returned {type(result).__name__}, not a dict"
        return _Run(label, error=HookError(event, label, "invalid_output", msg))
    # The Python SDK spells the keywords ``continue_`` / ``async_``; the wire spells them plainly.
    output = {_SDK_KEYS.get(str(k), str(k)): v for k, v in result.items()}
    return _Run(label, output=output)


_Matched = list[tuple[HookEntry, float | None]]


async def _run_event(
    matched: _Matched,
    event: str,
    input_data: dict[str, Any],
    tool_use_id: str | None,
    cwd: str,
    background: list[Any] | None = None,
) -> list[_Run]:
    # Concurrent, like Claude Code; gather keeps declaration order for deterministic aggregation.
    jobs = [_run_one(h, t, event, input_data, tool_use_id, cwd, background) for h, t in matched]
    return list(await asyncio.gather(*jobs))


# ---------------------------------------------------------------------------------------------
# Reading outputs


def _opt(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``obj[key]`` if present and of ``kind`` (JSON null counts as absent); else :class:`_Invalid`."""
    value = obj.get(key)
    if value is None:
        return None
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise _Invalid(f"{key} must be {what}, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class _Fields:
    stop: bool
    stop_reason: str
    system_message: str | None
    decision: str | None
    reason: str
    hso: dict[str, Any]
    additional_context: str | None


def _fields(out: dict[str, Any], event: str) -> _Fields:
    """Validate the fields every event shares (Claude Code's hook JSON output)."""
    cont = _opt(out, "continue", bool, "a boolean")
    stop_reason = _opt(out, "stopReason", str, "a string") or ""
    _opt(out, "suppressOutput", bool, "a boolean")
    system_message = _opt(out, "systemMessage", str, "a string")
    decision = out.get("decision")
    if decision is not None and decision not in ("approve", "block"):
        raise _Invalid(f'decision must be "approve" or "block", got {decision!r}')
    reason = _opt(out, "reason", str, "a string") or ""
    hso: dict[str, Any] = _opt(out, "hookSpecificOutput", dict, "an object") or {}
    if hso and hso.get("hookEventName") != event:
        raise _Invalid(
            f"hookSpecificOutput.hookEventName must be {event!r}, got {hso.get('hookEventName')!r}"
        )
    context = _opt(hso, "additionalContext", str, "a string")
    return _Fields(cont is False, stop_reason, system_message, decision, reason, hso, context)


@dataclass(frozen=True, slots=True)
class _Blocked:
    """An exit code 2: ``message`` (the hook's stderr) is for the model."""

    message: str


@dataclass(slots=True)
class _Acc:
    """What every outcome collects, in declaration order."""

    stop: bool = False
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)

    def take(self, f: _Fields) -> None:
        if f.stop and not self.stop:
            self.stop, self.stop_reason = True, f.stop_reason
        if f.system_message:
            self.system_messages.append(f.system_message)
        if f.additional_context:
            self.additional_contexts.append(f.additional_context)

    def sift(
        self, event: str, runs: Sequence[_Run], parse: Callable[[_Fields, str], _T]
    ) -> Iterator[tuple[str, _T | _Blocked]]:
        """Record errors; yield each exit-2 block and each valid output, parsed, with its hook's label.

        An output is valid when its shared fields and ``parse`` (the event's own fields) accept it;
        only then are its shared fields taken. Async outputs (``{"async": true}``) say nothing.
        """
        for run in runs:
            if run.error is not None:
                self.errors.append(run.error)
            elif run.blocking is not None:
                self.blocking_errors.append(run.blocking)
                yield run.label, _Blocked(run.blocking)
            elif run.output is not None and not run.output.get("async"):
                try:
                    f = _fields(run.output, event)
                    parsed = parse(f, run.label)
                except _Invalid as exc:
                    msg = f"invalid hook output: {exc}"
                    self.errors.append(HookError(event, run.label, "invalid_output", msg))
                    continue
                self.take(f)
                yield run.label, parsed


def _event_data(
    base: HookBaseInput, event: HookEvent, tool_name: str, tool_input: Mapping[str, Any]
) -> dict[str, Any]:
    """The input fields every tool event starts with, in Claude Code's order."""
    return {
        **base.to_dict(),
        "hook_event_name": event,
        "tool_name": tool_name,
        "tool_input": dict(tool_input),
    }


# ---------------------------------------------------------------------------------------------
# PreToolUse

_RANK: dict[PermissionBehavior, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True, slots=True)
class PreToolUseOutcome:
    """The PreToolUse hooks' combined result for one call (HOOK-2).

    ``verdict`` is the most restrictive valid decision (deny > ask > allow), None when no hook
    decided. For deny its ``reason`` is the text for the model; for ask, the question's reason.
    An exit code 2 is a deny whose reason carries the hook's stderr. ``updated_input`` comes from
    the last hook in declaration order that decided like the verdict and returned ``updatedInput``
    (None on deny). ``stop`` is a hook's ``continue: false``.
    """

    verdict: HookVerdict | None = None
    updated_input: dict[str, Any] | None = None
    additional_contexts: list[str] = field(default_factory=list)
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""


def _pre_decision(f: _Fields, label: str) -> tuple[PermissionBehavior | None, str, dict[str, Any] | None]:
    pd = f.hso.get("permissionDecision")
    if pd is not None and pd not in ("allow", "deny", "ask", "defer"):
        raise _Invalid(f'permissionDecision must be "allow", "deny", "ask" or "defer", got {pd!r}')
    pdr = _opt(f.hso, "permissionDecisionReason", str, "a string") or ""
    updated = _opt(f.hso, "updatedInput", dict, "an object")
    behavior: PermissionBehavior | None
    if pd is not None:
        # "defer" hands the call to an outside decider; here that is the host, i.e. ask.
        behavior, reason = ("ask" if pd == "defer" else pd), pdr
    elif f.decision is not None:
        # Legacy top-level decision: "approve" is allow, "block" is deny.
        behavior, reason = ("allow" if f.decision == "approve" else "deny"), f.reason
    else:
        behavior, reason = None, pdr or f.reason
    return behavior, reason, updated


async def run_pre_tool_use(
    hooks: Hooks, *, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, base: HookBaseInput
) -> PreToolUseOutcome:
    """Run the PreToolUse hooks matching ``tool_name`` and aggregate them (HOOK-2, HOOK-3)."""
    event: HookEvent = "PreToolUse"
    matched = list(hooks.matching(event, tool_name))
    if not matched:
        # What aggregating no runs gives, without building the hook input (the usual case, per call).
        return PreToolUseOutcome()
    data = {**_event_data(base, event, tool_name, tool_input), "tool_use_id": tool_use_id}
    acc = _Acc()
    runs = await _run_event(matched, event, data, tool_use_id, base.cwd, hooks.background)
    decisions: list[tuple[PermissionBehavior | None, str, str, dict[str, Any] | None]] = []
    for label, parsed in acc.sift(event, runs, _pre_decision):
        if isinstance(parsed, _Blocked):
            decisions.append(("deny", format_hook_error(event, tool_name, parsed.message), label, None))
            continue
        behavior, reason, updated = parsed
        if behavior == "deny":
            reason = (
                format_hook_error(event, tool_name, reason)
                if reason
                else f"Hook {event}:{tool_name} denied this tool"
            )
        decisions.append((behavior, reason, label, updated))
    behaviors: list[PermissionBehavior] = [d[0] for d in decisions if d[0] is not None]
    verdict = None
    winner: PermissionBehavior | None = None
    if behaviors:
        top: PermissionBehavior = max(behaviors, key=_RANK.__getitem__)
        first = next(d for d in decisions if d[0] == top)
        verdict, winner = HookVerdict(top, first[1], first[2]), top
    updated_input = None
    if winner != "deny":
        for behavior, _, _, updated in decisions:
            if behavior == winner and updated is not None:
                updated_input = updated
    return PreToolUseOutcome(
        verdict, updated_input, acc.additional_contexts, acc.blocking_errors, acc.errors,
        acc.system_messages, acc.stop, acc.stop_reason,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# PostToolUse / PostToolUseFailure


@dataclass(frozen=True, slots=True)
class PostToolUseOutcome:
    """The PostToolUse (or PostToolUseFailure) hooks' combined result (EXEC-5, HOOK-4).

    The call already ran: ``block`` never undoes it; ``block_messages`` (a ``decision: "block"``
    reason or an exit-2 stderr, formatted) are errors the model sees after the result.
    ``updated_mcp_tool_output`` replaces the output (MCP tools, or any tool via ``updatedToolOutput``).
    """

    block_messages: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    updated_mcp_tool_output: OutputUpdate | None = None
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""

    @property
    def block(self) -> bool:
        """Whether a hook blocked (the model is told; the result stands)."""
        return bool(self.block_messages)

    @property
    def block_reason(self) -> str:
        """All block messages, one per line."""
        return "\n".join(self.block_messages)


def _shared_fields(f: _Fields, label: str) -> _Fields:
    return f


async def _run_post(
    hooks: Hooks,
    matched: _Matched,
    event: HookEvent,
    tool_name: str,
    data: dict[str, Any],
    tool_use_id: str,
    cwd: str,
) -> PostToolUseOutcome:
    acc = _Acc()
    runs = await _run_event(matched, event, data, tool_use_id, cwd, hooks.background)
    blocks: list[str] = []
    update: OutputUpdate | None = None
    is_mcp = parse_mcp_name(tool_name) is not None
    # Lazily: an ignored updatedMCPToolOutput is an error recorded in declaration order.
    for label, f in acc.sift(event, runs, _shared_fields):
        if isinstance(f, _Blocked):
            blocks.append(format_hook_error(event, tool_name, f.message))
            continue
        if f.decision == "block":
            blocks.append(format_hook_error(event, tool_name, f.reason or f"blocked by hook {label}"))
        if event != "PostToolUse":
            continue
        if "updatedToolOutput" in f.hso:
            update = OutputUpdate(f.hso["updatedToolOutput"], label)
        elif "updatedMCPToolOutput" in f.hso:
            if is_mcp:
                update = OutputUpdate(f.hso["updatedMCPToolOutput"], label)
            else:
                msg = f"updatedMCPToolOutput applies to MCP tools only; ignored for {tool_name}"
                acc.errors.append(HookError(event, label, "invalid_output", msg))
    return PostToolUseOutcome(
        blocks, acc.additional_contexts, update, acc.blocking_errors, acc.errors,
        acc.system_messages, acc.stop, acc.stop_reason,
    )  # fmt: skip


async def run_post_tool_use(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    tool_response: Any,
    base: HookBaseInput,
    duration_ms: int | None = None,
) -> PostToolUseOutcome:
    """Run the PostToolUse hooks after a successful call (EXEC-5); they can't undo it (HOOK-4).

    ``tool_response`` is the tool's own response shape (HOOK-6); ``duration_ms`` how long the call took.
    """
    event: HookEvent = "PostToolUse"
    matched = list(hooks.matching(event, tool_name))
    if not matched:
        return PostToolUseOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_response": tool_response,
        "tool_use_id": tool_use_id,
    }
    if duration_ms is not None:
        data["duration_ms"] = duration_ms
    return await _run_post(hooks, matched, event, tool_name, data, tool_use_id, base.cwd)


async def run_post_tool_use_failure(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    error: str,
    base: HookBaseInput,
    is_interrupt: bool = False,
    duration_ms: int | None = None,
) -> PostToolUseOutcome:
    """Run the PostToolUseFailure hooks after a failed call (EXEC-5); no output update applies."""
    event: HookEvent = "PostToolUseFailure"
    matched = list(hooks.matching(event, tool_name))
    if not matched:
        return PostToolUseOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_use_id": tool_use_id,
        "error": error,
        "is_interrupt": is_interrupt,
    }
    if duration_ms is not None:
        data["duration_ms"] = duration_ms
    return await _run_post(hooks, matched, event, tool_name, data, tool_use_id, base.cwd)


# ---------------------------------------------------------------------------------------------
# PermissionRequest


@dataclass(frozen=True, slots=True)
class PermissionRequestDecision:
    """A PermissionRequest hook's answer in place of the user (PERM-8)."""

    behavior: Literal["allow", "deny"]
    hook: str
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[Any] | None = None
    message: str = ""
    interrupt: bool = False


@dataclass(frozen=True, slots=True)
class PermissionRequestOutcome:
    """The PermissionRequest hooks' combined answer: any deny beats every allow; None if none decided."""

    decision: PermissionRequestDecision | None = None
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""


def _permission_decision(f: _Fields, label: str) -> PermissionRequestDecision | None:
    d = _opt(f.hso, "decision", dict, "an object")
    if d is None:
        return None
    behavior = d.get("behavior")
    if behavior == "allow":
        updated = _opt(d, "updatedInput", dict, "an object")
        perms = _opt(d, "updatedPermissions", list, "a list")
        return PermissionRequestDecision("allow", label, updated_input=updated, updated_permissions=perms)
    if behavior == "deny":
        message = _opt(d, "message", str, "a string") or ""
        interrupt = bool(_opt(d, "interrupt", bool, "a boolean"))
        return PermissionRequestDecision("deny", label, message=message, interrupt=interrupt)
    raise _Invalid(f'decision.behavior must be "allow" or "deny", got {behavior!r}')


async def run_permission_request(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    base: HookBaseInput,
    permission_suggestions: Sequence[Any] = (),
) -> PermissionRequestOutcome:
    """Run the PermissionRequest hooks when the call would be put to the user (PERM-8)."""
    event: HookEvent = "PermissionRequest"
    matched = list(hooks.matching(event, tool_name))
    if not matched:
        return PermissionRequestOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_use_id": tool_use_id,
        "permission_suggestions": list(permission_suggestions),
    }
    acc = _Acc()
    runs = await _run_event(matched, event, data, tool_use_id, base.cwd, hooks.background)
    decisions: list[PermissionRequestDecision] = []
    for label, decision in acc.sift(event, runs, _permission_decision):
        if isinstance(decision, _Blocked):
            message = format_hook_error(event, tool_name, decision.message)
            decisions.append(PermissionRequestDecision("deny", label, message=message))
        elif decision is not None:
            decisions.append(decision)
    result = None
    denies = [d for d in decisions if d.behavior == "deny"]
    if denies:
        first = denies[0]
        message = first.message or f"Permission to use {tool_name} was denied by hook {first.hook}"
        result = PermissionRequestDecision(
            "deny", first.hook, message=message, interrupt=any(d.interrupt for d in denies)
        )
    elif decisions:
        updated = [d.updated_input for d in decisions if d.updated_input is not None]
        perms = [p for d in decisions for p in (d.updated_permissions or ())]
        result = PermissionRequestDecision(
            "allow", decisions[0].hook, updated_input=updated[-1] if updated else None,
            updated_permissions=perms or None,
        )  # fmt: skip
    return PermissionRequestOutcome(
        result, acc.blocking_errors, acc.errors, acc.system_messages, acc.stop, acc.stop_reason
    )


# ---------------------------------------------------------------------------------------------
# Lifecycle events (HOOK-7)

BLOCKING_LIFECYCLE_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "Stop", "SubagentStop"})
"""Lifecycle events a hook can block (``decision: "block"`` or exit 2): the prompt, the stop."""

CONTEXT_FROM_STDOUT_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "SessionStart"})
"""Events whose hooks' plain stdout (exit 0, not JSON) is added as context, as in Claude Code."""


@dataclass(frozen=True, slots=True)
class LifecycleOutcome:
    """The hooks of one lifecycle event, combined (HOOK-5, HOOK-7).

    ``block_reasons``: for UserPromptSubmit, Stop and SubagentStop, each ``decision: "block"`` reason
    and exit-2 stderr, in declaration order (for the other events exit-2 stderr is in
    ``user_notes`` and a decision is ignored). ``additional_contexts``: ``additionalContext`` and, for
    UserPromptSubmit and SessionStart, plain stdout. ``stop``/``stop_reason``: the first
    ``continue: false``. ``system_messages`` are for the user only.
    """

    event: str
    block_reasons: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    user_notes: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""

    @property
    def block(self) -> bool:
        """Whether a hook blocked the prompt (UserPromptSubmit) or the stop (Stop, SubagentStop)."""
        return bool(self.block_reasons)


def _lifecycle_fields(f: _Fields, label: str) -> _Fields:
    return f


async def run_lifecycle(
    hooks: Hooks,
    event: LifecycleEvent,
    fields: Mapping[str, Any],
    *,
    base: HookBaseInput,
    match: str | None = None,
) -> LifecycleOutcome:
    """Run ``event``'s hooks with the common fields of ``base`` and the event's own ``fields``.

    ``match`` is the value the event's matchers select on (SessionStart ``source``, PreCompact
    ``trigger``, SessionEnd ``reason``, Notification ``notification_type``); ignored by events without a
    matcher. SessionStart and SessionEnd inputs carry no ``permission_mode`` (as in Claude Code 2.1).
    """
    matched = list(hooks.matching(event, "" if event in MATCHERLESS_EVENTS else (match or "")))
    if not matched:
        return LifecycleOutcome(event)
    with_mode = event not in ("SessionStart", "SessionEnd")
    data = {**base.to_dict(with_mode=with_mode), "hook_event_name": event, **fields}
    acc = _Acc()
    runs = await _run_event(matched, event, data, None, base.cwd, hooks.background)
    blocks: list[str] = []
    notes: list[str] = []
    for label, f in acc.sift(event, runs, _lifecycle_fields):
        if isinstance(f, _Blocked):
            (blocks if event in BLOCKING_LIFECYCLE_EVENTS else notes).append(f.message)
        elif f.decision == "block" and event in BLOCKING_LIFECYCLE_EVENTS:
            blocks.append(f.reason or f"blocked by hook {label}")
    contexts = list(acc.additional_contexts)
    if event in CONTEXT_FROM_STDOUT_EVENTS:
        contexts.extend(run.text for run in runs if run.text)
    return LifecycleOutcome(
        event, blocks, contexts, acc.system_messages, notes, acc.errors, acc.stop, acc.stop_reason
    )


@dataclass(slots=True)
class HookSignals:
    """What the hooks of a turn said to the loop and to the user, in the order they ran (HOOK-5).

    ``stop`` is the first ``continue: false`` and ``stop_reason`` its ``stopReason``; the loop stops
    after the turn's results. ``system_messages`` and ``errors`` are shown to the user, never the model.
    """

    stop: bool = False
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)

    def take(
        self,
        outcome: PreToolUseOutcome | PostToolUseOutcome | PermissionRequestOutcome | LifecycleOutcome,
    ) -> None:
        """Add one event's outcome."""
        if outcome.stop and not self.stop:
            self.stop, self.stop_reason = True, outcome.stop_reason
        self.system_messages.extend(outcome.system_messages)
        self.errors.extend(outcome.errors)
