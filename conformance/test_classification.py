"""Classification: DEFER-1 (which tools are deferred) and CONC-3 (conservative defaults)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_pool import builtin_names, builtin_spec, mcp_spec, mcp_tool_parts, server_names
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import (
    CallRecorder,
    ExecutionScenario,
    HostAnswer,
    HostSpec,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
)


def expected_deferred(spec: ToolSpec) -> bool:
    """DEFER-1's precedence, for the names this suite generates.

    No critical-channel names: which tools are critical channels depends on the harness's modes
    (Claude Code's Brief only in KAIROS mode, SendUserFile only with the REPL bridge).
    """
    if spec.always_load:
        return False
    if spec.is_mcp:
        return True
    if spec.name == "ToolSearch":
        return False
    return spec.should_defer


def _made_at_run_time(name: str) -> str:
    # A name built at run time is equal to the literal, but not the same object (a harness that
    # compares names by identity would miss it, as it would a name read from a file).
    return "".join(list(name))


def _why(spec: ToolSpec) -> str:
    kind = "MCP tool" if spec.is_mcp else "built-in tool"
    return f"{kind} {spec.name!r} (always_load={spec.always_load}, should_defer={spec.should_defer})"


flagged_specs = st.one_of(
    st.builds(
        lambda name, defer, load: builtin_spec(name, should_defer=defer, always_load=load),
        st.one_of(
            builtin_names(),
            st.just("ToolSearch").map(_made_at_run_time),
        ),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(
        lambda server, tool, defer, load: mcp_spec(server, tool, should_defer=defer, always_load=load),
        server_names(),
        mcp_tool_parts(),
        st.booleans(),
        st.booleans(),
    ),
)


@requires("classification")
@pytest.mark.requirement("DEFER-1", "MUST")
@settings(max_examples=60, deadline=None)
@given(spec=flagged_specs)
def test_deferral_precedence(new_harness: Callable[[], Any], spec: ToolSpec) -> None:
    """DEFER-1: always_load is never deferred (MCP too); MCP tools are; ToolSearch never; else should_defer."""
    got = new_harness().is_deferred(spec)
    want = expected_deferred(spec)
    assert got is want, f"{_why(spec)}: expected deferred={want}, the harness says {got}"


@requires("classification")
@pytest.mark.requirement("DEFER-1", "MUST")
@settings(max_examples=30, deadline=None)
@given(specs=st.lists(flagged_specs, min_size=2, max_size=6, unique_by=lambda s: s.name))
def test_deferral_is_per_tool(new_harness: Callable[[], Any], specs: list[ToolSpec]) -> None:
    """DEFER-1: a tool's classification depends on the tool alone, not on what was classified before."""
    harness = new_harness()
    first = [harness.is_deferred(spec) for spec in specs]
    again = [harness.is_deferred(spec) for spec in reversed(specs)][::-1]
    assert first == again, f"classifying in another order changed the answers for {[s.name for s in specs]}"
    for spec, got in zip(specs, first, strict=True):
        assert got is expected_deferred(spec), f"{_why(spec)}: the harness says deferred={got}"


# -- CONC-3 -------------------------------------------------------------------------------------


def _tempting(name: str, how: str = "declares_nothing") -> ToolSpec:
    """A tool that declares nothing, although its spec's flags would make it safe and read-only.

    With ``declares_nothing`` the flags must be ignored: the harness's own defaults apply. With
    ``how="raises"`` the tool does declare, through predicates that raise when asked: a failed
    declaration is no declaration.
    """
    return builtin_spec(
        name,
        declares_nothing=how == "declares_nothing",
        classification_raises=how == "raises",
        concurrency_safe=True,
        read_only=True,
        behavior=ToolBehavior(kind="sleep", seconds=0.02),
    )


def _run(harness: Any, scenario: ExecutionScenario) -> None:
    asyncio.run(harness.execute(scenario))


def _scenario(
    tools: list[ToolSpec], uses: list[tuple[str, str]], root: Path, **extra: Any
) -> ExecutionScenario:
    (root / "cwd").mkdir(exist_ok=True)
    (root / "session").mkdir(exist_ok=True)
    return ExecutionScenario(
        tools=tools,
        tool_uses=[{"type": "tool_use", "id": i, "name": n, "input": {}} for i, n in uses],
        recorder=CallRecorder(),
        cwd=root / "cwd",
        session_dir=root / "session",
        **extra,
    )


_ALLOW_ALL = HostSpec(answer=lambda _name, _input: HostAnswer("allow"))


@requires("execution")
@pytest.mark.requirement("CONC-3", "MUST")
@settings(max_examples=15, deadline=None)
@given(
    name=builtin_names(),
    safe_name=builtin_names(),
    pattern=st.lists(st.booleans(), min_size=2, max_size=4).filter(any),
    how=st.sampled_from(["declares_nothing", "raises"]),
)
@example(name="Grep", safe_name="Glob", pattern=[False, True, False], how="raises")
def test_tool_declaring_nothing_is_not_concurrency_safe(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    name: str,
    safe_name: str,
    pattern: list[bool],
    how: str,
) -> None:
    """CONC-3: calls of a tool that declares nothing never overlap any other call, and all run.

    The batch mixes calls of that tool (True in ``pattern``) with calls of a tool that declares
    itself concurrency safe and read-only; every call sleeps briefly, so a harness that wrongly
    runs the undeclared tool in parallel shows an overlap in the recorder. The undeclared tool
    either declares nothing or has predicates that raise (``how``): neither is a declaration, and a
    raising predicate must not cost any call its run or its result.
    """
    if safe_name == name:
        safe_name = name + "Safe"
    safe = builtin_spec(
        safe_name, concurrency_safe=True, read_only=True, behavior=ToolBehavior(kind="sleep", seconds=0.02)
    )
    uses = [(f"toolu_{i:02d}", name if undeclared else safe_name) for i, undeclared in enumerate(pattern)]
    rules = (
        [RuleSpec(name, "allow"), RuleSpec(safe_name, "allow")]
        if "permissions" in toolharness_capabilities
        else []
    )
    with tempfile.TemporaryDirectory() as tmp:
        scenario = _scenario([_tempting(name, how), safe], uses, Path(tmp), rules=rules, host=_ALLOW_ALL)
        _run(new_harness(), scenario)
    recorder = scenario.recorder
    assert sorted(recorder.started()) == sorted(i for i, _ in uses), (
        f"not every call ran (allowed by rule): started {recorder.started()} of {[i for i, _ in uses]}"
    )
    undeclared_ids = {i for i, n in uses if n == name}
    bad = [pair for pair in recorder.overlapping_pairs() if undeclared_ids & set(pair)]
    assert not bad, (
        f"calls of {name!r}, which declares nothing (so is not concurrency safe), overlapped other calls: "
        f"{bad}; batch was {uses}"
    )


# MCP ToolAnnotations that don't say read-only: readOnlyHint absent or false (as a server may spell it
# out), beside any of the spec's other hints, each absent, true or false, and an optional title.
_OTHER_HINTS = ("destructiveHint", "idempotentHint", "openWorldHint")


@st.composite
def not_read_only_annotations(draw: st.DrawFn) -> dict[str, Any] | None:
    """MCP annotations without ``readOnlyHint: true``: None, or any mix of the other hints."""
    if draw(st.booleans()):
        return None
    notes: dict[str, Any] = {}
    if draw(st.booleans()):
        notes["readOnlyHint"] = False
    for hint in _OTHER_HINTS:
        value = draw(st.sampled_from([None, True, False]))
        if value is not None:
            notes[hint] = value
    if draw(st.booleans()):
        notes["title"] = draw(st.sampled_from(["Writes things", "Reads things only"]))
    return notes


def _mcp_sleeper(server: str, tool: str, **flags: Any) -> ToolSpec:
    return mcp_spec(server, tool, behavior=ToolBehavior(kind="sleep", seconds=0.02), **flags)


@requires("execution")
@pytest.mark.requirement("CONC-3", "MUST")
@settings(max_examples=15, deadline=None)
@given(
    server=server_names(),
    tools=st.lists(mcp_tool_parts(), min_size=3, max_size=3, unique=True),
    annotations=st.lists(not_read_only_annotations(), min_size=2, max_size=2),
    pattern=st.lists(st.sampled_from([0, 1, 2]), min_size=2, max_size=5).filter(lambda p: 2 in p),
)
@example(
    server="srv",
    tools=["write", "post", "read"],
    annotations=[{"readOnlyHint": False}, {"readOnlyHint": False, "destructiveHint": False}],
    pattern=[2, 0, 2, 1, 2],
)
def test_mcp_tool_not_marked_read_only_is_not_concurrency_safe(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    server: str,
    tools: list[str],
    annotations: list[dict[str, Any] | None],
    pattern: list[int],
) -> None:
    """CONC-3: an MCP tool is concurrency safe only when its server marks it ``readOnlyHint: true``.

    Two MCP tools are listed with annotations that don't (none, ``readOnlyHint: false`` spelled out,
    any of the other hints, a title) and declare nothing else; a third is marked read-only. Their calls,
    in the drawn order, all run, and no call of the first two overlaps any other call.
    """
    specs = [
        _mcp_sleeper(server, tools[0], declares_nothing=True, mcp_annotations=annotations[0]),
        _mcp_sleeper(server, tools[1], declares_nothing=True, mcp_annotations=annotations[1]),
        _mcp_sleeper(server, tools[2], declares_nothing=True, mcp_annotations={"readOnlyHint": True}),
    ]
    uses = [(f"toolu_{i:02d}", specs[which].name) for i, which in enumerate(pattern)]
    rules = [RuleSpec(s.name, "allow") for s in specs] if "permissions" in toolharness_capabilities else []
    with tempfile.TemporaryDirectory() as tmp:
        scenario = _scenario(specs, uses, Path(tmp), rules=rules, host=_ALLOW_ALL)
        _run(new_harness(), scenario)
    recorder = scenario.recorder
    assert sorted(recorder.started()) == sorted(i for i, _ in uses), (
        f"not every call ran (allowed by rule): started {recorder.started()} of {[i for i, _ in uses]}"
    )
    unmarked = {specs[0].name: annotations[0], specs[1].name: annotations[1]}
    unmarked_ids = {i for i, n in uses if n in unmarked}
    bad = [pair for pair in recorder.overlapping_pairs() if unmarked_ids & set(pair)]
    assert not bad, (
        f"calls of MCP tools not marked read-only (annotations {unmarked}) overlapped other calls: {bad}; "
        f"batch was {uses}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("CONC-3", "MUST")
@settings(max_examples=8, deadline=None)
@given(name=builtin_names())
def test_tool_declaring_nothing_is_not_read_only(new_harness: Callable[[], Any], name: str) -> None:
    """CONC-3: in plan mode, a tool that declares nothing is treated exactly like one declared not read-only.

    Plan mode lets only read-only tools run (PERM-9); whether a harness has plan mode or not, the
    undeclared tool must fare as the explicitly writing tool does, and never as the read-only one.
    """
    writer = builtin_spec(name + "Writer", read_only=False, concurrency_safe=False)
    reader = builtin_spec(name + "Reader", read_only=True, concurrency_safe=True)
    ran: dict[str, bool] = {}
    for spec in (_tempting(name), writer, reader):
        with tempfile.TemporaryDirectory() as tmp:
            scenario = _scenario(
                [spec],
                [("toolu_01", spec.name)],
                Path(tmp),
                mode="plan",
                rules=[RuleSpec(spec.name, "allow")],
                host=_ALLOW_ALL,
            )
            _run(new_harness(), scenario)
        ran[spec.name] = bool(scenario.recorder.started())
    assert ran[name] == ran[writer.name], (
        f"in plan mode the tool that declares nothing {'ran' if ran[name] else 'did not run'}, but a tool "
        f"declared not read-only {'ran' if ran[writer.name] else 'did not run'}: the default must be not "
        f"read-only (results: {ran})"
    )
