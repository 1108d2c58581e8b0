"""``python -m reference_impl -p PROMPT``: the reference harness as a command, for black-box wire tests.

Runs the agent loop once against the Messages API at ``ANTHROPIC_BASE_URL`` with
``ANTHROPIC_API_KEY`` (as Claude Code's ``claude -p`` does) and prints the final text, or with
``--output-format json`` one JSON result object. Nobody can be asked in this mode, so a call no
rule allows is denied (PERM-8). Built-in tools: ``Read``, ``Bash``, ``Write`` and ``ToolSearch``;
settings come from ``~/.claude/settings.json``, ``.claude/settings.json``,
``.claude/settings.local.json`` (those that exist, ``--setting-sources``) and each ``--settings``;
``--mcp-tools FILE`` adds MCP tools with fixed answers (a JSON list of ``{"server", "name",
"description", "inputSchema", "result", "_meta"?, "annotations"?}``), deferred as MCP tools are;
``--mcp-config FILE`` (repeatable) connects to the stdio MCP servers of a Claude Code style config.
``ENABLE_TOOL_SEARCH`` is honoured. Hooks come from the settings files and from each
``--plugin-dir`` plugin's ``hooks/hooks.json``; what they say to the user (``systemMessage``, a
``stopReason``, a blocked prompt's reason) is printed on stderr, or is in the JSON result
(``hook_messages``), never sent to the model. SIGINT is taken as Claude Code takes Ctrl-C: the
first one during the loop interrupts the turn (the running calls are cancelled, every tool_use gets
one result) and the session goes on with Claude Code's interruption note as the next prompt; a
second one, or one outside the loop, ends the process as before. Exit status: 0 done, 1 the API refused a request, 2
bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import signal
import ssl
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from reference_impl.agent._mcp_client import McpConfigError, connect_mcp_servers, load_mcp_config
from reference_impl.hooks import HookConfigError, hooks_from_settings_files
from reference_impl.permissions import (
    PERMISSION_MODES,
    SETTINGS_FILES,
    SETTINGS_PRECEDENCE,
    PermissionContext,
    SettingsError,
    SettingsFile,
    SettingSource,
    context_from_settings,
    load_settings,
)
from reference_impl.sandbox import SandboxedShell, SandboxSettings, ShellRunError, sandbox_settings
from reference_impl.tools import (
    UNLIMITED,
    PermissionTarget,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolOutput,
    build_tool,
    mcp_tool,
)

# The anthropic SDK (about 3,200 modules, ~2 s of CPU) is imported inside the functions that need it
# (_session, main, builtin_tools), so --help and argument errors answer at once; mcp is imported
# only when a server is connected (reference_impl.agent._mcp_client).
if TYPE_CHECKING:
    from reference_impl.agent._loop import AgentSession
    from reference_impl.agent._results import LoopResult

__all__ = ["builtin_tools", "load_mcp_tools", "main", "settings_files_found"]

DEFAULT_MODEL = "claude-sonnet-4-6"
BASH_MAX_RESULT_SIZE_CHARS = 30_000
BASH_DEFAULT_TIMEOUT_MS = 120_000


class ReadInput(BaseModel):
    """Read's input."""

    file_path: str = Field(description="The absolute path of the file to read")
    offset: int | None = Field(default=None, ge=1, description="The line number to start at (1-based)")
    limit: int | None = Field(default=None, ge=1, description="How many lines to read")


class BashInput(BaseModel):
    """Bash's input."""

    command: str = Field(description="The command to run")
    timeout: int | None = Field(default=None, ge=1, le=600_000, description="Timeout in milliseconds")


async def _read(tool_input: ToolInput, context: ToolContext) -> ToolOutput:
    params = ReadInput.model_validate(dict(tool_input))
    path = Path(params.file_path)
    if not path.is_absolute():
        path = context.cwd / path
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as error:
        raise ToolError(f"File could not be read: {error.strerror or error}") from error
    start = (params.offset or 1) - 1
    chosen = lines[start : start + params.limit] if params.limit else lines[start:]
    # cat -n numbering, as Claude Code's Read shows files.
    return ToolOutput(content="\n".join(f"{start + n:>6}\t{line}" for n, line in enumerate(chosen, 1)))


class SandboxedBashInput(BashInput):
    """Bash's input when the sandbox is on: the model may ask to leave it (SBX-4)."""

    dangerouslyDisableSandbox: bool | None = Field(  # Claude Code's spelling
        default=None, description="Run this command outside the sandbox (asks for permission)"
    )


