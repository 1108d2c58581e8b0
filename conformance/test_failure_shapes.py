"""A failed call is told as a failure whatever the shape of its output: PAIR-3 beside PAIR-4.

The output of each call is drawn from every shape a result takes (text, nothing, whitespace only, an
image block, a list of blank text blocks), crossed with how the call ends (success, an error result
the tool returns as text or as blank blocks, a raise) and the kind of tool (a plain tool, an MCP tool,
a shell tool), beside empty successes in the same batch. The empty forms are the corner: a harness
that puts a placeholder in for empty output must not tell the model that a failed call "completed",
neither in the words another call's empty success gets nor in those its own tool's empty success gets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    BLANKS,
    NAMES,
    allow_rules,
    execute,
    is_error,
    ok_tool,
    scenario_root,
    text_of,
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolBehavior, ToolSpec, mcp_tool_name

Capabilities = frozenset[str]

BLANK_BLOCKS = st.lists(BLANKS.map(lambda blank: {"type": "text", "text": blank}), max_size=3)
# What a successful call returns: every empty shape, and text or an image beside them.
SUCCESS_OUTPUTS = st.one_of(
    st.just(ToolBehavior("empty")),
    BLANKS.map(lambda blank: ToolBehavior("text", text=blank)),
    BLANK_BLOCKS.map(lambda blocks: ToolBehavior("json", value=blocks)),
    st.just(ToolBehavior("text", text="found 3 files")),
    st.just(ToolBehavior("image")),
)
# How a call fails: an error result it returns (its message blank or worded, or blank blocks), or a
# raise with a blank or worded message.
FAILURE_MESSAGES = st.one_of(BLANKS, st.just("exit status 2"))
FAILURES = st.one_of(
    st.builds(
        lambda kind, message: ToolBehavior(kind, message=message),
        st.sampled_from(["error_result", "raise"]),
        FAILURE_MESSAGES,
    ),
    BLANK_BLOCKS.map(lambda blocks: ToolBehavior("error_result", value=blocks)),
)
TOOL_KINDS = st.sampled_from(["plain", "mcp", "shell"])


@dataclass(frozen=True)
class Call:
    """One drawn call: its tool's kind, its behaviour, and whether it fails."""

    kind: str
    behavior: ToolBehavior

    @property
    def fails(self) -> bool:
        return self.behavior.kind in ("error_result", "raise")


CALLS = st.builds(Call, TOOL_KINDS, st.one_of(SUCCESS_OUTPUTS, FAILURES))


def build_tool(index: int, call: Call) -> ToolSpec:
    """The tool for the ``index``-th call, of the drawn kind."""
    if call.kind == "mcp":
        server, tool = f"srv{index}", NAMES[index].lower()
        return ToolSpec(
            name=mcp_tool_name(server, tool),
            description=f"The {tool} tool.",
            input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
            behavior=call.behavior,
            mcp_server=server,
            mcp_tool=tool,
        )
    return ok_tool(NAMES[index], call.behavior, shell=call.kind == "shell")


def _results(
    harness: Any, tools: list[ToolSpec], uses: list[Any], capabilities: Capabilities
) -> dict[str, Any]:
    """The calls run in one batch: the tool_result per id that got one.

    A call left without a result is PAIR-1's question (its own tests judge it), not PAIR-3's.
    """
    with scenario_root() as root:
        run = execute(harness, root, tools, uses, rules=allow_rules(tools, capabilities))
    return dict(run.results_by_id())


def masked(text: str, name: str) -> str:
    """The text with the tool's name masked, so texts of different tools compare."""
    return text.replace(name, "<tool>").strip()


@requires("execution")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=30, deadline=None)
@given(calls=st.lists(CALLS, min_size=1, max_size=5))
@example(calls=[Call("plain", ToolBehavior("error_result", message=""))])
@example(calls=[Call("mcp", ToolBehavior("error_result", value=[]))])
@example(calls=[Call("mcp", ToolBehavior("raise", message=" ")), Call("shell", ToolBehavior("empty"))])
def test_empty_failures_read_as_failures(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, calls: list[Call]
) -> None:
    """PAIR-3: a failed call's result is marked is_error and its text never reads as a success.

    Every drawn failure (an error result or a raise, its message blank or worded, of a plain, MCP or
    shell tool) gets is_error and non-blank text, and that text (tool names masked) is not the text
    any call that succeeded with empty output got: an empty failure must not be told as "completed
    with no output". A batch always holds one empty success, so there is a success text to compare
    with. The same tools are run once more, every one succeeding with empty output: a failure's text
    is not what its own tool's empty success reads either. Every call that succeeded is not marked as
    an error (a shell sibling of a failed shell call may have been cancelled: it may end either way).
    """
    calls = [*calls, Call("plain", ToolBehavior("empty"))]
    tools = [build_tool(i, call) for i, call in enumerate(calls)]
    uses = [tool_use(f"toolu_{i:02d}", tool.name, {"n": i}) for i, tool in enumerate(tools)]
    by_id = _results(new_harness(), tools, uses, toolharness_capabilities)
    succeeding = [dataclasses.replace(tool, behavior=ToolBehavior("empty")) for tool in tools]
    own_success = {
        tool_use_id: text_of(result)
        for tool_use_id, result in _results(new_harness(), succeeding, uses, toolharness_capabilities).items()
    }
    shell_failed = any(call.fails and call.kind == "shell" for call in calls)
    success_texts: set[str] = set()
    for index, (call, tool) in enumerate(zip(calls, tools, strict=True)):
        result = by_id.get(f"toolu_{index:02d}")
        if result is None or call.fails or (call.kind == "shell" and shell_failed):
            continue
        assert not is_error(result), f"{tool.name} ({call.behavior}) succeeded but is_error: {result}"
        if call.behavior.kind in ("empty", "json") or not call.behavior.output_text().strip():
            success_texts.add(masked(text_of(result), tool.name))
    for index, (call, tool) in enumerate(zip(calls, tools, strict=True)):
        result = by_id.get(f"toolu_{index:02d}")
        if not call.fails or result is None:
            continue
        said = f"{tool.name} ({call.kind} tool, {call.behavior.kind} {call.behavior.message!r})"
        assert is_error(result), f"{said} failed, yet its result is not marked is_error: {result}"
        text = text_of(result)
        assert text.strip(), f"{said} failed, yet its error has no text: {result}"
        assert masked(text, tool.name) not in success_texts, (
            f"{said} failed, yet the model is told what an empty success is told: {text!r}"
        )
        assert text != own_success.get(f"toolu_{index:02d}"), (
            f"{said} failed, yet its text is what an empty success of the same tool reads: {text!r}"
        )
