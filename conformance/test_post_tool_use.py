"""PostToolUse outcomes in combination: EXEC-5 with a block and a context from several hooks at once.

``test_pipeline.py`` states EXEC-5 one hook at a time and checks that a block's reason reaches the
model; these tests check the other half of the statement (a block is a message, not a failure: the
tool's successful result stays a success, whole) and several PostToolUse hooks on one call. Output
updates are drawn whole too: several updating hooks, an MCP or a built-in tool, replacements of every
size around the tool's limit (a large replacement is a large result, RESULT-1).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import execute, is_error, ok_tool, scenario_root, text_of, tool_use
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import CAPABILITIES, requires
from pytest_toolharness.specs import (
    HookAlso,
    HookOutcomeKind,
    HookSpec,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
    mcp_tool_name,
)


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


TAG = "<persisted-output>"
# One character of each UTF-8 length: the limit counts characters, not bytes.
FILLS = ("a", "é", "日", "🚀")
# A replacement's size: short, one under, exactly at, one over and far over the tool's limit.
SIZES: tuple[str | int, ...] = ("short", -1, 0, 1, 5_000)
QUIET: tuple[HookOutcomeKind, ...] = ("context", "none")


@dataclass(frozen=True)
class _Update:
    """One updating hook's replacement: the value it answers and the text it is, whole."""

    index: int
    value: Any
    text: str
    blocks: tuple[str, ...] | None

    @property
    def mark(self) -> str:
        return f"new{self.index}-"

    def inline(self) -> str:
        """What :func:`text_of` reads when the replacement is sent as it is."""
        return self.text if self.blocks is None else "\n".join(self.blocks)

    def saved_whole(self, saved: str) -> bool:
        """Whether a saved file holds this replacement whole (as text, or as its blocks in JSON)."""
        if self.blocks is None:
            return saved == self.text
        try:
            loaded = json.loads(saved)
        except ValueError:
            return saved.replace("\n", "") == self.text
        texts = [b.get("text") for b in loaded if isinstance(b, dict)] if isinstance(loaded, list) else []
        return "".join(str(t) for t in texts) == self.text


@st.composite
def output_updates(draw: st.DrawFn, limit: int) -> tuple[list[HookSpec], list[_Update]]:
    """1-3 PostToolUse hooks on the call, at least one answering ``updatedMCPToolOutput``.

    Each updating hook's replacement is a string or two text blocks, of a drawn size around
    ``limit`` (see :data:`SIZES`), marked with the hook's index; the others add a context or say
    nothing. Callbacks and command hooks alike.
    """
    hooks: list[HookSpec] = []
    updates: list[_Update] = []
    count = draw(st.integers(1, 3))
    updating = draw(st.sets(st.integers(0, count - 1), min_size=1))
    for i in range(count):
        as_command = draw(st.integers(0, 3)) == 0
        if i not in updating:
            quiet = draw(st.sampled_from(QUIET))
            hooks.append(
                HookSpec("PostToolUse", quiet, context=f"ctx{i}", as_command=as_command, timeout=10.0)
            )
            continue
        size = draw(st.sampled_from(SIZES))
        chars = 24 if size == "short" else limit + int(size)
        mark = f"new{i}-"
        text = mark + draw(st.sampled_from(FILLS)) * (chars - len(mark))
        blocks = None
        value: Any = text
        if draw(st.booleans()):
            half = chars // 2
            blocks = (text[:half], text[half:])
            value = [{"type": "text", "text": b} for b in blocks]
        updates.append(_Update(i, value, text, blocks))
        hooks.append(
            HookSpec(
                "PostToolUse", "update_output", updated_output=value, as_command=as_command, timeout=10.0
            )
        )
    return hooks, updates


@requires("execution", "hooks")
@pytest.mark.requirement("EXEC-5", "MUST")
@pytest.mark.requirement("RESULT-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(data=st.data(), mcp=st.booleans(), limit=st.sampled_from([None, 2_500]))
def test_output_updates_replace_mcp_output_whole_and_as_large_results(
    new_harness: Callable[[], Any],
    toolharness_adapter: Any,
    data: st.DataObject,
    mcp: bool,
    limit: int | None,
) -> None:
    """The EXEC-5 output update with several hooks, on an MCP or a built-in tool, at any size.

    EXEC-5: ``updatedMCPToolOutput`` replaces an MCP tool's output before it is added; a built-in
    tool's output it leaves alone (the update is for MCP tools), so the model gets that tool's own
    output and none of the hooks' text. With several updating hooks, exactly one replacement reaches
    the model, whole (never a mix, never the original). RESULT-1: the replacement is a result like
    any other: within the tool's limit (its own, or the default 50,000 characters) it is sent as it
    is; over it, it is saved whole to a file and a ``<persisted-output>`` block is sent instead,
    never the replacement inlined whole.
    """
    size_limit = 50_000 if limit is None else limit
    hooks, updates = data.draw(output_updates(size_limit), label="hooks")
    original = "original-output-kept"
    flags: dict[str, Any] = {} if limit is None else {"max_result_size_chars": limit}
    if mcp:
        flags |= {"name": mcp_tool_name("notes", "lookup"), "mcp_server": "notes", "mcp_tool": "lookup"}
    tool = replace(ok_tool("Lookup", ToolBehavior("text", text=original)), **flags)
    hooks = [replace(h, matcher=tool.name) for h in hooks]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_u", tool.name, {"n": 1})],
            hooks=hooks,
            rules=_allow([tool], toolharness_adapter),
        )
        saved = [p.read_text("utf-8") for p in sorted((root / "session").rglob("*")) if p.is_file()]
    result = run.results_by_id()["toolu_u"]
    text = text_of(result)
    said = [(u.index, len(u.text), "blocks" if u.blocks else "text") for u in updates]
    why = f"{tool.name} (limit {size_limit}), updates (hook, chars, shape) {said} of {len(hooks)} hooks"
    assert run.recorder.started() == ["toolu_u"], f"{why}: the tool did not run once"
    assert not is_error(result), f"{why}: the result is an error: {text[:300]!r}"
    if not mcp:
        assert text == original, (
            f"{why}: a built-in tool's output was replaced by updatedMCPToolOutput: {text[:300]!r}"
        )
        assert not saved, f"{why}: a file was written for the built-in tool's short output"
        return
    assert original not in text, f"{why}: the original output was sent despite the updates: {text[:300]!r}"
    shown = [u for u in updates if u.mark in text]
    assert len(shown) == 1, (
        f"{why}: {len(shown)} replacements reach the model, not exactly one: {text[:300]!r}"
    )
    winner = shown[0]
    if len(winner.text) <= size_limit:
        assert text == winner.inline(), (
            f"{why}: hook {winner.index}'s {len(winner.text)}-char replacement, within the limit, "
            f"is not sent as it is: {text[:300]!r}"
        )
        return
    assert TAG in text, (
        f"{why}: hook {winner.index}'s {len(winner.text)}-char replacement, over the limit, was not "
        f"persisted: {text[:300]!r}"
    )
    assert len(text) < len(winner.text), (
        f"{why}: the persisted-output block is not smaller than the replacement"
    )
    assert any(winner.saved_whole(s) for s in saved), (
        f"{why}: no file in the session directory holds hook {winner.index}'s replacement whole "
        f"({[len(s) for s in saved]} chars saved)"
    )
