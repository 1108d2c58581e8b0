"""Running the hooks of one event and reading their outputs (HOOK-2, HOOK-3, HOOK-8).

All hooks matching one event run concurrently; their results are read back in declaration order so
aggregation is deterministic. A hook that fails in any way (raises, times out, exits 1, prints
garbage) is a non-blocking error: it is recorded and never allows anything. Only a valid decision or
an exit code 2 counts. Http hooks and async command hooks follow the same rules (HOOK-8); an async
hook runs in the background and :func:`collect_background` reads what it said.

What a hook is and which hooks match a tool is :mod:`reference_impl.hooks._model`; what each event
makes of the outputs is :mod:`reference_impl.hooks._tool_events` and :mod:`reference_impl.hooks._lifecycle`.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reference_impl.hooks._command import DEFAULT_HOOK_TIMEOUT, CommandHook, HookRunResult, run_command_hook
from reference_impl.hooks._http import HttpHookResult, run_http_hook
from reference_impl.hooks._model import (
    HookContext,
    HookEntry,
    HookError,
    Hooks,
    HttpHook,
    UnsupportedHook,
)

__all__ = [
    "BackgroundHookResult",
    "Blocked",
    "InvalidOutput",
    "MatchedHooks",
    "OutputCollector",
    "SharedFields",
    "collect_background",
    "js_trim",
    "only_shared_fields",
    "optional_field",
    "run_event_hooks",
]

_T = TypeVar("_T")


class InvalidOutput(Exception):
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


_JS_WHITESPACE = "".join(
    ("\t", "\n", "\v", "\f", "\r", " ", "\u00a0", "\u1680", *map(chr, range(0x2000, 0x200B)),
     "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff")
)  # fmt: skip
"""What ECMAScript's ``String.prototype.trim`` removes (WhiteSpace and LineTerminator): Claude Code
trims hook output with it, so a BOM-led (U+FEFF) JSON line is still JSON. Python's ``strip()``
keeps U+FEFF and removes U+001C..U+001F, which JS keeps."""


def js_trim(text: str) -> str:
    """``text`` trimmed as JavaScript's ``trim()`` does (not as ``str.strip()``)."""
    return text.strip(_JS_WHITESPACE)


def _parse_output(label: str, raw: str, event: str) -> _Run:
    """A successful hook's output (command stdout, http body): a JSON object, plain text, or nothing."""
    text = js_trim(raw)
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


def _failure_blocks(run: _Run) -> _Run:
    """An ``onFailure: "block"`` hook's run: a failure blocks like an exit code 2, naming what failed."""
    if run.error is None:
        return run
    message = f'hook failed ({run.error.kind}) and its onFailure is "block": {run.error.message}'
    return _Run(run.label, blocking=message)


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
        run = _interpret_http(await run_http_hook(hook, input_data, timeout=timeout), event)
        return _failure_blocks(run) if hook.on_failure == "block" else run
    if isinstance(hook, CommandHook):
        timeout = hook.timeout if hook.timeout is not None else matcher_timeout
        if hook.run_async and background is not None:
            # Started and left running: the event goes on without it (Claude Code's "async": true).
            async def in_background() -> _Run:
                res = await run_command_hook(hook, input_data, cwd=cwd, timeout=timeout)
                return _interpret_command(res, event)

            background.append((event, asyncio.ensure_future(in_background())))
            return _Run(label)
        run = _interpret_command(await run_command_hook(hook, input_data, cwd=cwd, timeout=timeout), event)
        return _failure_blocks(run) if hook.on_failure == "block" else run
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


MatchedHooks = list[tuple[HookEntry, float | None]]


async def run_event_hooks(
    matched: MatchedHooks,
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


def optional_field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``obj[key]`` if present and of ``kind`` (JSON null counts as absent); else :class:`InvalidOutput`."""
    value = obj.get(key)
    if value is None:
        return None
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise InvalidOutput(f"{key} must be {what}, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class SharedFields:
    stop: bool
    stop_reason: str
    system_message: str | None
    decision: str | None
    reason: str
    hso: dict[str, Any]
    additional_context: str | None


def _fields(out: dict[str, Any], event: str) -> SharedFields:
    """Validate the fields every event shares (Claude Code's hook JSON output)."""
    cont = optional_field(out, "continue", bool, "a boolean")
    stop_reason = optional_field(out, "stopReason", str, "a string") or ""
    optional_field(out, "suppressOutput", bool, "a boolean")
    system_message = optional_field(out, "systemMessage", str, "a string")
    decision = out.get("decision")
    if decision is not None and decision not in ("approve", "block"):
        raise InvalidOutput(f'decision must be "approve" or "block", got {decision!r}')
    reason = optional_field(out, "reason", str, "a string") or ""
    hso: dict[str, Any] = optional_field(out, "hookSpecificOutput", dict, "an object") or {}
    if hso and hso.get("hookEventName") != event:
        raise InvalidOutput(
            f"hookSpecificOutput.hookEventName must be {event!r}, got {hso.get('hookEventName')!r}"
        )
    context = optional_field(hso, "additionalContext", str, "a string")
    return SharedFields(cont is False, stop_reason, system_message, decision, reason, hso, context)


def only_shared_fields(f: SharedFields, label: str) -> SharedFields:
    """The parse of an event with no fields of its own: its shared fields, as they are."""
    return f


@dataclass(frozen=True, slots=True)
class Blocked:
    """An exit code 2: ``message`` (the hook's stderr) is for the model."""

    message: str


@dataclass(slots=True)
class OutputCollector:
    """What every outcome collects, in declaration order."""

    stop: bool = False
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)

    def take(self, f: SharedFields) -> None:
        if f.stop and not self.stop:
            self.stop, self.stop_reason = True, f.stop_reason
        if f.system_message:
            self.system_messages.append(f.system_message)
        if f.additional_context:
            self.additional_contexts.append(f.additional_context)

    def sift(
        self, event: str, runs: Sequence[_Run], parse: Callable[[SharedFields, str], _T]
    ) -> Iterator[tuple[str, _T | Blocked]]:
        """Record errors; yield each exit-2 block and each valid output, parsed, with its hook's label.

        An output is valid when its shared fields and ``parse`` (the event's own fields) accept it;
        only then are its shared fields taken. Async outputs (``{"async": true}``) say nothing.
        """
        for run in runs:
            if run.error is not None:
                self.errors.append(run.error)
            elif run.blocking is not None:
                self.blocking_errors.append(run.blocking)
                yield run.label, Blocked(run.blocking)
            elif run.output is not None and not run.output.get("async"):
                try:
                    f = _fields(run.output, event)
                    parsed = parse(f, run.label)
                except InvalidOutput as exc:
                    msg = f"invalid hook output: {exc}"
                    self.errors.append(HookError(event, run.label, "invalid_output", msg))
                    continue
                self.take(f)
                yield run.label, parsed
