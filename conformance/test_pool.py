"""Pool assembly: CACHE-2 (built-in prefix, MCP suffix, built-ins win) and PERM-10 (whole-tool deny)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_pool import (
    builtin_names,
    builtin_spec,
    encode,
    mcp_spec,
    mcp_tool_parts,
    server_names,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec, ToolSpec

builtin = builtin_spec
mcp = mcp_spec

builtins_lists = st.lists(builtin_names(), unique=True, max_size=6)
mcp_lists = st.lists(st.tuples(server_names(), mcp_tool_parts()), unique=True, max_size=6)


def _is_sorted_by_name(names: list[str]) -> bool:
    # "Sorted by name": plain code-point order or case-insensitive order (Claude Code's
    # localeCompare); either is a total order that does not depend on the input order.
    return names == sorted(names) or names == sorted(names, key=lambda n: (n.casefold(), n))


def _mcp_part(names: list[str]) -> list[str]:
    return [n for n in names if n.startswith("mcp__")]


def _builtin_part(names: list[str]) -> list[str]:
    return [n for n in names if not n.startswith("mcp__")]


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(builtins=builtins_lists, servers_tools=mcp_lists)
def test_builtin_prefix_then_mcp(
    new_harness: Callable[[], Any], builtins: list[str], servers_tools: list[tuple[str, str]]
) -> None:
    """CACHE-2: built-in tools sorted by name form a contiguous prefix; MCP tools sorted by name follow."""
    harness = new_harness()
    names_out = harness.assemble_pool([builtin(n) for n in builtins], [mcp(s, t) for s, t in servers_tools])
    is_mcp = [n.startswith("mcp__") for n in names_out]
    assert is_mcp == sorted(is_mcp), f"MCP tools are mixed into the built-in prefix: {names_out}"
    assert len(set(names_out)) == len(names_out), f"duplicate names in the pool: {names_out}"
    assert _is_sorted_by_name(_builtin_part(names_out)), f"built-in prefix not sorted by name: {names_out}"
    assert _is_sorted_by_name(_mcp_part(names_out)), f"MCP tools not sorted by name: {names_out}"
    for name in builtins + [f"mcp__{s}__{t}" for s, t in servers_tools]:
        assert name in names_out, f"tool {name!r} is missing from the pool {names_out}"


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(data=st.data(), builtins=builtins_lists, servers_tools=mcp_lists)
def test_pool_order_ignores_input_order(
    new_harness: Callable[[], Any],
    data: st.DataObject,
    builtins: list[str],
    servers_tools: list[tuple[str, str]],
) -> None:
    """CACHE-2: the pool's order is a function of the tools, not of the order they were given in."""
    specs_b = [builtin(n) for n in builtins]
    specs_m = [mcp(s, t) for s, t in servers_tools]
    first = new_harness().assemble_pool(specs_b, specs_m)
    shuffled_b = data.draw(st.permutations(specs_b), label="built-ins reordered")
    shuffled_m = data.draw(st.permutations(specs_m), label="MCP tools reordered")
    second = new_harness().assemble_pool(shuffled_b, shuffled_m)
    assert first == second, f"reordering the input changed the pool: {first} then {second}"


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(builtins=builtins_lists, before=mcp_lists, after=mcp_lists)
def test_mcp_changes_never_move_builtins(
    new_harness: Callable[[], Any],
    builtins: list[str],
    before: list[tuple[str, str]],
    after: list[tuple[str, str]],
) -> None:
    """CACHE-2: connecting or dropping MCP tools leaves the built-in prefix (names and positions) as it was."""
    harness = new_harness()
    specs_b = [builtin(n) for n in builtins]
    one = harness.assemble_pool(specs_b, [mcp(s, t) for s, t in before])
    two = harness.assemble_pool(specs_b, [mcp(s, t) for s, t in after])
    prefix_one = one[: len(_builtin_part(one))]
    prefix_two = two[: len(_builtin_part(two))]
    assert prefix_one == prefix_two, (
        f"the built-in prefix changed when the MCP tools changed from {before} to {after}: "
        f"{prefix_one} became {prefix_two}"
    )


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(server=server_names(), tool=mcp_tool_parts(), others=builtins_lists)
def test_name_clash_keeps_one_tool(
    new_harness: Callable[[], Any], server: str, tool: str, others: list[str]
) -> None:
    """CACHE-2: a built-in and an MCP tool with the same name give one tool in the pool, in the built-in prefix."""
    clash = f"mcp__{server}__{tool}"
    builtins = [builtin(n) for n in others] + [builtin(clash)]
    names_out = new_harness().assemble_pool(builtins, [mcp(server, tool)])
    assert names_out.count(clash) == 1, f"{clash!r} appears {names_out.count(clash)} times in {names_out}"
    assert len(set(names_out)) == len(names_out), f"duplicate names in the pool: {names_out}"