def _bash_call(shell: SandboxedShell) -> Any:
    async def call(tool_input: ToolInput, context: ToolContext) -> ToolOutput:
        params = BashInput.model_validate(dict(tool_input))
        timeout = (params.timeout or BASH_DEFAULT_TIMEOUT_MS) / 1000
        try:
            done = await shell.run(tool_input, cwd=context.cwd, timeout=timeout, abort=context.abort)
        except ShellRunError as error:
            raise ToolError(str(error)) from error
        text = done.output.rstrip("\n")
        if done.returncode:
            return ToolOutput(content=f"{text}\nExit code {done.returncode}".lstrip("\n"), is_error=True)
        # What PostToolUse hooks get (HOOK-6): Claude Code's Bash response; stderr is merged into stdout.
        response = {
            "stdout": text,
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        }
        return ToolOutput(content=text, hook_response=response)

    return call


class WriteInput(BaseModel):
    """Write's input."""

    file_path: str = Field(description="The absolute path of the file to write")
    content: str = Field(description="The content to write to the file")


async def _write(tool_input: ToolInput, context: ToolContext) -> ToolOutput:
    params = WriteInput.model_validate(dict(tool_input))
    path = Path(params.file_path).expanduser()
    if not path.is_absolute():
        path = context.cwd / path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(params.content, encoding="utf-8")
    except OSError as error:
        raise ToolError(f"File could not be written: {error.strerror or error}") from error
    return ToolOutput(content=f"File written: {params.file_path}")


def _read_only(_input: ToolInput) -> bool:
    return True


def settings_files_found(
    cwd: Path, home: Path, sources: str | None = None
) -> list[tuple[SettingSource, Path]]:
    """The settings files Claude Code finds by itself that exist, lowest precedence first.

    ``sources`` is ``--setting-sources`` (comma-separated ``user``, ``project``, ``local``; None:
    all three, as Claude Code's command does; ``""``: none).
    """
    wanted = (
        {"user", "project", "local"}
        if sources is None
        else {s.strip() for s in sources.split(",") if s.strip()}
    )
    unknown = sorted(wanted - {"user", "project", "local"})
    if unknown:
        raise ValueError(f"--setting-sources: unknown source(s) {unknown}; use user, project, local")
    found: list[tuple[SettingSource, Path]] = []
    for source in SETTINGS_PRECEDENCE:
        place = SETTINGS_FILES.get(source)
        if place is None or source.removesuffix("Settings") not in wanted:
            continue
        path = home / place[2:] if place.startswith("~/") else cwd / place
        if path.is_file():
            found.append((source, path))
    return found


def builtin_tools(shell: SandboxedShell | None = None) -> list[Tool]:
    """The command's built-in tools: Read, Bash (sandboxed as ``shell`` says), Write and ToolSearch."""
    from reference_impl.search import tool_search_tool

    read = build_tool(
        "Read",
        "Reads a file from the local filesystem; lines are numbered from 1.",
        _read,
        input_model=ReadInput,
        is_concurrency_safe=_read_only,
        is_read_only=_read_only,
        max_result_size_chars=UNLIMITED,
        permission_target=lambda i: PermissionTarget("read", str(i.get("file_path", ""))),
    )
    # Without a sandbox the shell still runs through SandboxedShell, with the sandbox off.
    shell = shell or SandboxedShell(SandboxSettings(), PermissionContext())
    sandboxed = shell.settings.enabled
    bash = build_tool(
        "Bash",
        "Runs a shell command and returns its output.",
        _bash_call(shell),
        input_model=SandboxedBashInput if sandboxed else BashInput,
        is_shell=True,
        max_result_size_chars=BASH_MAX_RESULT_SIZE_CHARS,
        permission_target=lambda i: PermissionTarget("shell", str(i.get("command", ""))),
        check_permissions=lambda i, _context: shell.check_permissions(i),
    )
    write = build_tool(
        "Write",
        "Writes a file to the local filesystem, replacing it if it exists.",
        _write,
        input_model=WriteInput,
        permission_target=lambda i: PermissionTarget("edit", str(i.get("file_path", ""))),
    )
    return [read, bash, write, tool_search_tool()]


