"""PAIR-3 at the empty corner: a failure whose output is empty is still told apart from a success.

Every result shape that counts as empty (nothing, whitespace, no blocks, blank text blocks) crossed
with every way a call fails (a returned error result, a raised exception) and every kind of tool
(built-in, MCP), beside empty successes in the same batch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    NAMES,
    allow_rules,
    execute,
    is_error,
    ok_tool,
    scenario_root,
    text_of,
    tool_use,
)
from conformance._strategies_permissions import mcp_tool_spec
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolBehavior, ToolSpec

Capabilities = frozenset[str]

# Blank text: nothing, or only whitespace the API does not count as text.
BLANKS = st.lists(st.sampled_from(["", " ", "\n", "\t", "\r\n"]), max_size=3).map("".join)
BLANK_BLOCKS = st.lists(BLANKS.map(lambda blank: {"type": "text", "text": blank}), max_size=3)

# (how the call ends, its empty output): a returned error as blank text or blank blocks, a raised
# exception with a blank message, or a success with any empty shape.
OUTCOMES = st.one_of(
    BLANKS.map(lambda blank: ("failure", ToolBehavior("error_result", message=blank))),
    BLANK_BLOCKS.map(lambda blocks: ("failure", ToolBehavior("error_result", value=blocks))),
    BLANKS.map(lambda blank: ("failure", ToolBehavior("raise", message=blank))),
    st.just(("success", ToolBehavior("empty"))),
    BLANKS.map(lambda blank: ("success", ToolBehavior("text", text=blank))),
    BLANK_BLOCKS.map(lambda blocks: ("success", ToolBehavior("json", value=blocks))),
)


def a_tool(index: int, mcp: bool, behavior: ToolBehavior) -> ToolSpec:
    """The ``index``-th tool of a batch: built-in or MCP, with ``behavior``."""
    if mcp:
        return dataclasses.replace(mcp_tool_spec("srv", NAMES[index].lower()), behavior=behavior)
    return ok_tool(NAMES[index], behavior)


def results(harness: Any, tools: list[ToolSpec], capabilities: Capabilities) -> dict[str, Any]:
    """One call of each tool in one batch: the tool_result per id that got one.

    A call left without a result is PAIR-1's question (its own tests judge it), not PAIR-3's.
    """
    uses = [tool_use(f"toolu_{i:02d}", tool.name, {"n": i}) for i, tool in enumerate(tools)]
    with scenario_root() as root:
        run = execute(harness, root, tools, uses, rules=allow_rules(tools, capabilities))
    return dict(run.results_by_id())


@requires("execution")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=25, deadline=None)
@given(calls=st.lists(st.tuples(OUTCOMES, st.booleans()), min_size=1, max_size=4))
@example(calls=[(("failure", ToolBehavior("error_result", message="")), False)])
@example(calls=[(("failure", ToolBehavior("error_result", value=[])), True)])
@example(
    calls=[
        (("failure", ToolBehavior("raise", message=" ")), False),
        (("success", ToolBehavior("empty")), True),
    ]
)
def test_empty_failure_is_told_apart_from_empty_success(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    calls: list[tuple[tuple[str, ToolBehavior], bool]],
) -> None:
    """PAIR-3: a failed call with empty output (every empty shape, returned or raised, built-in or MCP tool) is is_error with non-empty text that is not what the same tool's empty success gets.

    The model must be told the truth about a failure also in words (an API without the flag sees
    only the text): the same tools are run once more, every one succeeding with empty output, and a
    failure's text must differ from its tool's success text. An empty success is never an error.
    """
    tools = [a_tool(i, mcp, behavior) for i, ((_, behavior), mcp) in enumerate(calls)]
    got = results(new_harness(), tools, toolharness_capabilities)
    succeeding = [dataclasses.replace(tool, behavior=ToolBehavior("empty")) for tool in tools]
    success_text = {
        tool_use_id: text_of(result)
        for tool_use_id, result in results(new_harness(), succeeding, toolharness_capabilities).items()
    }
    for i, ((outcome, behavior), _) in enumerate(calls):
        tool_use_id = f"toolu_{i:02d}"
        if tool_use_id not in got or tool_use_id not in success_text:
            continue  # no result to judge (PAIR-1's question)
        result, why = got[tool_use_id], f"{tools[i].name} ({outcome}, {behavior})"
        if outcome == "success":
            assert not is_error(result), f"{why}: an empty success is marked is_error: {result}"
            continue
        assert is_error(result), f"{why}: a failure with empty output is not is_error: {result}"
        assert text_of(result).strip(), f"{why}: a failure without text: {result}"
        assert text_of(result) != success_text[tool_use_id], (
            f"{why}: the failure's text is what an empty success of the same tool reads "
            f"({success_text[tool_use_id]!r}): the model is told it succeeded"
        )
