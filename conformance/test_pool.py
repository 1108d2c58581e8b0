"""Pool assembly and classification: CACHE-2, PERM-10, DEFER-1, CONC-3."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_toolharness._capabilities import requires
from pytest_toolharness._specs import RuleSpec, ToolSpec


def builtin(name: str, **flags: Any) -> ToolSpec:
    return ToolSpec(name=name, description=f"The {name} tool.", **flags)


def mcp(server: str, tool: str, **flags: Any) -> ToolSpec:
    return ToolSpec(
        name=f"mcp__{server}__{tool}",
        mcp_server=server,
        mcp_tool=tool,
        description=f"{tool} on {server}",
        **flags,
    )


names = st.from_regex(r"[A-Z][a-z]{1,6}[A-Z][a-z]{1,5}", fullmatch=True)
servers = st.from_regex(r"[a-z]{2,6}", fullmatch=True)


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@given(
    builtins=st.lists(names, unique=True, max_size=6),
    servers_tools=st.lists(st.tuples(servers, servers), unique=True, max_size=6),
)
def test_builtin_prefix_then_mcp(
    new_harness: Callable[[], Any], builtins: list[str], servers_tools: list[tuple[str, str]]
) -> None:
    """CACHE-2: built-in tools sorted by name form a contiguous prefix; MCP tools sorted by name follow."""
    harness = new_harness()
    names_out = harness.assemble_pool([builtin(n) for n in builtins], [mcp(s, t) for s, t in servers_tools])
    is_mcp = [n.startswith("mcp__") for n in names_out]
    assert is_mcp == sorted(is_mcp), f"MCP tools are mixed into the built-in prefix: {names_out}"
    assert len(set(names_out)) == len(names_out), f"duplicate names in the pool: {names_out}"


@requires("pool")
@pytest.mark.requirement("PERM-10", "MUST")
@given(
    server=servers,
    tools=st.lists(servers, unique=True, min_size=1, max_size=4),
    form=st.sampled_from(["server", "wildcard"]),
)
def test_server_deny_removes_tools(
    new_harness: Callable[[], Any], server: str, tools: list[str], form: str
) -> None:
    """PERM-10: a tool denied as a whole (``mcp__server`` or ``mcp__server__*``) is removed from the pool."""
    harness = new_harness()
    rule = f"mcp__{server}" if form == "server" else f"mcp__{server}__*"
    names_out = harness.assemble_pool(
        [builtin("Bash")], [mcp(server, t) for t in tools], deny_rules=[RuleSpec(rule, "deny")]
    )
    assert not [n for n in names_out if n.startswith(f"mcp__{server}__")], f"{rule} left {names_out}"
    assert "Bash" in names_out