def load_mcp_tools(path: Path) -> list[Tool]:
    """MCP tools with fixed answers, from a JSON file; a malformed entry raises ``ValueError``."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: can't be read as JSON: {error}") from error
    if not isinstance(entries, list):
        raise ValueError(f"{path}: must hold a JSON list of MCP tools")
    tools = []
    for index, entry in enumerate(entries):
        where = f"{path}: [{index}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where} must be an object")
        missing = [k for k in ("server", "name", "inputSchema") if k not in entry]
        if missing:
            raise ValueError(f"{where} lacks {', '.join(missing)}")
        answer = entry.get("result", "")

        async def call(_input: ToolInput, _context: ToolContext, answer: Any = answer) -> ToolOutput:
            return ToolOutput(content=answer if isinstance(answer, str | list) else json.dumps(answer))

        tools.append(
            mcp_tool(
                str(entry["server"]),
                str(entry["name"]),
                str(entry.get("description", "")),
                entry["inputSchema"],
                call,
                meta=entry.get("_meta"),
                annotations=entry.get("annotations"),
            )
        )
    return tools


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_impl", description=__doc__.split("\n")[0])
    parser.add_argument("-p", "--print", dest="prompt", required=True, help="the prompt; run once and print")
    parser.add_argument("--settings", action="append", default=[], type=Path, help="a settings.json file")
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, default=None)
    parser.add_argument(
        "--setting-sources",
        default=None,
        help="which settings files to read besides --settings: user, project, local (default: all)",
    )
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument("--model", default=os.environ.get("ANTHROPIC_MODEL") or DEFAULT_MODEL)
    parser.add_argument("--max-turns", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=8192)
    parser.add_argument("--mcp-tools", type=Path, default=None, help="a JSON list of fixed-answer MCP tools")
    parser.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        type=Path,
        help="a Claude Code style MCP config (stdio servers)",
    )
    parser.add_argument("--session-dir", type=Path, default=None, help="where large results are saved")
    parser.add_argument(
        "--plugin-dir",
        action="append",
        default=[],
        type=Path,
        help="a Claude Code plugin directory whose hooks/hooks.json is loaded",
    )
    return parser


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The API client's TLS settings (the SDK's own defaults), made once per process.

    Loading the CA bundle costs about a quarter of a second of CPU; a process forked after this was
    called (:mod:`reference_impl.prewarm`) shares it instead of loading it again.
    """
    import httpx2

    return httpx2.create_ssl_context()


def _session(args: argparse.Namespace, session_id: str) -> AgentSession:
    """The session the arguments describe; configuration errors raise before any request."""
    import anthropic

    from reference_impl.agent._loop import AgentSession
    from reference_impl.request import RequestBuilder
    from reference_impl.tools import parse_enable_tool_search

    cwd = Path.cwd()
    found = settings_files_found(cwd, Path.home(), args.setting_sources)
    files: list[SettingsFile] = [load_settings(path, source) for source, path in found]
    files += [load_settings(path, "flagSettings") for path in args.settings]
    settings_paths = (*(path for _, path in found), *args.settings)
    for settings in files:
        for notice in settings.notices:
            print(f"python -m reference_impl: {notice}", file=sys.stderr)
    # disableAllHooks and allowManagedHooksOnly decide which files' and plugins' hooks run.
    hooks = hooks_from_settings_files(files, plugin_dirs=args.plugin_dir)
    permission_context = context_from_settings(files, cwd=cwd, mode=args.permission_mode, can_prompt=False)
    shell = SandboxedShell(sandbox_settings(files), permission_context, settings_paths=settings_paths)
    if shell.settings.enabled and shell.problem is not None:
        # SBX-5: said once, at the start; each command's result says it again.
        print(f"python -m reference_impl: sandbox unavailable: {shell.problem}", file=sys.stderr)
    builder = RequestBuilder(
        model=args.model,
        max_tokens=args.max_tokens,
        tool_search=parse_enable_tool_search(os.environ.get("ENABLE_TOOL_SEARCH")),
        cwd=cwd,
    )
    session_dir = args.session_dir or Path(tempfile.gettempdir()) / "reference_impl" / session_id
    mcp_tools = load_mcp_tools(args.mcp_tools) if args.mcp_tools else []
    return AgentSession(
        # ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY come from the environment.
        client=anthropic.AsyncAnthropic(http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context())),
        builder=builder,
        session_dir=session_dir,
        tools=builtin_tools(shell),
        mcp_tools=mcp_tools,
        permission_context=permission_context,
        hooks=hooks,
        max_turns=args.max_turns,
        session_id=session_id,
    )


