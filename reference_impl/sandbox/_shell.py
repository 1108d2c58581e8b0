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
  allows it, which the engine consults only after the deny and ask rules (SBX-6).

``excludedCommands`` entries match like Bash rule prefixes (``docker`` covers ``docker ps``; ``npm
run:*`` covers ``npm run build``); they are a convenience, not a security boundary (Claude Code says the
same): leaving the sandbox is still a permission decision.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reference_impl.permissions import PermissionContext, split_command
from reference_impl.sandbox._exec_guard import ExecGuard, ExecRule, exec_rules, read_denials
from reference_impl.sandbox._policy import SandboxPolicy, derive_policy
from reference_impl.sandbox._proxy import DomainProxy
from reference_impl.sandbox._runner import (
    PROXY_PORT,
    CommandResult,
    SandboxPatternError,
    bwrap_argv,
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
    _problem: tuple[str | None] | None = None
    _policy: SandboxPolicy | None = None
    _exec_rules: tuple[ExecRule, ...] | None = None

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
    def exec_rules(self) -> tuple[ExecRule, ...]:
        """The deny and ask rules judged where the command runs (SBX-7)."""
        if self._exec_rules is None:
            self._exec_rules = exec_rules(self.context.rules)
        return self._exec_rules

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
        if plan.how == "unsandboxed":
            done = await run_command(
                ["/bin/sh", "-c", command], cwd=cwd, env=None, timeout=timeout, abort=abort
            )
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
        with tempfile.TemporaryDirectory(prefix="toolharness-proxy-") as private:
            socket_path = os.path.join(private, "proxy.sock")
            await proxy.start(socket_path)
            guard = ExecGuard.build(self.exec_rules, Path(private, "exec")) if self.exec_rules else None
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
            # The bridge's own programs, past any stub a rule put over them (SBX-7).
            helpers = {
                "SBX_GREP": shutil.which("grep") or "grep",
                "SBX_SLEEP": shutil.which("sleep") or "sleep",
            }
            if guard is not None:
                socat = guard.real_program(socat)
                helpers = {key: guard.real_program(path) for key, path in helpers.items()}
            env.update(helpers)
            env.update(NO_PROXY="", no_proxy="", TMPDIR=str(self.temp_dir), SBX_SOCAT=socat)
            env.update(SBX_PORT=str(PROXY_PORT), SBX_SOCKET=socket_path, SANDBOX_RUNTIME="1")
            try:
                argv = bwrap_argv(
                    bwrap,
                    plan,
                    cwd,
                    command,
                    exec_mounts=guard.mounts if guard else (),
                    shell=guard.shell if guard else "/bin/sh",
                )
                done = await run_command(argv, cwd=cwd, env=env, timeout=timeout, abort=abort)
            finally:
                await proxy.close()
                removed = scrub(plan)
                denied = read_denials(guard) if guard else ()
        if isinstance(done, str):
            raise ShellRunError(f"The command {done}")
        output = done[0]
        if removed:
            names = ", ".join(shlex.quote(p) for p in removed)
            output = f"{output}\n(the sandbox removed or restored protected paths the command changed: {names})".lstrip(
                "\n"
            )
        unseen = [line for line in dict.fromkeys(denied) if line not in output]
        if unseen:
            # The stub's own stderr may have been redirected away: the record is what the model sees.
            refused = "\n".join(unseen)
            output = f"{output}\n(the sandbox refused programs a permission rule names:\n{refused})".lstrip(
                "\n"
            )
        return CommandResult(output, done[1], sandboxed=True, removed=removed, denied=denied)
