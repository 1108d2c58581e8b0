"""PAIR-7 and PAIR-8: the assistant turn, its reasoning too, is re-sent as the model wrote it (``agent_loop``).

Over the wire the same requirement is checked on the recorded requests (``conformance/test_wire.py``);
here the harness runs its loop in process against the scripted model, so a harness whose history
differs from what the model wrote (a call renamed to an internal ``invalid`` tool, a tool name
lower-cased, an input rewritten) is seen on calls the harness could not run as well as on those it ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._loop_runs import run_loop, text
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.wire import checks

# Inputs the harness must carry back unchanged: nested, unicode, empty, wrong for the schema.
_INPUTS = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(ths.utf8_characters(), max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(ths.utf8_characters(), max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def model_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One assistant turn: text, then 1-4 tool_uses of ``Echo`` (valid or not) and of tools nobody has.

    Unknown names include ``echo`` and ``invalid`` (a harness's own lower-casing or error tool);
    inputs include ones that fail ``Echo``'s schema, so every failure path is replayed too.
    """
    calls = []
    tool_input: dict[str, Any]
    for n in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["valid", "invalid_input", "unknown"]))
        if kind == "valid":
            name, tool_input = "Echo", {"x": draw(st.text(ths.utf8_characters(), max_size=8))}
        elif kind == "invalid_input":
            name, tool_input = (
                "Echo",
                draw(st.dictionaries(st.text(ths.utf8_characters(), max_size=4), _INPUTS, max_size=3)),
            )
        else:
            name = draw(st.sampled_from(["echo", "invalid", "NoSuchTool", "mcp__gone__tool"]))
            tool_input = draw(
                st.dictionaries(st.text(ths.utf8_characters(), max_size=4), _INPUTS, max_size=3)
            )
        calls.append({"type": "tool_use", "id": f"toolu_replay_{n}", "name": name, "input": tool_input})
    return [text("calling"), *calls]


def _tool_uses(message: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return [(b.get("id"), b.get("name"), b.get("input")) for b in blocks if b.get("type") == "tool_use"]


@requires("agent_loop")
@pytest.mark.requirement("PAIR-7", "SHOULD")
@settings(max_examples=10, deadline=None)
@given(turn=model_turns())
def test_the_turn_comes_back_as_the_model_wrote_it(
    new_harness: Callable[[], Any], turn: list[dict[str, Any]]
) -> None:
    """PAIR-7: every later request holds the turn's tool_use blocks with the model's ids, names and inputs.

    Known and unknown tools, valid and invalid inputs: the harness answers each, and the turn it
    re-sends is the one the model wrote, block for block, in order.
    """
    wrote = _tool_uses({"content": turn})
    loop = run_loop(new_harness(), ["go", "again"], [turn, [text("ok")], [text("second")]])
    later = loop.run.requests[1:]
    assert len(later) >= 2, loop.describe()
    for number, request in enumerate(later, start=2):
        assistants = [m for m in request["messages"] if m.get("role") == "assistant"]
        sent = next((_tool_uses(m) for m in assistants if _tool_uses(m)), None)
        assert sent == wrote, f"request {number} re-sends the turn as {sent!r}; the model wrote {wrote!r}"


@st.composite
def reasoned_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One assistant turn: 1-2 thinking blocks (any text, an opaque signature), maybe text, 1-3 tool_uses.

    The calls are of ``Echo``, with a valid input or one its schema rejects, so the turn is replayed
    after failures too; no call names a tool nobody has, as a harness that fails its run on one (a
    PAIR-2 finding) would send no later request to judge here.
    """
    thinking = [
        {
            "type": "thinking",
            "thinking": draw(st.text(ths.utf8_characters(), min_size=1, max_size=12)),
            "signature": draw(
                st.from_regex(r"[A-Za-z0-9+/]{8,24}={0,2}", fullmatch=True, alphabet=ths.utf8_characters())
            ),
        }
        for _ in range(draw(st.integers(1, 2)))
    ]
    said = [text("calling")] if draw(st.booleans()) else []
    calls = [
        {
            "type": "tool_use",
            "id": f"toolu_reasoned_{n}",
            "name": "Echo",
            "input": {"x": str(n)} if draw(st.booleans()) else {},
        }
        for n in range(draw(st.integers(1, 3)))
    ]
    return [*thinking, *said, *calls]


@requires("agent_loop", "reasoning")
@pytest.mark.requirement("PAIR-8", "MUST")
@settings(max_examples=8, deadline=None)
@given(turn=reasoned_turns())
def test_reasoning_goes_back_with_its_calls(
    new_harness: Callable[[], Any], turn: list[dict[str, Any]]
) -> None:
    """PAIR-8: every later request re-sends the turn's reasoning, unchanged, ahead of its tool calls.

    The thinking blocks the model wrote (with their signatures) come back in order before the first
    tool_use of the replayed assistant turn (on the Responses API: its reasoning items before their
    function calls), read through the API-neutral check :func:`~pytest_toolharness.wire.checks.reasoning_replay_problem`.
    """
    delivered = [b for b in turn if b["type"] == "thinking"]
    first_call = next(b["id"] for b in turn if b["type"] == "tool_use")
    loop = run_loop(new_harness(), ["go", "again"], [turn, [text("ok")], [text("second")]])
    later = loop.run.requests[1:]
    assert len(later) >= 2, loop.describe()
    for number, request in enumerate(later, start=2):
        problem = checks.reasoning_replay_problem(delivered, first_call, request["messages"])
        assert problem is None, f"request {number}: {problem}"
