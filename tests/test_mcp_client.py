"""The reference harness as an MCP client, against the suite's own MCP tool server over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.specs import ToolBehavior, ToolSpec
from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import AssistantTurn, ToolUseIds
from pytest_toolharness.wire.scenarios._mcp_tool_server import read_call_log, write_server_config
from reference_impl import McpConfigError, ToolContext, ToolOutput, connect_mcp_servers, load_mcp_config
from reference_impl.agent import McpServerConfig

SPECS = [
    ToolSpec(
        name="mcp__suite__echo",
        mcp_server="suite",
        mcp_tool="echo",
        description="Says hi.",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        search_hint="greeting",
        read_only=True,
        behavior=ToolBehavior("text", text="hi"),
    ),
    ToolSpec(
        name="mcp__suite__boom",
        mcp_server="suite",
        mcp_tool="boom",
        behavior=ToolBehavior("raise", message="bad"),
    ),
    ToolSpec(
        name="mcp__suite__none",
        mcp_server="suite",
        mcp_tool="none",
        always_load=True,
        behavior=ToolBehavior("empty"),
    ),
    ToolSpec(
        name="mcp__suite__pic",
        mcp_server="suite",
        mcp_tool="pic",
        max_result_size_chars=123,
        behavior=ToolBehavior("image"),
    ),
]


def _context() -> ToolContext:
    return ToolContext(tool_use_id="toolu_1", abort=asyncio.Event(), cwd=Path.cwd())


def test_tools_are_wrapped_with_meta_and_called(tmp_path: Path) -> None:
    config = write_server_config(tmp_path / "mcp.json", SPECS)

    async def run() -> tuple[dict[str, Any], dict[str, ToolOutput | str]]:
        async with connect_mcp_servers(load_mcp_config(config)) as tools:
            by_name = {tool.name: tool for tool in tools}
            outputs = {name: await tool.call({"q": "x"}, _context()) for name, tool in by_name.items()}
            return by_name, outputs

    tools, outputs = asyncio.run(run())
    assert list(tools) == ["mcp__suite__echo", "mcp__suite__boom", "mcp__suite__none", "mcp__suite__pic"]
    echo = tools["mcp__suite__echo"]
    assert echo.search_hint == "greeting"
    assert echo.description == "Says hi."
    assert echo.is_concurrency_safe({})
    assert not tools["mcp__suite__boom"].is_concurrency_safe({})
    assert echo.input_json_schema == SPECS[0].input_schema
    assert tools["mcp__suite__none"].always_load
    assert not echo.always_load
    assert tools["mcp__suite__pic"].max_result_size_chars == 123

    assert outputs["mcp__suite__echo"] == ToolOutput(content=[{"type": "text", "text": "hi"}])
    assert outputs["mcp__suite__boom"] == ToolOutput(content="bad", is_error=True)
    assert outputs["mcp__suite__none"] == ToolOutput(content=[])
    pic = outputs["mcp__suite__pic"]
    assert isinstance(pic, ToolOutput)
    assert [b["type"] for b in pic.content] == ["image", "text"]  # type: ignore[index]
    assert [e["tool"] for e in read_call_log(tmp_path) if e["event"] == "start"] == [
        "echo",
        "boom",
        "none",
        "pic",
    ]
    assert read_call_log(tmp_path)[0]["arguments"] == {"q": "x"}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, "can't be read as JSON"),  # no such file
        ("not json", "can't be read as JSON"),
        ('{"servers": {}}', '"mcpServers"'),
        ('{"mcpServers": {"a": {"type": "http", "url": "http://x"}}}', "type 'http' is not supported"),
        # Another transport with a command beside it is still refused, whichever way its name sorts.
        ('{"mcpServers": {"a": {"type": "http", "command": "x"}}}', "type 'http' is not supported"),
        ('{"mcpServers": {"a": {"type": "ws", "command": "x"}}}', "type 'ws' is not supported"),
        ('{"mcpServers": {"a": {"command": ""}}}', "mcpServers.a: command must be a non-empty string"),
        ('{"mcpServers": {"a": {"command": 5}}}', "mcpServers.a: command must be a non-empty string"),
        ('{"mcpServers": {"a": {"command": "x", "args": [1]}}}', "args must be a list of strings"),
        ('{"mcpServers": {"a": {"command": "x", "args": "y"}}}', "args must be a list of strings"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}', "env must map strings to strings"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K": "v", "N": 1}}}}', "env must map strings"),
        ('{"mcpServers": {"a": {"command": "x", "env": ["K=v"]}}}', "env must map strings to strings"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path: Path, config: str | None, message: str) -> None:
    path = tmp_path / "mcp.json"
    if config is not None:
        path.write_text(config)
    with pytest.raises(McpConfigError, match=message.replace("(", r"\(")) as raised:
        load_mcp_config(path)
    assert str(path) in str(raised.value)


def test_config_defaults_load(tmp_path: Path) -> None:
    """A server with only a command is a stdio server with no arguments and no extra environment."""
    path = tmp_path / "mcp.json"
    path.write_text(
        '{"mcpServers": {"b": {"command": "x"}, "a": {"type": "stdio", "command": "y", "env": {}}}}'
    )
    assert load_mcp_config(path) == [
        McpServerConfig(name="b", command="x"),
        McpServerConfig(name="a", command="y"),
    ]


def test_server_that_fails_to_start_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"broken": {"command": sys.executable, "args": ["-c", "pass"]}}})
    )

    async def run() -> None:
        async with connect_mcp_servers(load_mcp_config(path)):
            pass

    with pytest.raises(McpConfigError, match="'broken' failed to start"):
        asyncio.run(run())


def test_config_env_reaches_the_server(tmp_path: Path) -> None:
    """The config's ``env`` is in the server's environment: this server starts only when it is."""
    config = write_server_config(tmp_path / "mcp.json", SPECS[:1])
    data = json.loads(config.read_text())
    server = data["mcpServers"]["suite"]
    data["mcpServers"]["suite"] = {
        "command": "sh",
        "args": [
            "-c",
            'test "$TOOLHARNESS_ENV_CHECK" = passed && exec "$@"',
            "sh",
            server["command"],
            *server["args"],
        ],
        "env": {**server["env"], "TOOLHARNESS_ENV_CHECK": "passed"},
    }
    config.write_text(json.dumps(data))

    async def run() -> list[str]:
        async with connect_mcp_servers(load_mcp_config(config)) as tools:
            return [tool.name for tool in tools]

    assert asyncio.run(run()) == ["mcp__suite__echo"]


def test_structured_result_keeps_its_text(tmp_path: Path) -> None:
    """An MCP result with structuredContent is sent as the text items the server sent beside it."""
    value = {"city": "Zürich", "temperature": 21}
    spec = ToolSpec(
        name="mcp__suite__data",
        mcp_server="suite",
        mcp_tool="data",
        behavior=ToolBehavior("json", value=value),
    )
    config = write_server_config(tmp_path / "mcp.json", [spec])

    async def run() -> ToolOutput | str:
        async with connect_mcp_servers(load_mcp_config(config)) as tools:
            return await tools[0].call({}, _context())

    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    assert asyncio.run(run()) == ToolOutput(content=[{"type": "text", "text": text}])


class _StderrWithoutDescriptor:
    """A stderr replacement with no ``fileno`` at all (not even one that raises)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def test_servers_start_when_stderr_has_no_descriptor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers' stderr goes to the real one when ours is an object without a file descriptor."""
    config = write_server_config(tmp_path / "mcp.json", SPECS[:1])
    monkeypatch.setattr(sys, "stderr", _StderrWithoutDescriptor())

    async def run() -> list[str]:
        async with connect_mcp_servers(load_mcp_config(config)) as tools:
            return [tool.name for tool in tools]

    assert asyncio.run(run()) == ["mcp__suite__echo"]


