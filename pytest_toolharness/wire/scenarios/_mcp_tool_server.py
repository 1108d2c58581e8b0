"""A stdio MCP server the suite controls: its tool specs with their scripted behaviours.

Any MCP-capable harness (Claude Code through ``--mcp-config``, the reference harness through
``python -m reference_impl --mcp-config``) gets tools whose behaviour the suite knows: text of N
characters, empty output, an error result, a sleep, an image. Every call is logged, start and
end, to ``calls.jsonl`` next to the tools file, so black-box checks can see what actually ran
and which calls overlapped, whatever the harness under test reports. Every ``tools/list`` answer
is logged to ``served.jsonl`` too (the names and descriptions served), so a check can tell the
suite's MCP tools in a request from the harness's own, whatever the harness names them.

Run it as ``python -m pytest_toolharness.wire.scenarios._mcp_tool_server --tools FILE`` (``write_server_config``
writes the tools file and a Claude Code style ``--mcp-config`` file that runs exactly that).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeAlias

from pytest_toolharness.specs import ToolBehavior, ToolSpec

__all__ = [
    "CALLS_LOG_NAME",
    "DEFAULT_SERVER_NAME",
    "SERVED_LOG_NAME",
    "McpCallEvent",
    "build_server",
    "listed_name",
    "main",
    "mcp_tool_meta",
    "read_call_log",
    "read_served",
    "serve",
    "tool_specs_from_json",
    "tool_specs_to_json",
    "write_server_config",
]

DEFAULT_SERVER_NAME = "suite"
CALLS_LOG_NAME = "calls.jsonl"
SERVED_LOG_NAME = "served.jsonl"
_TOOLS_FILE_NAME = "tools.json"
_MODULE = "pytest_toolharness.wire.scenarios._mcp_tool_server"
# What the server imports (some only when it serves), for the fork server to import once.
_PRELOAD = (
    "pytest_toolharness.wire",  # the package -m imports before the module
    "pytest_toolharness.specs",
    "anyio",
    "mcp_types",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
)
_FORMAT_VERSION = 1
# Claude Code's MCP result budget; a spec that keeps it needs no _meta override.
_DEFAULT_MCP_RESULT_CHARS = 50_000
_BEHAVIOR_FIELDS = ("kind", "text", "chars", "fill", "seconds", "message", "value")
_SPEC_FIELDS = tuple(f.name for f in fields(ToolSpec) if f.name != "behavior")
_TUPLE_FIELDS = frozenset({"aliases"})
_ONE_PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


# --- specs as JSON ---------------------------------------------------------------------------


def _behavior_to_json(behavior: ToolBehavior) -> dict[str, Any]:
    # The gate is an in-process asyncio.Event: it cannot cross a process boundary.
    if behavior.gate is not None:
        raise ValueError(
            "a ToolBehavior with a gate cannot be sent to an MCP server (the gate is in-process)"
        )
    return {name: getattr(behavior, name) for name in _BEHAVIOR_FIELDS}


def tool_specs_to_json(specs: Sequence[ToolSpec]) -> str:
    """Serialize tool specs (with their behaviours) as deterministic JSON for the MCP server."""
    items = []
    for spec in specs:
        item: dict[str, Any] = {name: getattr(spec, name) for name in _SPEC_FIELDS}
        item["input_schema"] = dict(spec.input_schema)
        item["aliases"] = list(spec.aliases)
        item["behavior"] = _behavior_to_json(spec.behavior)
        items.append(item)
    return json.dumps(
        {"version": _FORMAT_VERSION, "tools": items}, sort_keys=True, indent=1, ensure_ascii=False
    )


def tool_specs_from_json(text: str) -> list[ToolSpec]:
    """Parse what :func:`tool_specs_to_json` wrote; unknown fields or kinds are a clear error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"tool specs file is not JSON: {exc}") from exc
    if (
        not isinstance(data, dict)
        or data.get("version") != _FORMAT_VERSION
        or not isinstance(data.get("tools"), list)
    ):
        raise ValueError(f'tool specs file must be {{"version": {_FORMAT_VERSION}, "tools": [...]}}')
    specs = []
    for index, item in enumerate(data["tools"]):
        if not isinstance(item, dict):
            raise ValueError(f"tool spec #{index} is not an object")
        unknown = sorted(set(item) - set(_SPEC_FIELDS) - {"behavior"})
        if unknown:
            raise ValueError(f"tool spec #{index} has unknown fields: {', '.join(unknown)}")
        raw_behavior = item.get("behavior", {})
        if not isinstance(raw_behavior, dict):
            raise ValueError(f"tool spec #{index}: behavior is not an object")
        bad = sorted(set(raw_behavior) - set(_BEHAVIOR_FIELDS))
        if bad:
            raise ValueError(f"tool spec #{index}: behavior has unknown fields: {', '.join(bad)}")
        kwargs: dict[str, Any] = {
            k: (tuple(v) if k in _TUPLE_FIELDS else v) for k, v in item.items() if k != "behavior"
        }
        try:
            specs.append(ToolSpec(**kwargs, behavior=ToolBehavior(**raw_behavior)))
        except TypeError as exc:
            raise ValueError(f"tool spec #{index}: {exc}") from exc
    names = [listed_name(spec) for spec in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"tool specs name the same MCP tool twice: {', '.join(duplicates)}")
    return specs


