"""The reference harness as an MCP client: stdio servers from a Claude Code style ``--mcp-config``.

:func:`load_mcp_config` reads ``{"mcpServers": {"<name>": {"type": "stdio", "command": ..., "args":
[...], "env": {...}}}}`` (the shape ``claude --mcp-config`` takes). :func:`connect_mcp_servers`
starts every server with the ``mcp`` package's stdio client, lists its tools and wraps each as a
harness tool through :func:`reference_impl.tools._tool.mcp_tool`, so ``_meta`` (``anthropic/alwaysLoad``,
``anthropic/searchHint``, ``anthropic/maxResultSizeChars``) and ``readOnlyHint`` are honoured as
Claude Code honours them. A call goes to the server; its result becomes a :class:`ToolOutput`
shaped as Claude Code sends MCP results: a list of text and image blocks, an empty list when the
server returned nothing, and for ``isError`` the joined text with ``is_error=True``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from reference_impl.tools import Tool, ToolContext, ToolInput, ToolOutput, mcp_tool

__all__ = [
    "McpConfigError",
    "McpServerConfig",
    "call_result_to_output",
    "connect_mcp_servers",
    "load_mcp_config",
]


class McpConfigError(ValueError):
    """An MCP config that can't be used: names the file, the server and what is wrong."""


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One stdio MCP server: the command that starts it, its arguments and extra environment."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def load_mcp_config(path: Path) -> list[McpServerConfig]:
    """The servers a Claude Code style MCP config file names, in file order.

    Only stdio servers are supported; any other ``type`` (``sse``, ``http``) is an error rather
    than a server silently left out.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise McpConfigError(f"{path}: can't be read as JSON: {error}") from error
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpConfigError(f'{path}: must be an object with "mcpServers": {{name: server}}')
    configs = []
    for name, entry in servers.items():
        where = f"{path}: mcpServers.{name}"
        if not isinstance(entry, dict):
            raise McpConfigError(f"{where} must be an object")
        kind = entry.get("type", "stdio")
        if kind != "stdio":
            raise McpConfigError(f"{where}: type {kind!r} is not supported (only stdio)")
        command = entry.get("command")
        if not isinstance(command, str) or not command:
            raise McpConfigError(f"{where}: command must be a non-empty string")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise McpConfigError(f"{where}: args must be a list of strings")
        env = entry.get("env") or {}
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise McpConfigError(f"{where}: env must map strings to strings")
        configs.append(McpServerConfig(name=name, command=command, args=tuple(args), env=dict(env)))
    return configs


def _block(content: Any) -> dict[str, Any] | None:
    """One MCP content item as an API content block; None for kinds with no API equivalent."""
    if content.type == "text":
        return {"type": "text", "text": content.text}
    if content.type == "image":
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": content.mime_type, "data": content.data},
        }
    return None


def call_result_to_output(result: Any) -> ToolOutput:
    """An MCP ``CallToolResult`` as the harness's :class:`ToolOutput`."""
    blocks = [b for b in (_block(c) for c in result.content) if b is not None]
    if result.is_error:
        # Claude Code sends an MCP error as the plain joined text of its text items.
        text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
        return ToolOutput(content=text or "MCP tool error", is_error=True)
    if not blocks and result.structured_content is not None:
        return ToolOutput(content=json.dumps(result.structured_content, ensure_ascii=False))
    return ToolOutput(content=blocks)


def _wrap(server: str, listed: Any, session: Any) -> Tool:
    name = listed.name

    async def call(tool_input: ToolInput, _context: ToolContext) -> ToolOutput:
        result = await session.call_tool(name, dict(tool_input))
        return call_result_to_output(result)

    annotations = (
        listed.annotations.model_dump(by_alias=True, exclude_none=True) if listed.annotations else None
    )
    return mcp_tool(
        server,
        name,
        listed.description or "",
        listed.input_schema,
        call,
        meta=listed.meta,
        annotations=annotations,
    )


async def _list_all(session: Any) -> list[Any]:
    """Every tool the server lists, following pagination cursors."""
    import mcp_types

    listed: list[Any] = []
    cursor: str | None = None
    while True:
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listed.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return listed


def _server_errlog() -> TextIO:
    """Where the servers' stderr goes: ours as it is now.

    The mcp client otherwise binds the stderr of its import time; when ours is a capture without
    a file descriptor (pytest's capsys), the real one.
    """
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__ if sys.__stderr__ is not None else sys.stderr
    return sys.stderr


@contextlib.asynccontextmanager
async def connect_mcp_servers(servers: list[McpServerConfig]) -> AsyncIterator[list[Tool]]:
    """Start and initialise every server, list its tools, yield them wrapped; close all on exit.

    Use it in the task that runs the agent loop (the ``mcp`` client's task groups must be left in
    the task that entered them). A server that fails to start or to list raises, naming it.
    """
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    tools: list[Tool] = []
    try:
        async with contextlib.AsyncExitStack() as stack:
            for server in servers:
                params = StdioServerParameters(
                    command=server.command, args=list(server.args), env=dict(server.env) or None
                )
                try:
                    read, write = await stack.enter_async_context(
                        stdio_client(params, errlog=_server_errlog())
                    )
                    session = await stack.enter_async_context(ClientSession(read, write))
                    await session.initialize()
                    listed = await _list_all(session)
                except Exception as error:
                    raise McpConfigError(f"MCP server {server.name!r} failed to start: {error}") from error
                tools.extend(_wrap(server.name, item, session) for item in listed)
            yield tools
    except BaseExceptionGroup as group:
        # The mcp client's anyio task groups wrap whatever crosses them (a server that won't start,
        # or the agent loop's own ApiRequestError); callers want the one real error back.
        raise _single(group) from None


def _single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The only leaf of a (nested) exception group, or the group itself when there are several."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        item = pending.pop()
        if isinstance(item, BaseExceptionGroup):
            pending.extend(item.exceptions)
        else:
            leaves.append(item)
    return leaves[0] if len(leaves) == 1 else group