def test_errors_inside_the_connection_come_out_unwrapped(tmp_path: Path) -> None:
    """The mcp client's task groups must not turn the loop's own error into an ExceptionGroup."""
    config = write_server_config(tmp_path / "mcp.json", SPECS[:1])

    async def run() -> None:
        async with connect_mcp_servers(load_mcp_config(config)):
            raise KeyError("from the loop")

    with pytest.raises(KeyError, match="from the loop"):
        asyncio.run(run())


def test_command_runs_mcp_tools_from_config(tmp_path: Path) -> None:
    """``python -m reference_impl --mcp-config`` lists the server's tools and runs a call through it."""
    config = write_server_config(tmp_path / "mcp" / "mcp.json", SPECS)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["mcp__suite"]}}))
    ids = ToolUseIds()
    turns = [
        AssistantTurn([ids.block("ToolSearch", {"query": "select:mcp__suite__echo"})]),
        AssistantTurn([ids.block("mcp__suite__echo", {"q": "x"}), ids.block("mcp__suite__boom", {})]),
        AssistantTurn.text("finished"),
    ]
    with ScriptedApiServer(turns) as server:
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "x",
            "HOME": str(tmp_path),
        }
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "reference_impl",
                "-p",
                "go",
                "--output-format",
                "json",
                "--settings",
                str(settings),
                "--mcp-config",
                str(config),
                "--session-dir",
                str(tmp_path / "s"),
            ],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        requests = server.message_requests
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "finished"
    first = requests[0]
    # MCP tools are deferred: sent with defer_loading, except the alwaysLoad one.
    loading = {t["name"]: t.get("defer_loading", False) for t in first.tools}
    assert loading["mcp__suite__none"] is False
    assert loading["mcp__suite__echo"] is True
    results = {b["tool_use_id"]: b for b in requests[2].messages[-1]["content"] if b["type"] == "tool_result"}
    echo_id, boom_id = (b.id for b in turns[1].tool_uses)
    assert results[echo_id]["content"] == [{"type": "text", "text": "hi"}]
    assert results[boom_id].get("is_error") is True
    assert "bad" in json.dumps(results[boom_id]["content"])
    assert [e["tool"] for e in read_call_log(tmp_path / "mcp") if e["event"] == "start"] == ["echo", "boom"]


def test_bad_config_fails_before_any_request(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"a": {"type": "sse", "url": "http://127.0.0.1:1"}}}')
    with ScriptedApiServer([]) as server:
        env = {**os.environ, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "x"}
        done = subprocess.run(
            [sys.executable, "-m", "reference_impl", "-p", "go", "--mcp-config", str(config)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert server.requests == []
    assert done.returncode == 2
    assert "type 'sse' is not supported" in done.stderr
