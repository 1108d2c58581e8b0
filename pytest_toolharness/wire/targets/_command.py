"""Targets: a harness under test run as a subprocess, pointed at the scripted Messages API.

A :class:`Target` turns one :class:`TargetInvocation` (the prompt, a settings file, an MCP config, a
working directory and the server's base URL) into a command line and extra environment.
:func:`run_target` runs it in its own process group with stdin closed and a clean environment
(``ANTHROPIC_BASE_URL`` is the scripted server, ``ANTHROPIC_API_KEY`` a dummy, ``HOME`` a fresh
folder), kills the whole group on timeout, and returns a :class:`TargetOutcome`.

A name given to ``--toolharness-target`` is looked up among the target profiles (the built-ins
``reference``, ``claude-code``, ``opencode``, ``cline`` and whatever a package declares in the
``pytest_toolharness.targets`` entry-point group, see :mod:`pytest_toolharness.wire.targets._profiles`, which resolves a name
or command with ``resolve_target``).
Anything else is a command template: shell words with the placeholders ``{prompt}``,
``{settings}``, ``{mcp_config}`` and ``{workdir}``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

__all__ = [
    "PLACEHOLDERS",
    "CommandTarget",
    "ReferenceTarget",
    "Target",
    "TargetError",
    "TargetInvocation",
    "TargetOutcome",
    "base_environment",
    "run_target",
]

#: The placeholders a command template may use, and the invocation field each stands for.
PLACEHOLDERS: tuple[str, ...] = ("{prompt}", "{settings}", "{mcp_config}", "{workdir}")

# Variables passed through from the parent: enough to find programs and decode text. Everything else
# (the user's real ANTHROPIC_* keys and CLAUDE_* configuration above all) stays out of the harness.
_PASSED_THROUGH = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TMPDIR")

# A placeholder-like word part: {name}. JSON or shell braces ({"a": 1}, ${HOME}) don't look like it.
_PLACEHOLDER = re.compile(r"(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*\}")

# What the reference CLI imports, at start or when it first needs it (an MCP server to connect).
_REFERENCE_PRELOAD = (
    "reference_impl",
    "reference_impl.prewarm",
    "mcp",
    "mcp.client.stdio",
    "mcp_types",
)

# After the main process exits, how long to wait for the rest of its group to go away.
_GRACE_SECONDS = 2.0
# How often the interrupt condition is polled while the harness runs.
_POLL_SECONDS = 0.05
# How often its progress is read (a request count and log files: cheap, but not free).
_PROGRESS_POLL_SECONDS = 0.5


class TargetError(ValueError):
    """A target name or command template that can't be used."""


@dataclass(frozen=True, slots=True)
class TargetInvocation:
    """Everything one run of a harness under test needs.

    ``env`` is the scenario's extra environment (``ENABLE_TOOL_SEARCH``, ...); ``plugin_dirs`` are
    Claude Code plugin folders to load (also in ``TOOLHARNESS_PLUGIN_DIRS``, joined with ``os.pathsep``).

    ``timeout`` is how long, in seconds, the harness may go without progress before it counts as hung.
    Without ``progress`` that is the whole run. With it (a value polled while the harness runs, which
    changes when the harness does something the suite sees: a request, a tool call, a hook), each
    change gives the harness ``timeout`` seconds more, up to ``limit`` seconds in all: on a loaded
    machine a harness that is still working is slow, not hung, and the suite must not blame it.
    """

    prompt: str
    settings_path: Path
    mcp_config_path: Path
    workdir: Path
    base_url: str
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    plugin_dirs: tuple[Path, ...] = ()
    #: When it first returns True (polled while the harness runs), the harness gets SIGINT once,
    #: as a user's Ctrl-C would send it (a scenario that interrupts a batch mid-way).
    interrupt: Callable[[], bool] | None = None
    #: Polled while the harness runs; a new value is progress (see above). None: ``timeout`` is the limit.
    progress: Callable[[], object] | None = None
    #: The longest a run may take however it progresses (None: ``timeout``; never below it).
    limit: float | None = None

    def hard_limit(self) -> float:
        """The seconds after which the run is cut off whatever it is doing."""
        return self.timeout if self.progress is None or self.limit is None else max(self.timeout, self.limit)


