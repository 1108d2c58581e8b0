"""The suite's MCP tool server, driven by the real ``mcp`` client over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from pytest_toolharness.processes import _launch
from pytest_toolharness.processes._launch import fork_server_running
from pytest_toolharness.specs import ToolBehavior, ToolSpec
from pytest_toolharness.wire.scenarios._mcp_tool_server import (
    read_call_log,
    tool_specs_from_json,
    tool_specs_to_json,
    write_server_config,
)

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

SPECS = [
    ToolSpec(
        name="mcp__suite__big",
        mcp_server="suite",
        mcp_tool="big",
        description="Big output.",
        input_schema=SCHEMA,
        search_hint="large text",
        behavior=ToolBehavior("text", chars=60_000, fill="ab"),
    ),
    ToolSpec(name="nothing", description="Empty.", always_load=True, behavior=ToolBehavior("empty")),
    ToolSpec(name="boom", behavior=ToolBehavior("raise", message="scripted boom")),
    ToolSpec(name="nap", read_only=True, behavior=ToolBehavior("sleep", seconds=0.2, text="rested")),
    ToolSpec(name="pic", behavior=ToolBehavior("image", text="a pixel")),
    ToolSpec(name="data", max_result_size_chars=1000, behavior=ToolBehavior("json", value={"a": [1, 2]})),
]


def _params(config_path: Path) -> StdioServerParameters:
    config = json.loads(config_path.read_text())
    server = config["mcpServers"]["suite"]
    assert server["type"] == "stdio"
    return StdioServerParameters(command=server["command"], args=server["args"], env=server["env"] or None)


async def _session(config_path: Path, work: Any) -> Any:
    async with stdio_client(_params(config_path)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await work(session)


def test_config_runs_this_interpreter_and_module(tmp_path: Path) -> None:
    """``python -m`` the server module, through this process's fork server when it runs."""
    path = write_server_config(tmp_path / "mcp.json", SPECS)
    server = json.loads(path.read_text())["mcpServers"]["suite"]
    assert server["command"] == sys.executable
    args = server["args"]
    module = args.index("pytest_toolharness.wire.scenarios._mcp_tool_server")
    assert args[module + 1] == "--tools"
    assert tool_specs_from_json(Path(args[module + 2]).read_text()) == SPECS
    if fork_server_running():
        assert args[:5] == [
            "-I",
            "-S",
            str(Path(_launch.__file__).with_name("_forkserver.py")),
            "run",
            args[4],
        ]
    else:
        assert args[:module] == ["-m"]


def test_config_without_the_fork_server_is_plain_python_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_launch.FORK_SERVER_ENV, "0")
    path = write_server_config(tmp_path / "mcp.json", SPECS)
    server = json.loads(path.read_text())["mcpServers"]["suite"]
    assert server["command"] == sys.executable
    assert server["args"][:3] == ["-m", "pytest_toolharness.wire.scenarios._mcp_tool_server", "--tools"]


def test_lists_specs_with_schema_and_meta(tmp_path: Path) -> None:
    path = write_server_config(tmp_path / "mcp.json", SPECS)

    async def work(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {t.name: t for t in asyncio.run(_session(path, work))}
    assert list(tools) == ["big", "nothing", "boom", "nap", "pic", "data"]
    assert tools["big"].input_schema == SCHEMA
    assert tools["big"].description == "Big output."
    assert tools["big"].meta == {"anthropic/searchHint": "large text"}
    assert tools["nothing"].meta == {"anthropic/alwaysLoad": True}
    assert tools["data"].meta == {"anthropic/maxResultSizeChars": 1000}
    assert tools["boom"].meta is None
    assert tools["nap"].annotations is not None
    assert tools["nap"].annotations.read_only_hint is True
    assert tools["boom"].annotations is None


def test_calls_run_behaviours_and_are_logged(tmp_path: Path) -> None:
    path = write_server_config(tmp_path / "mcp.json", SPECS)

    async def work(session: ClientSession) -> dict[str, Any]:
        out = {}
        for name, args in [
            ("big", {"q": "x"}),
            ("nothing", {}),
            ("boom", {}),
            ("nap", {}),
            ("pic", {}),
            ("data", {}),
        ]:
            out[name] = await session.call_tool(name, args)
        out["missing"] = await session.call_tool("missing", {})
        return out

    results = asyncio.run(_session(path, work))
    big = results["big"]
    assert not big.is_error
    assert len(big.content) == 1
    assert big.content[0].text == ("ab" * 30_000)[:60_000]
    assert results["nothing"].content == []
    assert not results["nothing"].is_error
    assert results["boom"].is_error is True
    assert results["boom"].content[0].text == "scripted boom"
    assert results["nap"].content[0].text == "rested"
    assert [c.type for c in results["pic"].content] == ["image", "text"]
    assert results["pic"].content[0].mime_type == "image/png"
    assert json.loads(results["data"].content[0].text) == {"a": [1, 2]}
    assert results["missing"].is_error is True

    log = read_call_log(tmp_path)
    starts = [e for e in log if e["event"] == "start"]
    ends = [e for e in log if e["event"] == "end"]
    assert [e["tool"] for e in starts] == ["big", "nothing", "boom", "nap", "pic", "data"]
    assert starts[0]["arguments"] == {"q": "x"}
    assert {e["call"]: e["outcome"] for e in ends}[3] == "error"
    nap_start = next(e for e in starts if e["tool"] == "nap")
    nap_end = next(e for e in ends if e["tool"] == "nap")
    assert nap_end["time"] >= nap_start["time"]
    assert [e["tool"] for e in log if e["event"] == "unknown"] == ["missing"]


def test_concurrent_calls_overlap_in_the_log(tmp_path: Path) -> None:
    """Two sleeping calls sent together both start before either ends (the server runs calls concurrently)."""
    gate_spec = [ToolSpec(name="nap", behavior=ToolBehavior("sleep", seconds=0.5))]
    path = write_server_config(tmp_path / "mcp.json", gate_spec)

    async def work(session: ClientSession) -> None:
        await asyncio.gather(session.call_tool("nap", {"i": 1}), session.call_tool("nap", {"i": 2}))

    asyncio.run(_session(path, work))
    kinds = [e["event"] for e in read_call_log(tmp_path)]
    assert kinds == ["start", "start", "end", "end"]


def test_bad_tools_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fields: colour"):
        tool_specs_from_json(json.dumps({"version": 1, "tools": [{"name": "a", "colour": "red"}]}))
    with pytest.raises(ValueError, match="same MCP tool twice: a"):
        tool_specs_from_json(tool_specs_to_json([ToolSpec(name="a"), ToolSpec(name="x", mcp_tool="a")]))
    with pytest.raises(ValueError, match="gate"):
        tool_specs_to_json([ToolSpec(name="a", behavior=ToolBehavior(gate=asyncio.Event()))])


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
_behaviors = st.builds(
    ToolBehavior,
    kind=st.sampled_from(["text", "empty", "image", "json", "raise", "sleep"]),
    text=st.none() | st.text(max_size=20),
    chars=st.integers(0, 100),
    seconds=st.floats(0, 1),
    value=st.none() | st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.builds(ToolSpec, name=_names, search_hint=st.none() | _names, behavior=_behaviors), max_size=4
    )
)
def test_specs_round_trip_through_json(specs: list[ToolSpec]) -> None:
    """Serializing specs for the server and reading them back gives equal specs, deterministically."""
    unique = list({s.name: s for s in specs}.values())
    text = tool_specs_to_json(unique)
    assert tool_specs_from_json(text) == unique
    assert tool_specs_to_json(tool_specs_from_json(text)) == text