# Characters outside [A-Za-z0-9_-]: Claude Code turns each into "_" in an MCP name, so servers spelled
# with different ones give their tools the same name.
_NORMALISED_AWAY = ("_", ".", " ", "/", "@", ":", "é")


@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    builtins=builtins_lists,
    servers_tools=mcp_lists,
    twins=st.lists(
        st.tuples(
            server_names(),
            mcp_tool_parts(),
            st.lists(st.sampled_from(_NORMALISED_AWAY), min_size=2, unique=True),
        ),
        max_size=2,
    ),
    data=st.data(),
)
def test_name_clashes_leave_one_tool_per_name_and_every_other_tool(
    new_harness: Callable[[], Any],
    builtins: list[str],
    servers_tools: list[tuple[str, str]],
    twins: list[tuple[str, str, list[str]]],
    data: st.DataObject,
) -> None:
    """CACHE-2: every clash leaves one tool of its name, and no other tool is lost.

    Clashes drawn several at once: built-ins named as MCP tools are, and MCP servers whose names
    differ only in characters an MCP name can't hold (``my.x``, ``my x``, ``my_x``: every one
    ``mcp__my_x__...``). The pool holds each distinct name exactly once, and every name of the input,
    whatever sorts after a clash.
    """
    mcp_tools = [mcp(s, t) for s, t in servers_tools]
    for server, tool, joiners in twins:
        mcp_tools += [mcp(f"{server}{joiner}x", tool) for joiner in joiners]
    taken = (
        data.draw(
            st.lists(st.sampled_from([t.name for t in mcp_tools]), unique=True),
            label="built-ins named as MCP tools",
        )
        if mcp_tools
        else []
    )
    built = [builtin(n) for n in builtins if n not in taken] + [builtin(n) for n in taken]
    names_out = new_harness().assemble_pool(built, mcp_tools)
    wanted = {t.name for t in built} | {t.name for t in mcp_tools}
    doubled = sorted({n for n in names_out if names_out.count(n) > 1})
    assert not doubled, f"{doubled} appear more than once in the pool {names_out}"
    missing = sorted(wanted - set(names_out))
    assert not missing, f"a clash cost other tools: {missing} are missing from the pool {names_out}"