@dataclass(frozen=True, slots=True)
class TargetOutcome:
    """How the harness process ended.

    ``exit_code`` is None when it was killed (``timed_out``) or could not be started
    (``start_error`` says why). ``duration`` is wall time in seconds, for reports only.
    ``interrupted_at`` is when the suite sent SIGINT (``time.time()``, comparable with file
    times), None when it did not. ``still_working`` is True when the run was cut off at the
    invocation's hard limit although it had progressed within its last ``timeout`` seconds: the
    harness was slow (or the machine was), which is no verdict on it; ``idle`` is how long it had gone
    without progress when it was killed.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration: float
    start_error: str | None = None
    interrupted_at: float | None = None
    still_working: bool = False
    idle: float = 0.0


class Target(Protocol):
    """A harness under test as a command: its name, command line and extra environment."""

    name: str

    def command(self, inv: TargetInvocation) -> list[str]:
        """The argv that runs the harness once for ``inv``."""
        ...

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """Extra environment on top of :func:`base_environment` (may be empty)."""
        ...


def base_environment(inv: TargetInvocation) -> dict[str, str]:
    """The clean environment every target starts from, with the invocation's paths exported too.

    ``TOOLHARNESS_*`` variables repeat the placeholders, for harnesses that read them from the
    environment rather than the command line.
    """
    env = {name: os.environ[name] for name in _PASSED_THROUGH if name in os.environ}
    env.update(
        {
            "ANTHROPIC_BASE_URL": inv.base_url,
            "ANTHROPIC_API_KEY": "x",
            "HOME": str(inv.workdir / "home"),
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "TOOLHARNESS_PROMPT": inv.prompt,
            "TOOLHARNESS_SETTINGS": str(inv.settings_path),
            "TOOLHARNESS_MCP_CONFIG": str(inv.mcp_config_path),
            "TOOLHARNESS_WORKDIR": str(inv.workdir),
        }
    )
    if inv.plugin_dirs:
        env["TOOLHARNESS_PLUGIN_DIRS"] = os.pathsep.join(str(d) for d in inv.plugin_dirs)
    env.update(inv.env)
    return env


def _substitute(word: str, inv: TargetInvocation) -> str:
    # str.replace, not str.format: a template word may hold literal braces (JSON, shell).
    values = {
        "{prompt}": inv.prompt,
        "{settings}": str(inv.settings_path),
        "{mcp_config}": str(inv.mcp_config_path),
        "{workdir}": str(inv.workdir),
    }
    for placeholder, value in values.items():
        word = word.replace(placeholder, value)
    return word


class CommandTarget:
    """A harness given as a command template, e.g. ``"my-agent -p {prompt} --mcp {mcp_config}"``.

    The template is split into words like a POSIX shell would (``shlex``), then each placeholder is
    replaced inside its word, so a prompt with spaces stays one argument. A ``{name}`` that is not
    one of :data:`PLACEHOLDERS` is refused (a misspelt placeholder would reach the harness as is).
    A relative program path (``./t.sh``, ``bin/agent``) is resolved against ``base`` (the directory
    the run was started from), since the program runs in the scenario's working directory.
    """

    def __init__(self, template: str, base: Path | None = None) -> None:
        if not isinstance(template, str) or not template.strip():
            raise TargetError("a target command template must be a non-empty string")
        try:
            words = shlex.split(template)
        except ValueError as exc:
            raise TargetError(f"target command {template!r} can't be split into words: {exc}") from exc
        unknown = sorted({m for word in words for m in _PLACEHOLDER.findall(word)} - set(PLACEHOLDERS))
        if unknown:
            raise TargetError(
                f"target command {template!r}: unknown placeholder(s) {', '.join(unknown)}; "
                f"the known ones are {' '.join(PLACEHOLDERS)}"
            )
        if "/" in words[0] and not Path(words[0]).is_absolute():  # a bare name is looked up on PATH
            words[0] = str((base if base is not None else Path.cwd()) / words[0])
        self.template = template
        self.words = words
        self.name = template

    def command(self, inv: TargetInvocation) -> list[str]:
        """The template's words with the placeholders filled in."""
        return [_substitute(word, inv) for word in self.words]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """No extra environment."""
        return {}

    def __repr__(self) -> str:
        return f"CommandTarget({self.template!r})"


class ReferenceTarget:
    """The reference harness through its own agent loop: ``python -m reference_impl -p ...``.

    ``module`` runs instead of ``reference_impl``, with ``module_args`` before the CLI's own
    arguments: the entry module of a harness built on ``reference_impl`` that runs its CLI after
    changing it (the project's mutants run the CLI with their defects this way).
    """

    name = "reference"

    def __init__(self, module: str = "reference_impl", module_args: Sequence[str] = ()) -> None:
        self.module = module
        self.module_args = tuple(module_args)

    def command(self, inv: TargetInvocation) -> list[str]:
        """``sys.executable -m reference_impl -p PROMPT --settings ... --mcp-config ...``.

        Through the fork server when it runs (:func:`~pytest_toolharness.processes._launch.python_module_command`):
        still a process of its own per run, without importing the anthropic SDK and ``mcp`` each time.
        """
        from pytest_toolharness.processes import python_module_command

        arguments = [*self.module_args, *self.arguments(inv)]
        return python_module_command(self.module, arguments, _REFERENCE_PRELOAD)

    def arguments(self, inv: TargetInvocation) -> list[str]:
        """The arguments after ``-m reference_impl``."""
        return [
            "-p",
            inv.prompt,
            "--settings",
            str(inv.settings_path),
            "--mcp-config",
            str(inv.mcp_config_path),
            "--output-format",
            "json",
            "--session-dir",
            str(inv.workdir / "session"),
            *(arg for d in inv.plugin_dirs for arg in ("--plugin-dir", str(d))),
        ]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """No extra environment."""
        return {}


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""


