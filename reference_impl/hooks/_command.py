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
import os
import shutil
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_impl._wire import wire_bytes

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "MAX_HOOK_OUTPUT_BYTES",
    "CommandHook",
    "HookRunResult",
    "run_command_hook",
]

DEFAULT_HOOK_TIMEOUT = 60.0
"""Seconds a hook may run when neither the hook nor its matcher sets ``timeout`` (Claude Code's default)."""

MAX_HOOK_OUTPUT_BYTES = 1_000_000
"""Bytes kept from each of stdout and stderr; the rest is drained and dropped so the hook can't block."""

_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class CommandHook:
    """A ``{"type": "command", "command": ..., "timeout": ...}`` hook from settings.json.

    ``timeout`` is in seconds; ``None`` means the matcher's timeout, else :data:`DEFAULT_HOOK_TIMEOUT`.
    ``run_async`` is Claude Code's ``"async": true`` (runs in the background, can't decide).
    ``plugin_root`` is the directory of the plugin the hook comes from (``CLAUDE_PLUGIN_ROOT``).
    """

    command: str
    timeout: float | None = None
    run_async: bool = False
    plugin_root: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not self.command.strip():
            raise ValueError(f"a command hook needs a non-empty command string, got {self.command!r}")
        if self.timeout is not None and (
            isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float) or self.timeout <= 0
        ):
            raise ValueError(
                f"a command hook's timeout must be a positive number of seconds, got {self.timeout!r}"
            )

    @property
    def label(self) -> str:
        """How the hook is named in reasons and errors: its command."""
        return self.command


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
    """Run ``hook.command`` through the shell with ``input_json`` on stdin and capture the outcome.

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
            hook.command,
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
            _shell(),
            "-c",
            hook.command,
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
        return HookRunResult(hook.command, None, "", "", spawn_error=msg, timeout=limit)
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
        command=hook.command,
        exit_code=None if timed_out or (code is not None and code < 0) else code,
        stdout=out[0].decode("utf-8", errors="replace"),
        stderr=err[0].decode("utf-8", errors="replace"),
        timed_out=timed_out,
        signal=-code if (not timed_out and code is not None and code < 0) else None,
        stdout_truncated=out[1],
        stderr_truncated=err[1],
        timeout=limit,
    )
