"""The wire adapter: any harness, driven from outside through the Messages API it calls.

For each :class:`~pytest_toolharness.wire.scenarios._core.WireScenario`, :func:`run_wire_scenario`
starts a :class:`~pytest_toolharness.wire.model_api._server.ScriptedApiServer` answering with the scenario's
script, writes the scenario's settings and an MCP config for the suite's tool server into a fresh
working directory, runs the :class:`~pytest_toolharness.wire.targets._command.Target` once, and returns a
:class:`WireRun`: every recorded request and how the process ended.

:class:`WireAdapter` is the adapter ``--toolharness-target`` installs: its harnesses have only the
``wire`` capability (``run_wire``), so every other conformance test is reported as not checked.
A harness that hangs, exits with an error or never calls the API becomes a test failure whose
message says so (:meth:`WireRun.failure`), never an error of the run. A harness is hung when it goes
the target timeout without progress (no request, tool call or hook the suite sees); one still working
when the run reaches its hard limit (:data:`LIMIT_FACTOR` times the timeout, or the test's budget) is
slow, and that run concludes nothing: :meth:`WireRun.cut_off` says so and :class:`TargetCutOff` makes
it an error of the suite, not a failure of the harness.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolharness.processes import remove_at_exit
from pytest_toolharness.specs import SETTINGS_FILES
from pytest_toolharness.wire.model_api import RecordedRequest, ScriptedApiServer, wire_json
from pytest_toolharness.wire.scenarios import (
    CALLS_LOG_NAME,
    CLAUDE_CODE_NAMES,
    HOOK_LOG_NAME,
    INTERRUPT_DELAY,
    SERVER_NAME,
    ToolNames,
    WireScenario,
)
from pytest_toolharness.wire.targets._command import Target, TargetInvocation, TargetOutcome, run_target

__all__ = [
    "API_POINTERS",
    "API_TITLES",
    "DEFAULT_TIMEOUT",
    "LIMIT_FACTOR",
    "REQUESTS_DIR",
    "RESERVED_ENV",
    "TargetCutOff",
    "WireAdapter",
    "WireHarness",
    "WireRun",
    "check_target_env",
    "read_hook_log",
    "run_wire_scenario",
    "target_api",
    "target_names",
    "write_mcp_config",
    "write_scenario_files",
]

#: Seconds a scenario run may go without progress before the harness is killed and reported as hung.
DEFAULT_TIMEOUT = 60.0
#: A run that keeps progressing may take this many times the timeout before it is cut off.
LIMIT_FACTOR = 2.0


class TargetCutOff(RuntimeError):
    """A run was cut off at its hard limit while the harness was still working: no verdict on it.

    Raised by the judging code, so the report gives the test the status "error" (a fault of the
    suite's budget on this machine), never "failed".
    """


#: The folder of a run's working directory holding each recorded request's body, byte for byte.
REQUESTS_DIR = "requests"

#: Environment variables the suite sets for every target and a user may not override: they point the
#: harness at the scripted server, give it a throwaway HOME and tell it where the scenario's files are.
RESERVED_ENV = ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "HOME")

_TAIL_LINES = 15


def _tail(text: str, label: str) -> str:
    lines = text.strip().splitlines()
    if not lines:
        return f"{label}: (empty)"
    shown = lines[-_TAIL_LINES:]
    more = f" (last {len(shown)} of {len(lines)} lines)" if len(lines) > len(shown) else ""
    return f"{label}{more}:\n    " + "\n    ".join(shown)


@dataclass(frozen=True, slots=True)
class WireRun:
    """One scenario run against one target: the recorded requests and how the process ended.

    ``server_errors`` are tracebacks of the scenario script (a suite bug, reported as such). The
    evidence of what really happened, whatever the harness reports: ``mcp_calls`` (the suite's MCP
    server's call log, start and end of each call), ``served`` (the tools it listed, name →
    description) and ``hook_calls`` (each input the suite's command hooks read, in order).
    ``names`` are the target's names for the scenario roles (its profile's; Claude Code's by default);
    ``roles`` the roles it can express (its profile's capabilities; None: every role).
    """

    scenario: str
    target: str
    base_url: str
    timeout: float
    requests: list[RecordedRequest]
    outcome: TargetOutcome
    server_errors: list[str]
    workdir: Path | None = None
    mcp_calls: list[dict[str, Any]] = field(default_factory=list)
    served: dict[str, str] = field(default_factory=dict)
    hook_calls: list[dict[str, Any]] = field(default_factory=list)
    names: ToolNames = CLAUDE_CODE_NAMES
    roles: frozenset[str] | None = None
    #: The model API the target speaks (its ``api`` attribute: a key of :data:`API_TITLES`).
    api: str = "messages"

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/messages`` requests, in arrival order."""
        return [r for r in self.requests if r.is_messages]

    def failure(self) -> str | None:
        """Why the run itself failed (hang, error exit, no API call, script error), or None."""
        outcome, count = self.outcome, len(self.message_requests)
        where = f"target {self.target!r}, scenario {self.scenario!r}"
        api = API_TITLES.get(self.api, f"{self.api} API")
        tails = f"{_tail(outcome.stderr, 'stderr')}\n  {_tail(outcome.stdout, 'stdout')}"
        if outcome.start_error is not None:
            return f"{where}: the harness could not be started: {outcome.start_error}"
        if outcome.timed_out and not outcome.still_working:
            return (
                f"{where}: the harness hung: it did nothing the suite could see (no request, tool call or "
                f"hook) for {outcome.idle:.0f} s (the target timeout is {self.timeout:g} s) and was killed "
                f"{outcome.duration:.0f} s after it started, after {count} {api} request(s)\n  {tails}"
            )
        if outcome.timed_out:
            return self.cut_off()
        if count == 0:
            return (
                f"{where}: the harness never called the {api} at {self.base_url} "
                f"({API_POINTERS.get(self.api, 'its base URL')}); it exited with status {outcome.exit_code}\n  {tails}"
            )
        if outcome.exit_code != 0 and outcome.interrupted_at is None:  # exiting on SIGINT is not a failure
            return (
                f"{where}: the harness exited with status {outcome.exit_code} "
                f"after {count} {api} request(s)\n  {tails}"
            )
        if self.server_errors:
            return f"{where}: the scenario's script raised (a suite bug):\n{self.server_errors[0]}"
        return None

    def cut_off(self) -> str | None:
        """Why the run concludes nothing (cut off at its hard limit while still working), or None."""
        outcome = self.outcome
        if not (outcome.timed_out and outcome.still_working):
            return None
        return (
            f"target {self.target!r}, scenario {self.scenario!r}: the run was cut off after "
            f"{outcome.duration:.0f} s while the harness was still working ({len(self.message_requests)} "
            f"request(s), the last progress {outcome.idle:.0f} s before): slow, not hung, so nothing is "
            f"judged; on a loaded machine raise --toolharness-target-timeout (now {self.timeout:g} s)"
        )

    def require_conclusive(self) -> None:
        """Raise :class:`TargetCutOff` when :meth:`cut_off` says the run concludes nothing."""
        reason = self.cut_off()
        if reason is not None:
            raise TargetCutOff(reason)

    def verdict(self, problems: list[str]) -> str | None:
        """The failure message for a check's ``problems`` plus :meth:`failure`, or None if all is well.

        Raises :class:`TargetCutOff` for a run that concludes nothing (:meth:`cut_off`).
        """
        self.require_conclusive()
        parts = list(problems)
        failure = self.failure()
        if failure is not None:
            parts.append(failure)
        if not parts:
            return None
        return f"{self.target} ({self.scenario}):\n- " + "\n- ".join(parts)


def write_mcp_config(path: Path, scenario: WireScenario) -> Path:
    """The harness's MCP config: the suite's tool server serving the scenario's MCP tools."""
    if not scenario.mcp_tools:
        # No tools, no server: nothing to import, and any harness can read an empty config.
        path.write_text(wire_json({"mcpServers": {}}), encoding="utf-8")
        return path
    from pytest_toolharness.wire.scenarios import write_server_config

    return write_server_config(path, list(scenario.mcp_tools), server_name=SERVER_NAME)


#: Each model API a target may speak (its ``api`` attribute), as the report names it.
API_TITLES: Mapping[str, str] = {
    "messages": "Messages API",
    "responses": "OpenAI Responses API",
    "chat": "OpenAI Chat Completions API",
    "gemini": "Gemini API",
}
#: How a target is pointed at the scripted server of each API (docs/wire.md lists the SDKs' variables).
API_POINTERS: Mapping[str, str] = {
    "messages": "ANTHROPIC_BASE_URL",
    "responses": "OPENAI_BASE_URL, or the base_url of its config",
    "chat": "OPENAI_BASE_URL, or the base_url of its config",
    "gemini": "GOOGLE_GEMINI_BASE_URL",
}


def target_api(target: Target) -> str:
    """The model API the target speaks: its ``api`` attribute (a key of :data:`API_TITLES`), else the Messages API."""
    api = getattr(target, "api", "messages")
    if api not in API_TITLES:
        raise ValueError(f"target {target.name!r} speaks api {api!r}; known: {sorted(API_TITLES)}")
    return str(api)


def target_names(target: Target) -> ToolNames:
    """The target's names for the scenario roles: its ``names`` attribute, else Claude Code's."""
    names = getattr(target, "names", None)
    return names if isinstance(names, ToolNames) else CLAUDE_CODE_NAMES


def read_hook_log(workdir: Path) -> list[dict[str, Any]]:
    """What the suite's command hooks logged in ``workdir`` (nothing when none ran)."""
    path = workdir / HOOK_LOG_NAME
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [entry for entry in (json.loads(line) for line in lines if line) if isinstance(entry, dict)]


def check_target_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` as a plain dict, or a ValueError naming a variable the suite owns or a bad name."""
    for name in env:
        if not name or "=" in name or "\0" in name or name.strip() != name:
            raise ValueError(f"{name!r} is not an environment variable name")
        if name in RESERVED_ENV or name.startswith("TOOLHARNESS_"):
            raise ValueError(
                f"{name} is set by the suite for every target (the scripted server, a fresh HOME, the "
                f"scenario's files: {', '.join(RESERVED_ENV)}, TOOLHARNESS_*) and can't be overridden"
            )
    return dict(env)


def write_scenario_files(workdir: Path, scenario: WireScenario) -> None:
    """The scenario's files, links and the settings files a target finds by itself, in ``workdir``.

    ``~`` in a settings file's place is the target's HOME (``workdir/home``).
    """
    for relative, text in scenario.files.items():
        path = workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for relative, pointee in scenario.links.items():
        path = workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(pointee)
    for source, settings in scenario.setting_files.items():
        place = SETTINGS_FILES[source]  # type: ignore[index]
        path = workdir / "home" / place[2:] if place.startswith("~/") else workdir / place
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wire_json(dict(settings)), encoding="utf-8")


def _write_requests(folder: Path, requests: list[RecordedRequest]) -> None:
    """Each recorded request's body as received, ``NNN-<method>-<path>.json``, in arrival order."""
    folder.mkdir(exist_ok=True)
    for request in requests:
        path = request.path.strip("/").replace("/", "_") or "root"
        (folder / f"{request.index:03d}-{request.method}-{path}.json").write_bytes(request.body)


def _call_running(workdir: Path, tool: str) -> Callable[[], bool]:
    """Whether a call of MCP tool ``tool`` has been running for :data:`INTERRUPT_DELAY` seconds (its server's log)."""
    import time

    from pytest_toolharness.wire.scenarios import read_call_log

    def running() -> bool:
        starts = [e for e in read_call_log(workdir) if e.get("event") == "start" and e.get("tool") == tool]
        return bool(starts) and time.time() >= float(starts[0]["time"]) + INTERRUPT_DELAY

    return running


def _progress(server: ScriptedApiServer, workdir: Path) -> Callable[[], object]:
    """What changes while the harness makes progress: its requests (until the script ran out), MCP calls, hooks.

    Requests after the script ran out are no progress: a harness asking again and again for a turn
    that says it is done is looping, not working. The logs are measured by size: read while being
    written, a line may be half there.
    """

    def size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return 0

    def value() -> object:
        requests = "done" if server.script_exhausted else len(server.requests)
        return (requests, size(workdir / CALLS_LOG_NAME), size(workdir / HOOK_LOG_NAME))

    return value


def run_wire_scenario(
    target: Target,
    scenario: WireScenario,
    workdir: Path,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    limit: float | None = None,
    env: Mapping[str, str] | None = None,
) -> WireRun:
    """Run ``scenario`` once against ``target`` in ``workdir`` (created) and return what happened.

    ``timeout`` is how long the harness may go without progress (a request to the scripted API
    before its script ran out, an MCP call, a hook) before it counts as hung; ``limit`` the longest
    the run may take while progressing (default :data:`LIMIT_FACTOR` times ``timeout``).

    ``env`` is the user's extra environment for the target (``--toolharness-target-env``); the
    scenario's own (``ENABLE_TOOL_SEARCH``, ...) wins over it. The recorded request bodies are
    written to ``workdir/requests/`` (:data:`REQUESTS_DIR`), the evidence a finding cites.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    scenario = scenario.for_target(target_names(target))
    write_scenario_files(workdir, scenario)
    settings_path = workdir / "settings.json"
    settings_path.write_text(wire_json(dict(scenario.settings)), encoding="utf-8")
    mcp_config_path = write_mcp_config(workdir / "mcp.json", scenario)
    with ScriptedApiServer(scenario.answer) as server:
        invocation = TargetInvocation(
            prompt=scenario.prompt,
            settings_path=settings_path,
            mcp_config_path=mcp_config_path,
            workdir=workdir,
            base_url=server.base_url,
            env={**check_target_env(env or {}), **scenario.env},
            timeout=timeout,
            plugin_dirs=tuple(workdir / d for d in scenario.plugin_dirs),
            interrupt=_call_running(workdir, scenario.interrupt_on) if scenario.interrupt_on else None,
            progress=_progress(server, workdir),
            limit=timeout * LIMIT_FACTOR if limit is None else limit,
        )
        outcome = run_target(target, invocation)
        requests = server.requests
        errors = server.script_errors
    _write_requests(workdir / REQUESTS_DIR, requests)
    from pytest_toolharness.wire.scenarios import read_call_log, read_served

    return WireRun(
        scenario=scenario.name,
        target=target.name,
        base_url=invocation.base_url,
        timeout=timeout,
        requests=requests,
        outcome=outcome,
        server_errors=errors,
        workdir=workdir,
        mcp_calls=read_call_log(workdir) if scenario.mcp_tools else [],
        served=read_served(workdir) if scenario.mcp_tools else {},
        hook_calls=read_hook_log(workdir),
        names=target_names(target),
        api=target_api(target),
    )


class WireHarness:
    """A harness reached over the wire: the ``wire`` capability only."""

    def __init__(
        self,
        target: Target,
        root: Path,
        timeout: float,
        *,
        limit: float | None = None,
        env: Mapping[str, str] | None = None,
        roles: frozenset[str] | None = None,
    ) -> None:
        self.target = target
        self.names = target_names(target)
        #: The scenario roles the target can express (its profile's capabilities); None: all of them.
        self.roles = roles
        self._root = root
        self._timeout = timeout
        self._limit = limit
        self._env = check_target_env(env or {})
        self._runs = itertools.count(1)

    def run_wire(self, scenario: WireScenario) -> WireRun:
        """Run ``scenario`` against the target in a fresh working directory."""
        workdir = self._root / f"{next(self._runs):03d}-{scenario.name}"
        run = run_wire_scenario(
            self.target, scenario, workdir, timeout=self._timeout, limit=self._limit, env=self._env
        )
        return dataclasses.replace(run, roles=self.roles)


class WireAdapter:
    """The adapter for a harness under test given as a target (``--toolharness-target``).

    ``claims`` are the requirement profiles the target claims (its target profile's; a bare command
    is taken to speak Claude Code's conventions, as the scenarios do by default). ``env`` is passed
    to every run (``--toolharness-target-env``). ``keep`` is a folder to keep the working
    directories in (``--toolharness-keep-workdirs``); without it they are deleted at exit.
    ``timeout`` is how long a run may go without progress; ``limit`` how long it may take in all
    while progressing (default :data:`LIMIT_FACTOR` times ``timeout``).
    """

    capabilities = frozenset({"wire"})
    # The harness is another process: every Python exception here is the suite's (see plugin _faults).
    harness_packages: tuple[str, ...] = ()

    def __init__(
        self,
        target: Target,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        limit: float | None = None,
        claims: frozenset[str] = frozenset({"core", "claude-code"}),
        roles: frozenset[str] | None = None,
        env: Mapping[str, str] | None = None,
        keep: Path | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"the target timeout must be > 0 seconds, got {timeout}")
        self.target = target
        self.timeout = timeout
        self.limit = max(timeout, limit) if limit is not None else timeout * LIMIT_FACTOR
        self.profiles = claims
        self.roles = roles
        self.env = check_target_env(env or {})
        #: The model API the target speaks; the scripted server answers it at its own path.
        self.api = target_api(target)
        self.name = f"wire target {target.name}"
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            self._root = Path(tempfile.mkdtemp(prefix="run-", dir=keep))
        else:
            self._root = Path(tempfile.mkdtemp(prefix="toolharness-wire-"))
            remove_at_exit(self._root)
        self._count = itertools.count(1)

    def new_harness(self) -> WireHarness:
        """A fresh harness with its own working directories."""
        root = self._root / f"harness-{next(self._count)}"
        root.mkdir(parents=True)
        return WireHarness(self.target, root, self.timeout, limit=self.limit, env=self.env, roles=self.roles)