# A process started while SIGINT is ignored (a job in a shell's background, nohup) inherits that, and a
# harness that ignores SIGINT can't be interrupted: the interrupt scenarios would blame it for how the
# suite was started. Then the target starts through this, with SIGINT's default action, as from a terminal.
_DEFAULT_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def _with_default_sigint(argv: Sequence[str], env: Mapping[str, str]) -> list[str] | None:
    """``argv``, started with SIGINT's default action; None when its program is not found."""
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        return list(argv)
    program = shutil.which(argv[0], path=env.get("PATH"))
    if program is None:
        return None
    return [sys.executable, "-I", "-S", "-c", _DEFAULT_SIGINT, program, *argv[1:]]


def run_target(target: Target, inv: TargetInvocation) -> TargetOutcome:
    """Run ``target`` once for ``inv`` and return how it ended; never raises for a broken harness.

    The process gets its own session (process group), stdin from ``/dev/null`` and ``inv.workdir``
    as its working directory. Its output goes to files in ``inv.workdir`` rather than pipes, so a
    grandchild that keeps a pipe open (an MCP server left behind) can't make a finished harness
    look hung. On timeout the whole group is killed; after a normal exit, whatever is left of the
    group is killed too.
    """
    if inv.timeout <= 0:
        raise ValueError(f"TargetInvocation.timeout must be > 0 seconds, got {inv.timeout}")
    (inv.workdir / "home").mkdir(parents=True, exist_ok=True)
    env = base_environment(inv)
    env.update(target.environment(inv))
    argv = target.command(inv)
    stdout_path, stderr_path = inv.workdir / "target.stdout", inv.workdir / "target.stderr"
    started = time.monotonic()
    started_argv = _with_default_sigint(argv, env)
    with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
        try:
            if started_argv is None:
                raise FileNotFoundError(f"{argv[0]!r} is not on PATH")
            process = subprocess.Popen(
                started_argv,
                cwd=inv.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
        except OSError as exc:
            return TargetOutcome(
                exit_code=None,
                stdout="",
                stderr="",
                timed_out=False,
                duration=time.monotonic() - started,
                start_error=f"can't start {argv[0]!r}: {exc}",
            )
        waited = _wait(process, inv, started)
        exit_code, interrupted_at = waited.exit_code, waited.interrupted_at
        timed_out = exit_code is None
        _kill_group(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=_GRACE_SECONDS)
    return TargetOutcome(
        exit_code=exit_code,
        stdout=_read(stdout_path),
        stderr=_read(stderr_path),
        timed_out=timed_out,
        duration=time.monotonic() - started,
        interrupted_at=interrupted_at,
        still_working=timed_out and waited.idle < inv.timeout,
        idle=waited.idle if timed_out else 0.0,
    )


@dataclass(frozen=True, slots=True)
class _Waited:
    exit_code: int | None  # None: still running when it was cut off
    interrupted_at: float | None
    idle: float  # seconds since the last progress (or the start) when the wait ended


def _wait(process: subprocess.Popen[bytes], inv: TargetInvocation, started: float) -> _Waited:
    """Wait for the harness: until it exits, goes ``timeout`` s without progress, or reaches the hard limit."""
    if inv.interrupt is None and inv.progress is None:
        try:
            return _Waited(process.wait(timeout=inv.timeout), None, 0.0)
        except subprocess.TimeoutExpired:
            return _Waited(None, None, inv.timeout)
    interrupted_at: float | None = None
    end = started + inv.hard_limit()
    last_value = inv.progress() if inv.progress is not None else None
    last_progress = started
    next_look = started
    while True:
        now = time.monotonic()
        # Read progress on schedule, and always before calling the harness idle.
        if inv.progress is not None and (now >= next_look or now >= last_progress + inv.timeout):
            value = inv.progress()
            if value != last_value:
                last_value, last_progress = value, now
            next_look = now + _PROGRESS_POLL_SECONDS
        left = min(end, last_progress + inv.timeout) - now
        if left <= 0:
            return _Waited(None, interrupted_at, now - last_progress)
        try:
            return _Waited(process.wait(timeout=min(left, _POLL_SECONDS)), interrupted_at, 0.0)
        except subprocess.TimeoutExpired:
            pass
        if interrupted_at is None and inv.interrupt is not None and inv.interrupt():
            interrupted_at = time.time()
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)