def listed_name(spec: ToolSpec) -> str:
    """The name the MCP server lists a spec under (``mcp_tool``, else ``name``)."""
    return spec.mcp_tool or spec.name


def mcp_tool_meta(spec: ToolSpec) -> dict[str, Any]:
    """The tool's ``_meta``: the ``anthropic/*`` keys Claude Code honours, only when they say something."""
    meta: dict[str, Any] = {}
    if spec.always_load:
        meta["anthropic/alwaysLoad"] = True
    if spec.search_hint:
        meta["anthropic/searchHint"] = spec.search_hint
    if spec.max_result_size_chars is not None and spec.max_result_size_chars != _DEFAULT_MCP_RESULT_CHARS:
        meta["anthropic/maxResultSizeChars"] = spec.max_result_size_chars
    return meta


def write_server_config(
    path: Path, specs: Sequence[ToolSpec], *, server_name: str = DEFAULT_SERVER_NAME
) -> Path:
    """Write ``specs`` to ``tools.json`` beside ``path`` and a Claude Code ``--mcp-config`` file at ``path``.

    The config runs this module with the current interpreter over stdio. Calls are logged to
    ``calls.jsonl`` in the same folder. Returns ``path``.
    """
    if not server_name or any(c in server_name for c in "\0\n"):
        raise ValueError(f"invalid MCP server name: {server_name!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tools_file = path.parent / _TOOLS_FILE_NAME
    tools_file.write_text(tool_specs_to_json(specs), encoding="utf-8")
    from pytest_toolharness.processes import python_module_command

    # Through the fork server when it runs: the server is a process of its own per harness run,
    # without importing mcp and the plugin each time.
    command = python_module_command(_MODULE, ["--tools", str(tools_file.resolve())], _PRELOAD)
    # The harness starts it with an environment of its choosing (the mcp client's: PATH, HOME, ...):
    # PYTHONPATH keeps it on this process's copy of the plugin, and the fork server's.
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    config = {
        "mcpServers": {server_name: {"type": "stdio", "command": command[0], "args": command[1:], "env": env}}
    }
    path.write_text(json.dumps(config, sort_keys=True, indent=1), encoding="utf-8")
    return path


# --- the call log ----------------------------------------------------------------------------


# One line of calls.jsonl: event (start/end, or unknown), call, pid, tool, arguments,
# time (epoch seconds) and, on end, outcome (ok/error/cancelled).
McpCallEvent: TypeAlias = dict[str, Any]


class _CallLog:
    """Appends one JSON line per event; whole lines in O_APPEND mode, so readers never see halves."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)

    def next_call(self) -> int:
        return next(self._numbers)

    def write(self, event: Mapping[str, Any]) -> None:
        line = (json.dumps(dict(event), sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def read_call_log(folder_or_file: Path) -> list[McpCallEvent]:
    """The events logged so far (``calls.jsonl`` in a folder, or the file itself); none when absent."""
    return _read_jsonl(folder_or_file / CALLS_LOG_NAME if folder_or_file.is_dir() else folder_or_file)


def read_served(folder: Path) -> dict[str, str]:
    """The tools the server listed to a client, name → description (none when it never listed any)."""
    served: dict[str, str] = {}
    for event in _read_jsonl(folder / SERVED_LOG_NAME):
        for tool in event.get("tools", []):
            served[str(tool["name"])] = str(tool.get("description") or "")
    return served


# --- the server ------------------------------------------------------------------------------


async def _run_behavior(spec: ToolSpec) -> Any:
    """Run the scripted behaviour; returns a CallToolResult."""
    import anyio
    import mcp_types as types

    behavior = spec.behavior
    text = behavior.output_text()
    if behavior.kind == "text":
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if behavior.kind == "empty":
        return types.CallToolResult(content=[])
    if behavior.kind == "image":
        return types.CallToolResult(
            content=[
                types.ImageContent(type="image", data=_ONE_PIXEL_PNG, mime_type="image/png"),
                types.TextContent(type="text", text=text),
            ]
        )
    if behavior.kind == "json":
        encoded = json.dumps(behavior.value, sort_keys=True, ensure_ascii=False)
        structured = behavior.value if isinstance(behavior.value, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=encoded)], structured_content=structured
        )
    if behavior.kind in ("raise", "error_result"):
        # Over MCP both are the same result: the server reports the failure with isError.
        blocks = (
            behavior.value if behavior.kind == "error_result" and isinstance(behavior.value, list) else None
        )
        texts = [behavior.message] if blocks is None else [str(b.get("text", "")) for b in blocks]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=t) for t in texts], is_error=True
        )
    if behavior.kind == "sleep":
        await anyio.sleep(behavior.seconds)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    # hang / wait_abort: an MCP server has no abort signal but cancellation; wait for it.
    await anyio.sleep_forever()
    raise AssertionError("unreachable")  # pragma: no cover


def build_server(specs: Sequence[ToolSpec], log: _CallLog, served_log: _CallLog | None = None) -> Any:
    """The low-level ``mcp`` Server listing ``specs`` and running their behaviours.

    Each listing is written to ``served_log`` (when given) before it is answered.
    """
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    by_name = {listed_name(spec): spec for spec in specs}

    def listed(spec: ToolSpec) -> types.Tool:
        meta = {} if spec.declares_nothing else mcp_tool_meta(spec)
        read_only = (spec.read_only or spec.concurrency_safe) and not spec.declares_nothing
        annotations = (
            types.ToolAnnotations.model_validate(dict(spec.mcp_annotations))
            if spec.mcp_annotations is not None
            # Claude Code (and the reference harness) treat readOnlyHint as "concurrency safe".
            else types.ToolAnnotations(read_only_hint=True)
            if read_only
            else None
        )
        return types.Tool(
            name=listed_name(spec),
            description=spec.description,
            input_schema=dict(spec.input_schema),
            annotations=annotations,
            _meta=meta or None,
        )

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        tools = [listed(spec) for spec in specs]
        if served_log is not None:
            served = [{"name": t.name, "description": t.description} for t in tools]
            served_log.write({"event": "list", "pid": os.getpid(), "tools": served, "time": time.time()})
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = by_name.get(params.name)
        arguments = dict(params.arguments or {})
        if spec is None:
            # Fail closed and visibly: an unknown name is an error result, and it is logged too.
            log.write({"event": "unknown", "tool": params.name, "arguments": arguments, "time": time.time()})
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"unknown tool: {params.name}")], is_error=True
            )
        number = log.next_call()
        base = {"call": number, "pid": os.getpid(), "tool": params.name, "arguments": arguments}
        log.write({**base, "event": "start", "time": time.time()})
        outcome = "cancelled"
        try:
            result = await _run_behavior(spec)
            outcome = "error" if result.is_error else "ok"
            return result  # type: ignore[no-any-return]
        except anyio.get_cancelled_exc_class():
            raise
        finally:
            log.write({**base, "event": "end", "outcome": outcome, "time": time.time()})

    return Server("toolharness-suite", version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve(tools_file: Path) -> None:
    """Serve the specs in ``tools_file`` over stdio until the client goes away."""
    from mcp.server.stdio import stdio_server

    specs = tool_specs_from_json(tools_file.read_text(encoding="utf-8"))
    folder = tools_file.parent
    server = build_server(specs, _CallLog(folder / CALLS_LOG_NAME), _CallLog(folder / SERVED_LOG_NAME))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--tools FILE``."""
    import anyio

    parser = argparse.ArgumentParser(prog="python -m pytest_toolharness.wire.scenarios._mcp_tool_server")
    parser.add_argument(
        "--tools", required=True, type=Path, help="tool specs JSON (from write_server_config)"
    )
    args = parser.parse_args(argv)
    tools_file: Path = args.tools
    if not tools_file.is_file():
        parser.error(f"--tools: no such file: {tools_file}")
    try:
        tool_specs_from_json(tools_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        parser.error(f"--tools {tools_file}: {exc}")
    anyio.run(serve, tools_file)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
