"""Command hooks: a shell command run as a real subprocess with Claude Code's protocol (HOOK-3).

The hook gets the event's input as JSON on stdin, runs in its own process group with the session's
working directory, and reports through its exit code, stdout and stderr. This module only *runs*
the command and captures what happened; :mod:`reference_impl.hooks._runner` interprets the result (exit 0
with JSON is a decision, exit 2 blocks, anything else is a non-blocking error).

Nothing here raises for a misbehaving hook: a missing shell, a crash, a signal, a timeout or a
flood of output all come back as a :class:`HookRunResult` describing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from reference_impl._wire import wire_bytes
from reference_impl.permissions import PermissionRule

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "MAX_HOOK_OUTPUT_BYTES",
    "CommandHook",
    "HookRunResult",
    "OnFailure",
    "run_command_hook",
]

DEFAULT_HOOK_TIMEOUT = 600.0
"""Seconds a hook may run when neither the hook nor its matcher sets ``timeout``: Claude Code's
documented default for command and http hooks (600; 30 for prompt and 60 for agent hooks)."""

OnFailure: TypeAlias = Literal["continue", "block"]
"""A hook's ``onFailure``: what a crash, timeout or non-blocking error means. ``continue`` (the
default) records it and decides nothing; ``block`` blocks the call as an exit code 2 would."""

MAX_HOOK_OUTPUT_BYTES = 1_000_000
"""Bytes kept from each of stdout and stderr; the rest is drained and dropped so the hook can't block."""

_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class CommandHook:
    """A ``{"type": "command", "command": ..., "timeout": ...}`` hook from settings.json.

    ``timeout`` is in seconds; ``None`` means the matcher's timeout, else :data:`DEFAULT_HOOK_TIMEOUT`.
    ``run_async`` is Claude Code's ``"async": true`` (runs in the background, can't decide).
    ``plugin_root`` is the directory of the plugin the hook comes from (``CLAUDE_PLUGIN_ROOT``).
    ``args`` is the exec form: ``command`` is the program, spawned directly with ``args`` as its
    argument vector, no shell (``${tool_input.KEY}`` in an element is the call's input value).
    ``condition`` is the ``if`` rule: the hook runs only for tool calls the rule matches.
    ``on_failure`` is ``onFailure`` (:data:`OnFailure`).
    """

    command: str
    timeout: float | None = None
    run_async: bool = False
    plugin_root: str | None = None
    args: tuple[str, ...] | None = None
    condition: PermissionRule | None = None
    on_failure: OnFailure = "continue"

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not self.command.strip():
            raise ValueError(f"a command hook needs a non-empty command string, got {self.command!r}")
        if self.timeout is not None and (
            isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float) or self.timeout <= 0
        ):
            raise ValueError(
                f"a command hook's timeout must be a positive number of seconds, got {self.timeout!r}"
            )
        if self.args is not None and (
            not isinstance(self.args, tuple) or not all(isinstance(a, str) for a in self.args)
        ):
            raise ValueError(f"a command hook's args must be a tuple of strings, got {self.args!r}")
        if self.on_failure not in ("continue", "block"):
            raise ValueError(
                f'a command hook\'s on_failure must be "continue" or "block", got {self.on_failure!r}'
            )

    @property
    def label(self) -> str:
        """How the hook is named in reasons and errors: its command (with its arguments, exec form)."""
        return self.command if self.args is None else shlex.join((self.command, *self.args))


@dataclass(frozen=True, slots=True)
class HookRunResult:
    """What one command hook run did.

    Exactly one of these describes the ending: ``spawn_error`` (never started), ``timed_out``
    (killed with its process group), ``signal`` (died from a signal), else ``exit_code``.
    """

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    signal: int | None = None
    spawn_error: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timeout: float = DEFAULT_HOOK_TIMEOUT


def _shell() -> str:
    # Claude Code runs hook commands with bash; fall back to POSIX sh where bash is absent.
    return shutil.which("bash") or "/bin/sh"


_TOOL_INPUT_PLACEHOLDER = re.compile(r"\$\{tool_input\.([A-Za-z0-9_]+)\}")


def _exec_argument(arg: str, input_json: Mapping[str, Any]) -> str:
    """An exec-form argument with each ``${tool_input.KEY}`` replaced by the call's input value.

    A string value goes in as it is, any other value as JSON; an absent key is empty (as in a shell).
    """
    tool_input = input_json.get("tool_input")
    values: Mapping[str, Any] = tool_input if isinstance(tool_input, Mapping) else {}

    def value(match: re.Match[str]) -> str:
        found = values.get(match.group(1))
        if found is None:
            return ""
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    return _TOOL_INPUT_PLACEHOLDER.sub(value, arg)