@requires("schemas")
@pytest.mark.requirement("CACHE-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(server=server_names(), tool=mcp_tool_parts(), others=builtins_lists)
def test_name_clash_builtin_wins(
    new_harness: Callable[[], Any], server: str, tool: str, others: list[str]
) -> None:
    """CACHE-2: on a name clash the built-in's definition is the one sent, never the MCP tool's."""
    clash = f"mcp__{server}__{tool}"
    builtin_tool = builtin(clash, description="BUILT-IN definition.", input_schema={"type": "object"})
    mcp_tool = mcp(
        server,
        tool,
        description="MCP definition.",
        input_schema={"type": "object", "properties": {"mcp_only": {"type": "string"}}},
    )
    rendered = new_harness().render_tools([builtin(n) for n in others] + [builtin_tool], [mcp_tool])
    sent = [t for t in rendered if t.get("name") == clash]
    assert len(sent) == 1, f"{clash!r} sent {len(sent)} times: {[t.get('name') for t in rendered]}"
    assert sent[0].get("description") == "BUILT-IN definition.", (
        f"the MCP tool won the clash for {clash!r}: sent {encode(sent[0]).decode()}"
    )
    assert sent[0].get("input_schema") == {"type": "object"}, (
        f"{clash!r} is sent with the MCP tool's schema: {encode(sent[0]).decode()}"
    )


# -- PERM-10 ------------------------------------------------------------------------------------


@requires("pool", "permissions")
@pytest.mark.requirement("PERM-10", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    server=server_names(),
    tools=st.lists(mcp_tool_parts(), unique=True, min_size=1, max_size=4),
    form=st.sampled_from(["server", "wildcard"]),
)
def test_server_deny_removes_tools(
    new_harness: Callable[[], Any], server: str, tools: list[str], form: str
) -> None:
    """PERM-10: a server denied as a whole (``mcp__server`` or ``mcp__server__*``) loses all its tools."""
    harness = new_harness()
    rule = f"mcp__{server}" if form == "server" else f"mcp__{server}__*"
    other = mcp(f"{server}x", "kept")
    names_out = harness.assemble_pool(
        [builtin("Bash")], [mcp(server, t) for t in tools] + [other], deny_rules=[RuleSpec(rule, "deny")]
    )
    assert not [n for n in names_out if n.startswith(f"mcp__{server}__")], f"{rule} left {names_out}"
    assert "Bash" in names_out, f"{rule} removed the built-in Bash: {names_out}"
    assert other.name in names_out, f"{rule} removed {other.name!r} of another server: {names_out}"


@requires("pool", "permissions")
@pytest.mark.requirement("PERM-10", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=st.lists(builtin_names(), unique=True, min_size=1, max_size=5),
    servers_tools=mcp_lists,
    data=st.data(),
)
def test_whole_tool_deny_removes_exactly_that_tool(
    new_harness: Callable[[], Any],
    builtins: list[str],
    servers_tools: list[tuple[str, str]],
    data: st.DataObject,
) -> None:
    """PERM-10: a deny rule naming one tool (``ToolName`` or ``mcp__server__tool``) removes that tool only.

    The pool often holds the denied tool's case twin (its name in other letter cases: another server's
    tool, another built-in), which stays.
    """
    specs_b = [builtin(n) for n in builtins]
    specs_m = [mcp(s, t) for s, t in servers_tools]
    target: ToolSpec = data.draw(st.sampled_from(specs_b + specs_m), label="denied tool")
    if data.draw(st.booleans(), label="case twin"):
        twin = (
            mcp(str(target.mcp_server).upper(), str(target.mcp_tool))
            if target.is_mcp
            else builtin(target.name.swapcase())
        )
        if twin.name not in {s.name for s in specs_b + specs_m}:
            (specs_m if twin.is_mcp else specs_b).append(twin)
    names_out = new_harness().assemble_pool(specs_b, specs_m, deny_rules=[RuleSpec(target.name, "deny")])
    assert target.name not in names_out, f"deny rule {target.name!r} left the tool in the pool: {names_out}"
    for spec in specs_b + specs_m:
        if spec.name != target.name:
            assert spec.name in names_out, (
                f"deny rule {target.name!r} also removed {spec.name!r}: pool is {names_out}"
            )


@requires("pool", "permissions")
@pytest.mark.requirement("PERM-10", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=st.lists(builtin_names(), unique=True, min_size=1, max_size=5),
    servers_tools=mcp_lists,
    data=st.data(),
)
def test_only_whole_tool_denies_hide_tools(
    new_harness: Callable[[], Any],
    builtins: list[str],
    servers_tools: list[tuple[str, str]],
    data: st.DataObject,
) -> None:
    """PERM-10: content deny rules (``Tool(x)``) and whole-tool allow or ask rules never hide a tool."""
    specs_b = [builtin(n) for n in builtins]
    specs_m = [mcp(s, t) for s, t in servers_tools]
    target: ToolSpec = data.draw(st.sampled_from(specs_b + specs_m), label="ruled tool")
    choices = [RuleSpec(target.name, "allow"), RuleSpec(target.name, "ask")]
    if not target.is_mcp:
        # Content rules are a built-in tool's business; MCP tools take whole-tool rules only.
        # WebFetch's content has a syntax of its own (the name can be drawn from the vocabulary).
        content = "domain:example.com" if target.name == "WebFetch" else "some content"
        choices.append(RuleSpec(f"{target.name}({content})", "deny"))
    rule = data.draw(st.sampled_from(choices), label="rule")
    names_out = new_harness().assemble_pool(specs_b, specs_m, deny_rules=[rule])
    for spec in specs_b + specs_m:
        assert spec.name in names_out, (
            f"{rule.behavior} rule {rule.text!r} hid {spec.name!r}, but it does not deny the tool as a "
            f"whole: pool is {names_out}"
        )
