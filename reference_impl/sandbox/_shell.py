"""The Bash tool's sandbox: which commands run inside it, what the permission engine hears, the run.

:class:`SandboxedShell` is built once per session from the merged ``sandbox`` settings and the
permission context. For each call it decides (:meth:`SandboxedShell.plan`):

- sandbox off (``enabled`` false): the command runs as before, unsandboxed, through the permissions;
- sandbox on but unable to start (SBX-5): with ``failIfUnavailable`` the call is refused (denied, with
  the reason); otherwise it runs unsandboxed, through the ordinary permissions, and its result says
  the sandbox was unavailable: it is never reported, or auto-allowed, as sandboxed;
- ``dangerouslyDisableSandbox: true`` or a command of ``excludedCommands`` (SBX-4) runs unsandboxed
  through the ordinary permission decision (no auto-allow), unless ``allowUnsandboxedCommands`` is
  false: then it runs sandboxed like any other;
- anything else runs sandboxed; with ``autoAllowBashIfSandboxed`` the tool's own permission check
  allows it, which the engine consults only after the deny and ask rules (SBX-6). Under Bash deny or
  ask rules every program it starts passes the exec check (SBX-7, ``_exec_rules``); where the kernel
  can't give the check its seccomp listener, the call is refused, naming why: never run unchecked.

``excludedCommands`` entries match like Bash rule prefixes (``docker`` covers ``docker ps``; ``npm
run:*`` covers ``npm run build``); they are a convenience, not a security boundary (Claude Code says the
same): leaving the sandbox is still a permission decision.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reference_impl.permissions import PermissionContext, split_command
from reference_impl.sandbox._exec_guard import ExecGuard, exec_check_problem
from reference_impl.sandbox._exec_loader import LOADER_SCRIPT
from reference_impl.sandbox._exec_rules import ExecJudge, exec_judge
from reference_impl.sandbox._policy import SandboxPolicy, derive_policy
from reference_impl.sandbox._proxy import DomainProxy
from reference_impl.sandbox._runner import (
    PROXY_PORT,
    CommandResult,
    SandboxPatternError,
    bwrap_argv,
    command_shell,
    mount_plan,
    run_command,
    sandbox_problem,
    scrub,
    tools_for,
)
from reference_impl.sandbox._settings import SandboxSettings
from reference_impl.tools import ToolPermissionCheck

__all__ = ["DISABLE_SANDBOX_KEY", "SandboxPlan", "SandboxedShell", "ShellRunError"]

DISABLE_SANDBOX_KEY = "dangerouslyDisableSandbox"
"""The Bash input field by which the model asks to run a command outside the sandbox."""


class ShellRunError(Exception):
    """A command that was not run (refused, timed out, interrupted); the message says why."""


@dataclass(frozen=True, slots=True)
class SandboxPlan:
    """How one command will run: ``sandboxed``, ``unsandboxed`` or ``refused``, and why."""

    how: Literal["sandboxed", "unsandboxed", "refused"]
    reason: str


def _excluded(command: str, patterns: Iterable[str]) -> bool:
    # A command that can't be read with certainty is never excluded: it stays in the sandbox.
    try:
        parsed = split_command(command)
    except Exception:
        return False
    argvs = [part.argv for part in parsed.parts]
    if not parsed.confident or not argvs or any(a is None for argv in argvs for a in argv):
        return False
    parts = [" ".join(a for a in argv if a is not None) for argv in argvs]

    def matches(part: str, pattern: str) -> bool:
        prefix = pattern[:-2].rstrip() if pattern.endswith(":*") else pattern
        return part == prefix or part.startswith(prefix + " ")

    return all(any(matches(part, p) for p in patterns) for part in parts)


@dataclass
class SandboxedShell:
    """The session's shell sandbox: its settings, its policy, and the record of the runs."""

    settings: SandboxSettings
    context: PermissionContext
    settings_paths: tuple[Path, ...] = ()
    temp_dir: Path | None = None
    runs: list[CommandResult] = field(default_factory=list)
    proxies: list[DomainProxy] = field(default_factory=list)
    guards: list[ExecGuard] = field(default_factory=list)
    _problem: tuple[str | None] | None = None
    _policy: SandboxPolicy | None = None
    _judge: ExecJudge | None = None

    @property
    def problem(self) -> str | None:
        """Why the sandbox can't start here, or None (checked once per session)."""
        if self._problem is None:
            self._problem = (sandbox_problem(self.settings.bwrap_path, self.settings.socat_path),)
        return self._problem[0]

    @property
    def policy(self) -> SandboxPolicy:
        """The policy derived from the settings and the permission rules."""
        if self._policy is None:
            if self.temp_dir is None:
                self.temp_dir = Path(tempfile.mkdtemp(prefix="toolharness-sandbox-"))
            self._policy = derive_policy(
                self.settings, self.context, temp_dir=self.temp_dir, settings_paths=self.settings_paths
            )
        return self._policy

    @property
    def exec_judge(self) -> ExecJudge:
        """The exec check's judge: the Bash deny and ask rules held where the command runs (SBX-7)."""
        if self._judge is None:
            self._judge = exec_judge(self.context.rules, os.environ.get("PATH"))
        return self._judge

    def plan(self, tool_input: Mapping[str, Any]) -> SandboxPlan:
        """How this Bash call will run."""
        settings = self.settings
        if not settings.enabled:
            return SandboxPlan("unsandboxed", "the sandbox is off")
        problem = self.problem
        if problem is not None:
            if settings.fail_if_unavailable:
                return SandboxPlan(
                    "refused", f"the sandbox is unavailable ({problem}) and failIfUnavailable is set"
                )
            return SandboxPlan("unsandboxed", f"the sandbox is unavailable: {problem}")
        if settings.allow_unsandboxed_commands:
            if tool_input.get(DISABLE_SANDBOX_KEY) is True:
                return SandboxPlan("unsandboxed", f"the command asked for {DISABLE_SANDBOX_KEY}")
            command = str(tool_input.get("command", ""))
            if settings.excluded_commands and _excluded(command, settings.excluded_commands):
                return SandboxPlan("unsandboxed", "the command is in sandbox.excludedCommands")
        if self.exec_judge.active:
            unwatched = exec_check_problem(sys.executable, LOADER_SCRIPT)
            if unwatched is not None:
                # Never a sandboxed run whose deny rules hold only where the line is read (SBX-7).
                return SandboxPlan(
                    "refused",
                    "the sandbox's exec check, which holds the Bash deny and ask rules where the"
                    f" command runs, can't start here ({unwatched})",
                )
        return SandboxPlan("sandboxed", "the sandbox is on")

    def check_permissions(self, tool_input: Mapping[str, Any]) -> ToolPermissionCheck:
        """The Bash tool's own opinion: refuse, allow a sandboxed call (auto-allow), or none."""
        plan = self.plan(tool_input)
        if plan.how == "refused":
            return ToolPermissionCheck("deny", message=f"Bash can't run: {plan.reason}")
        if plan.how == "sandboxed" and self.settings.auto_allow_bash_if_sandboxed:
            return ToolPermissionCheck(
                "allow", message="sandboxed, and sandbox.autoAllowBashIfSandboxed is on"
            )
        return ToolPermissionCheck.passthrough()

    async def run(
        self, tool_input: Mapping[str, Any], *, cwd: Path, timeout: float, abort: asyncio.Event
    ) -> CommandResult:
        """Run the call as planned; raises :class:`ShellRunError` when it doesn't run to its end."""
        plan = self.plan(tool_input)
        command = str(tool_input.get("command", ""))
        if plan.how == "refused":
            raise ShellRunError(f"Bash can't run: {plan.reason}")
        shell = command_shell()
        if shell is None:
            raise ShellRunError(
                "Bash can't run: bash is not installed (the command is read as bash would read it)"
            )
        if plan.how == "unsandboxed":
            done = await run_command([shell, "-c", command], cwd=cwd, env=None, timeout=timeout, abort=abort)
            if isinstance(done, str):
                raise ShellRunError(f"The command {done}")
            output = done[0]
            if self.settings.enabled:
                output = f"{output}\n(ran outside the sandbox: {plan.reason})".lstrip("\n")
            result = CommandResult(output, done[1], sandboxed=False)
        else:
            result = await self._run_sandboxed(command, cwd=cwd, timeout=timeout, abort=abort)
        self.runs.append(result)
        return result

    async def _run_sandboxed(
        self, command: str, *, cwd: Path, timeout: float, abort: asyncio.Event
    ) -> CommandResult:
        policy = self.policy
        bwrap, socat = tools_for(self.settings.bwrap_path, self.settings.socat_path)
        try:
            plan = mount_plan(policy)
        except SandboxPatternError as exc:
            raise ShellRunError(f"Bash can't run: {exc}") from exc
        proxy = DomainProxy(policy.allows_host)
        self.proxies.append(proxy)
        judge = self.exec_judge
        guard = ExecGuard(judge.for_command(command)) if judge.active else None
        if guard is not None:
            self.guards.append(guard)
        with tempfile.TemporaryDirectory(prefix="toolharness-proxy-") as private:
            socket_path = os.path.join(private, "proxy.sock")
            await proxy.start(socket_path)
            proxy_url = f"http://127.0.0.1:{PROXY_PORT}"
            env = dict(os.environ)
            env.update(
                {
                    key: proxy_url
                    for key in (
                        "HTTP_PROXY",
                        "HTTPS_PROXY",
                        "http_proxy",
                        "https_proxy",
                        "ALL_PROXY",
                        "all_proxy",
                    )
                }
            )
            env.update(NO_PROXY="", no_proxy="", TMPDIR=str(self.temp_dir), SBX_SOCAT=socat)
            env.update(SBX_PORT=str(PROXY_PORT), SBX_SOCKET=socket_path, SANDBOX_RUNTIME="1")
            if guard is not None:
                exec_socket = os.path.join(private, "exec.sock")
                guard.start(exec_socket)
                env.update(SBX_EXEC_SOCKET=exec_socket, SBX_PYTHON=sys.executable, SBX_LOADER=LOADER_SCRIPT)
            try:
                done = await run_command(
                    bwrap_argv(bwrap, plan, cwd, command, exec_checked=guard is not None),
                    cwd=cwd,
                    env=env,
                    timeout=timeout,
                    abort=abort,
                )
            finally:
                await proxy.close()
                if guard is not None:
                    await asyncio.to_thread(guard.close)
                removed = scrub(plan)
        if isinstance(done, str):
            raise ShellRunError(f"The command {done}")
        output = done[0]
        if removed:
            names = ", ".join(shlex.quote(p) for p in removed)
            output = f"{output}\n(the sandbox removed or restored protected paths the command changed: {names})".lstrip(
                "\n"
            )
        refused: tuple[str, ...] = ()
        if guard is not None:
            # The program itself says only "Operation not permitted": the rule is named here.
            refused = tuple(dict.fromkeys(r.reason for r in guard.refusals))
            if guard.failure is not None:
                refused += (f"the sandbox's exec check failed, so nothing more ran: {guard.failure}",)
            if refused:
                output = "\n".join([output.rstrip("\n"), *(f"({line})" for line in refused)]).lstrip("\n")
        return CommandResult(output, done[1], sandboxed=True, removed=removed, refused=refused)