#: The prompt the session goes on with after a SIGINT interrupted a turn: Claude Code's own note.
INTERRUPTED_PROMPT = "[Request interrupted by user for tool use]"


class _Interrupts:
    """SIGINT while the loop runs: the first one sets :attr:`abort`; any other goes to the handler before.

    The handler before is asyncio's (it cancels the run: the process ends as it always did on
    SIGINT). An ignored SIGINT stays ignored, as asyncio leaves it.
    """

    def __init__(self) -> None:
        self.abort = asyncio.Event()
        self.running = False
        self._loop = asyncio.get_running_loop()
        self._before = signal.getsignal(signal.SIGINT)
        if callable(self._before):
            signal.signal(signal.SIGINT, self._on_sigint)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.running and not self.abort.is_set():
            self._loop.call_soon_threadsafe(self.abort.set)
            return
        if callable(self._before):
            self._before(signum, frame)

    def close(self) -> None:
        if callable(self._before):
            signal.signal(signal.SIGINT, self._before)


async def _run(
    session: AgentSession, prompt: str, mcp_configs: Sequence[Path] = ()
) -> tuple[LoopResult, tuple[str, ...]]:
    """The loop's result and what the SessionEnd and async hooks said to the user at the end."""
    interrupts = _Interrupts()
    try:
        servers = [server for path in mcp_configs for server in load_mcp_config(path)]
        # The MCP servers live exactly as long as the loop: started here, closed on the way out.
        async with connect_mcp_servers(servers) as connected:
            session.mcp_tools = [*session.mcp_tools, *connected]
            try:
                interrupts.running = True
                result = await session.run(prompt, abort=interrupts.abort)
                if interrupts.abort.is_set():  # a SIGINT, not a hook's or the host's interrupt
                    # The interrupted turn's results are in the transcript; the session goes on.
                    result = await session.run(INTERRUPTED_PROMPT)
                interrupts.running = False
            finally:
                ending = await session.end("other")
            return result, ending
    finally:
        interrupts.close()
        await session.client.close()


def _hook_messages(result: LoopResult, ending: Sequence[str]) -> list[str]:
    """What the hooks said to the user, in order: messages, a blocked prompt, a stop reason, errors."""
    messages = list(result.system_messages)
    if result.prompt_block_reason:
        messages.append(f"UserPromptSubmit operation blocked by hook:\n{result.prompt_block_reason}")
    if result.stop_reason == "hook_stopped":
        messages.append(f"Stopped by a hook: {result.hook_stop_reason or '(no reason given)'}")
    messages.extend(f"{e.event} hook error: {e.hook}: {e.message}" for e in result.hook_errors)
    messages.extend(ending)
    return messages


def _emit(args: argparse.Namespace, payload: dict[str, Any]) -> None:
    if args.output_format == "json":
        print(json.dumps(payload, ensure_ascii=False))
    elif payload["is_error"]:
        print(payload["result"], file=sys.stderr)
    else:
        print(payload["result"])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.max_turns < 1 or args.max_tokens < 1:
        parser.error("--max-turns and --max-tokens must be at least 1")
    session_id = str(uuid.uuid4())
    base = {"type": "result", "session_id": session_id}
    import anthropic

    from reference_impl.agent._results import ApiRequestError

    try:
        session = _session(args, session_id)
    except (SettingsError, HookConfigError, ValueError, anthropic.AnthropicError) as error:
        print(f"python -m reference_impl: {error}", file=sys.stderr)
        return 2
    try:
        result, ending = asyncio.run(_run(session, args.prompt, args.mcp_config))
    except McpConfigError as error:
        print(f"python -m reference_impl: {error}", file=sys.stderr)
        return 2
    except ApiRequestError as error:
        _emit(args, {**base, "subtype": "error_during_execution", "is_error": True, "result": str(error)})
        return 1
    subtype = "error_max_turns" if result.stop_reason == "max_turns" else "success"
    messages = _hook_messages(result, ending)
    if args.output_format == "text":
        for message in messages:
            print(message, file=sys.stderr)
    _emit(
        args,
        {
            **base,
            "subtype": subtype,
            "is_error": False,
            "result": result.text,
            "stop_reason": result.stop_reason,
            "num_turns": result.turns,
            "hook_messages": messages,
        },
    )
    return 0
