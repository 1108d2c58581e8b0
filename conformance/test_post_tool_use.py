"""PostToolUse outcomes in combination: EXEC-5 with a block and a context from several hooks at once.

``test_pipeline.py`` states EXEC-5 one hook at a time and checks that a block's reason reaches the
model; these tests check the other half of the statement (a block is a message, not a failure: the
tool's successful result stays a success, whole) and several PostToolUse hooks on one call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import execute, is_error, ok_tool, scenario_root, text_of, tool_use
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import CAPABILITIES, requires
from pytest_toolharness.specs import HookAlso, HookOutcomeKind, HookSpec, RuleSpec, ToolBehavior, ToolSpec


def _allow(tools: Sequence[ToolSpec], adapter: Any) -> list[RuleSpec]:
    """An allow rule per tool, unless the adapter says it has no permission engine (then none)."""
    if "permissions" in CAPABILITIES and "permissions" not in frozenset(getattr(adapter, "capabilities", ())):
        return []
    return [RuleSpec(t.name, "allow") for t in tools]


def _texts(content: Sequence[dict[str, Any]]) -> list[str]:
    return [text_of(b) if b.get("type") == "tool_result" else str(b.get("text", "")) for b in content]


BLOCKS: tuple[HookOutcomeKind, ...] = ("block", "legacy_block")


def _post(outcome: HookOutcomeKind, marker: str, *also: HookAlso) -> HookSpec:
    return HookSpec(
        "PostToolUse", outcome, matcher="Alpha", reason=f"R{marker}", context=f"C{marker}", also=also
    )


@requires("execution", "hooks")
@pytest.mark.requirement("EXEC-5", "MUST")
@settings(max_examples=12, deadline=None)
@given(
    hooks=ths.hook_stacks(
        event="PostToolUse",
        outcomes=(*BLOCKS, "context", "none"),
        also=ths.ALSO_BY_EVENT["PostToolUse"],
        tool_name="Alpha",
        broken=False,
        min_size=1,
    ).filter(lambda hooks: any(h.outcome in BLOCKS for h in hooks)),
    output=st.from_regex(r"out-[a-z]{4,10}", fullmatch=True, alphabet=ths.utf8_characters()),
)
@example(hooks=[_post("block", "0SINGLE")], output="out-single")
@example(hooks=[_post("block", "0BOTH"), _post("context", "1BOTH")], output="out-both")
@example(hooks=[_post("block", "0ONE", "context")], output="out-one-answer")
@example(
    hooks=[
        _post("context", "0THREE"),
        _post("block", "1THREE", "context", "system_message"),
        _post("block", "2THREE"),
    ],
    output="out-three",
)
@example(
    hooks=[_post("context", "0TWO"), _post("block", "1TWO"), _post("context", "2TWO", "stop")],
    output="out-two",
)
def test_post_tool_use_block_leaves_the_success_a_success(
    new_harness: Callable[[], Any], toolharness_adapter: Any, hooks: list[HookSpec], output: str
) -> None:
    """The EXEC-5 property for a PostToolUse block, both halves, stated below.

    EXEC-5: a PostToolUse hook's block decision becomes a message the model sees after the result;
    the call itself succeeded, so its tool_result is still the tool's output, not marked is_error.
    With several PostToolUse hooks on the call (blocks and additional contexts together, from
    separate hooks or in one hook's answer beside ``systemMessage``, ``continue: false`` and
    ``suppressOutput``), every block reason and every context reaches the model, each after the
    tool_result.
    """
    tool = ok_tool("Alpha", ToolBehavior("text", text=output))
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_a", "Alpha", {"n": 1})],
            hooks=hooks,
            rules=_allow([tool], toolharness_adapter),
        )
    said = [(h.outcome, h.also) for h in hooks]
    result = run.results_by_id()["toolu_a"]
    assert not is_error(result), (
        f"Alpha succeeded, but with PostToolUse hooks {said} its result is an error: {result}"
    )
    assert output in text_of(result), (
        f"Alpha's output {output!r} is not in its result after PostToolUse {said}: {result}"
    )
    texts = _texts(run.content)
    result_at = next(i for i, b in enumerate(run.content) if b.get("tool_use_id") == "toolu_a")
    expected = [("block", h.reason) for h in hooks if h.outcome in BLOCKS]
    expected += [("context", h.context) for h in hooks if h.says("context")]
    for kind, marker in expected:
        where = [i for i, text in enumerate(texts) if marker in text]
        assert where, (
            f"the PostToolUse {kind} {marker!r} (of hooks {said}) never reaches the model: {run.content}"
        )
        assert min(where) >= result_at, f"the PostToolUse {kind} {marker!r} comes before Alpha's tool_result"