def _argv(hook: CommandHook, input_json: Mapping[str, Any], project_dir: str) -> tuple[str, ...]:
    """What to spawn: ``bash -c COMMAND``, or the exec form's program and arguments with no shell."""
    if hook.args is None:
        return (_shell(), "-c", hook.command)
    # No shell to expand them: the variables Claude Code substitutes in an exec-form hook.
    program = hook.command.replace("${CLAUDE_PROJECT_DIR}", project_dir)
    args = [_exec_argument(a, input_json).replace("${CLAUDE_PROJECT_DIR}", project_dir) for a in hook.args]
    return (program, *args)


async def _read_capped(stream: asyncio.StreamReader | None, limit: int) -> tuple[bytes, bool]:
    """Read ``stream`` to EOF keeping at most ``limit`` bytes; keep draining past it."""
    if stream is None:
        return b"", False
    kept = bytearray()
    truncated = False
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return bytes(kept), truncated
        room = limit - len(kept)
        if room > 0:
            kept += chunk[:room]
        if len(chunk) > room:
            truncated = True


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    if stdin is None:
        return
    # A hook may exit without reading its input; that is its business, not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()
        await stdin.wait_closed()


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    # The hook is a session leader (start_new_session), so its pid is the group id; killing the
    # group also ends the children it started (``sleep 30`` under ``bash -c``).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_command_hook(
    hook: CommandHook,
    input_json: Mapping[str, Any],
    *,
    cwd: str | os.PathLike[str],
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    max_output_bytes: int = MAX_HOOK_OUTPUT_BYTES,
) -> HookRunResult:
    """Run the hook with ``input_json`` on stdin and capture the outcome.

    ``hook.command`` runs through bash; in the exec form, ``command`` is spawned with ``args``, no shell.

    ``timeout`` (seconds) overrides the hook's own; on expiry the whole process group is killed.
    ``env`` defaults to this process's environment plus ``CLAUDE_PROJECT_DIR=cwd``, as in Claude Code;
    a plugin's hook also gets ``CLAUDE_PLUGIN_ROOT``.
    Never raises for anything the hook does; cancellation kills the group and propagates.
    """
    limit = (
        timeout if timeout is not None else hook.timeout if hook.timeout is not None else DEFAULT_HOOK_TIMEOUT
    )
    try:
        data = wire_bytes(input_json) + b"\n"
    except (TypeError, ValueError) as exc:
        return HookRunResult(
            hook.label,
            None,
            "",
            "",
            spawn_error=f"hook input is not JSON-serializable: {exc}",
            timeout=limit,
        )
    run_env = dict(os.environ if env is None else env)
    if env is None or "CLAUDE_PROJECT_DIR" not in env:
        run_env["CLAUDE_PROJECT_DIR"] = os.fspath(cwd)
    if hook.plugin_root is not None:
        run_env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *_argv(hook, input_json, run_env["CLAUDE_PROJECT_DIR"]),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=Path(cwd),
            env=run_env,
            start_new_session=True,
        )
    )
    try:
        # Shielded: a cancel that lands mid-spawn must still find the process to kill its group
        # (asyncio alone would kill only the shell, then wait for the pipes its children hold).
        proc = await asyncio.shield(spawn)
    except OSError as exc:
        msg = f"could not start the hook: {exc}"
        return HookRunResult(hook.label, None, "", "", spawn_error=msg, timeout=limit)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            started = await spawn
            _kill_group(started)
            await started.wait()
        raise

    async def communicate() -> tuple[tuple[bytes, bool], tuple[bytes, bool]]:
        _, out, err = await asyncio.gather(
            _feed(proc.stdin, data),
            _read_capped(proc.stdout, max_output_bytes),
            _read_capped(proc.stderr, max_output_bytes),
        )
        await proc.wait()
        return out, err

    timed_out = False
    out: tuple[bytes, bool] = (b"", False)
    err: tuple[bytes, bool] = (b"", False)
    try:
        out, err = await asyncio.wait_for(communicate(), limit)
    except TimeoutError:
        timed_out = True
    finally:
        if proc.returncode is None:
            _kill_group(proc)
            # Shielded so a cancelled caller still reaps the child (no zombie, no ResourceWarning).
            await asyncio.shield(proc.wait())
    code = proc.returncode
    return HookRunResult(
        command=hook.label,
        exit_code=None if timed_out or (code is not None and code < 0) else code,
        stdout=out[0].decode("utf-8", errors="replace"),
        stderr=err[0].decode("utf-8", errors="replace"),
        timed_out=timed_out,
        signal=-code if (not timed_out and code is not None and code < 0) else None,
        stdout_truncated=out[1],
        stderr_truncated=err[1],
        timeout=limit,
    )
