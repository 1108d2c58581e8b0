from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference_impl import ToolContext, ToolOutput, assemble_tool_pool, build_tool, mcp_tool
from reference_impl.tools import find_tool_by_name, mcp_tool_name, normalize_name_for_mcp, parse_mcp_name


async def noop(_input: object, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="")


def builtin(name: str, **options: object):
    return build_tool(name, f"{name} tool", noop, input_json_schema={"type": "object"}, **options)


def mcp(server: str, name: str):
    return mcp_tool(server, name, f"{name} on {server}", {"type": "object"}, noop)


def test_mcp_name_normalisation() -> None:
    assert normalize_name_for_mcp("a.b c/d-e_f") == "a_b_c_d-e_f"
    assert mcp_tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert mcp_tool_name("my.server", "do it") == "mcp__my_server__do_it"


def test_parse_mcp_name() -> None:
    assert parse_mcp_name("Bash") is None
    assert parse_mcp_name("mcp__") is None
    parsed = parse_mcp_name("mcp__slack__send__message")
    assert parsed is not None
    assert (parsed.server, parsed.tool) == ("slack", "send__message")
    server_only = parse_mcp_name("mcp__slack")
    assert server_only is not None
    assert (server_only.server, server_only.tool) == ("slack", None)


names = st.text(alphabet="abcdefghXYZ_", min_size=1, max_size=8)


@given(st.lists(names, unique=True), st.lists(st.tuples(names, names), unique=True))
def test_pool_order_builtin_prefix_then_mcp(
    builtin_names: list[str], mcp_pairs: list[tuple[str, str]]
) -> None:
    """CACHE-2: built-ins sorted by name form a contiguous prefix, MCP tools sorted by name follow."""
    pool = assemble_tool_pool([builtin(n) for n in builtin_names], [mcp(s, t) for s, t in mcp_pairs])
    kinds = [t.is_mcp for t in pool]
    assert kinds == sorted(kinds)  # all False (built-in) before all True (MCP)
    built = [t.name for t in pool if not t.is_mcp]
    assert built == sorted(built, key=lambda n: (n.casefold(), n))
    assert len({t.name for t in pool}) == len(pool)


@given(
    st.lists(names, unique=True, min_size=1),
    st.lists(st.tuples(names, names)),
    st.lists(st.tuples(names, names)),
)
def test_adding_mcp_tools_never_moves_builtins(
    builtin_names: list[str], before: list[tuple[str, str]], extra: list[tuple[str, str]]
) -> None:
    """CACHE-2: adding or removing MCP tools never changes the built-in prefix."""
    builtins = [builtin(n) for n in builtin_names]
    small = assemble_tool_pool(builtins, [mcp(s, t) for s, t in before])
    large = assemble_tool_pool(builtins, [mcp(s, t) for s, t in before + extra])
    assert [t for t in small if not t.is_mcp] == [t for t in large if not t.is_mcp]
    assert [t.name for t in large[: len(builtins)]] == [t.name for t in small[: len(builtins)]]


def test_builtin_wins_name_clash() -> None:
    """CACHE-2: on a name clash the built-in tool wins."""
    clash = builtin("mcp__s__t")
    pool = assemble_tool_pool([clash], [mcp("s", "t")])
    assert pool == (clash,)


def test_denied_tools_removed() -> None:
    pool = assemble_tool_pool(
        [builtin("Bash"), builtin("Read")],
        [mcp("s", "t")],
        is_denied=lambda t: t.name in {"Bash", "mcp__s__t"},
    )
    assert [t.name for t in pool] == ["Read"]


def test_find_tool_by_name_with_alias() -> None:
    """EXEC-3: a deprecated alias resolves to the current tool."""
    task = builtin("Agent", aliases=("Task",))
    pool = assemble_tool_pool([task, builtin("Bash")])
    assert find_tool_by_name(pool, "Task") is task
    assert find_tool_by_name(pool, "Task", use_aliases=False) is None
    assert find_tool_by_name(pool, "Nope") is None
