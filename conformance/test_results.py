"""Large results: RESULT-1, RESULT-2, RESULT-3 (RESULT-4 is with the conversation tests)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    NAMES,
    allow_rules,
    check_pairing,
    execute,
    ok_tool,
    scenario_root,
    text_of,
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolBehavior

TAG = "<persisted-output>"
PREVIEW_BYTES = 2_000
MESSAGE_BUDGET = 200_000

# Characters of 1, 2, 3 and 4 UTF-8 bytes, so a byte cut can fall inside a character. No whitespace:
# whitespace-only output counts as empty, and the block's own line breaks could pass for more preview.
seeds = st.text(
    alphabet=st.sampled_from(["a", "Z", "-", "é", "ж", "日", "本", "€", "🚀", "𝄞"]), min_size=1, max_size=40
)


def long_text(seed: str, chars: int) -> str:
    return (seed * (chars // len(seed) + 1))[:chars]


def longest_prefix_in(output: str, text: str) -> str:
    """The longest prefix of ``output`` that appears in ``text`` (binary search: prefixes nest)."""
    low, high = 0, min(len(output), len(text))
    while low < high:
        mid = (low + high + 1) // 2
        if output[:mid] in text:
            low = mid
        else:
            high = mid - 1
    return output[:low]


def persisted_paths(text: str, session_dir: Path) -> list[Path]:
    """The paths inside ``session_dir`` that ``text`` names."""
    pattern = re.escape(str(session_dir)) + r"[^\s<>\"')]*"
    return [Path(m) for m in re.findall(pattern, text)]


def content_chars(result: Mapping[str, Any]) -> int:
    content = result.get("content")
    if isinstance(content, str):
        return len(content)
    return sum(len(str(b.get("text", ""))) for b in content or [] if b.get("type") == "text")


# RESULT-1 is the check of persistence itself, so it needs no result_persistence capability: a harness
# without persistence is judged, not skipped (a core MUST has a default limit).
@requires("execution")
@pytest.mark.requirement("RESULT-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(seed=seeds, over=st.booleans(), limit=st.sampled_from([None, 3_000]))
def test_oversized_result_is_persisted_with_safe_preview(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    seed: str,
    over: bool,
    limit: int | None,
) -> None:
    """The RESULT-1 property, stated below.

    RESULT-1: a result over the tool's limit (default 50,000 chars) is saved whole to a file in the
    session directory and replaced by a <persisted-output> block naming the file, with a preview that is
    a prefix of the output of at most 2,000 bytes, cut on a character boundary; a result within the
    limit is sent as it is.
    """
    size_limit = 50_000 if limit is None else limit
    chars = size_limit + 10_000 if over else size_limit - 500
    output = long_text(seed, chars)
    flags = {} if limit is None else {"max_result_size_chars": limit}
    tool = ok_tool("Alpha", ToolBehavior("text", text=output), **flags)
    with scenario_root() as root:
        session_dir = root / "session"
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_big", "Alpha", {"n": 1})],
            rules=allow_rules([tool], toolharness_capabilities),
        )
        check_pairing(run)
        text = text_of(run.results_by_id()["toolu_big"])
        if not over:
            assert text == output, f"a {chars}-char result within the {size_limit}-char limit was changed"
            return
        assert TAG in text, (
            f"a {chars}-char result over the {size_limit}-char limit was not persisted: {text[:200]!r}"
        )
        assert len(text) < chars, "the persisted-output block is not smaller than the output"
        paths = [p for p in persisted_paths(text, session_dir) if p.is_file()]
        assert paths, (
            f"the persisted-output block names no existing file inside {session_dir}: {text[:400]!r}"
        )
        saved = paths[0].read_bytes().decode("utf-8")
        assert saved == output, f"{paths[0]} does not hold the whole output ({len(saved)} of {chars} chars)"
        assert "\ufffd" not in text, "the preview cuts a character in two (U+FFFD in the block)"
        preview = longest_prefix_in(output, text)
        size = len(preview.encode("utf-8"))
        assert size <= PREVIEW_BYTES, f"the preview is {size} bytes, more than {PREVIEW_BYTES}"
        assert size > PREVIEW_BYTES - 4, (
            f"the preview is only {size} bytes of the output's start (expected ~{PREVIEW_BYTES})"
        )


@requires("execution", "result_persistence")
@pytest.mark.requirement("RESULT-2", "MUST")
@settings(max_examples=10, deadline=None)
@given(seed=seeds, which=st.sampled_from(["image", "unlimited"]), chars=st.integers(55_000, 90_000))
def test_images_and_unlimited_tools_are_not_persisted(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    seed: str,
    which: str,
    chars: int,
) -> None:
    """RESULT-2: a result with an image, or from a tool without a size limit, is sent as it is, however large."""
    output = long_text(seed, chars)
    if which == "image":
        tool = ok_tool("Alpha", ToolBehavior("image", text=output))
    else:
        tool = ok_tool("Alpha", ToolBehavior("text", text=output), max_result_size_chars=None)
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_big", "Alpha", {"n": 1})],
            rules=allow_rules([tool], toolharness_capabilities),
        )
        result = run.results_by_id()["toolu_big"]
        text = text_of(result)
        assert TAG not in text, f"a {which} result of {chars} chars was persisted"
        assert output in text, f"the {which} result's text was changed ({len(text)} of {chars} chars sent)"
        if which == "image":
            content = result.get("content")
            blocks = content if isinstance(content, list) else []
            assert any(b.get("type") == "image" for b in blocks), "the image block was not sent"
        assert not any((root / "session").rglob("*.*")), (
            "a file was written for a result that must not be persisted"
        )


@requires("execution", "result_persistence")
@pytest.mark.requirement("RESULT-2", "MUST")
@settings(max_examples=5, deadline=None)
@given(count=st.integers(3, 4))
def test_unlimited_tools_escape_message_budget(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], count: int
) -> None:
    """The RESULT-2 property, stated below.

    RESULT-2: results of tools without a size limit are never persisted, even when together they
    exceed the message budget.
    """
    tools = [
        ok_tool(NAMES[i], ToolBehavior("text", chars=70_000, fill=str(i)), max_result_size_chars=None)
        for i in range(count)
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(count)]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    persisted = [r["tool_use_id"] for r in run.results_by_id().values() if TAG in text_of(r)]
    assert not persisted, f"results of unlimited tools were persisted: {persisted}"


RESULT_LIMIT = 50_000
"""The per-result size the RESULT-3 sizes stay within (each is sent inline on its own)."""


@st.composite
def budget_edges(draw: st.DrawFn) -> list[int]:
    """4 to 8 result sizes, each within ``RESULT_LIMIT``, together one under, at or one over the budget.

    The total is placed on the boundary and then split at drawn points, so every example sits where a
    ``<`` for ``<=`` or a result left out of the sum shows.
    """
    delta = draw(st.sampled_from([-1, 0, 1]))
    total = MESSAGE_BUDGET + delta
    count = draw(st.integers(-(-total // RESULT_LIMIT), 8))  # enough results to hold the total
    sizes = [RESULT_LIMIT] * count
    excess = RESULT_LIMIT * count - total
    weights = draw(st.lists(st.integers(1, 100), min_size=count, max_size=count))
    for i, weight in enumerate(weights):
        cut = min(excess * weight // sum(weights[i:]), RESULT_LIMIT - 1)
        sizes[i] -= cut
        excess -= cut
    for i in range(count):  # what rounding left over, from whoever still has room
        cut = min(excess, sizes[i] - 1)
        sizes[i] -= cut
        excess -= cut
    return sizes


BUDGET_KINDS = ("text", "blocks", "image", "unlimited", "persisted")
"""How a result of the RESULT-3 draw is sent: a string or a text block (budget candidates); text with an
image block, a tool of unlimited size, or one already persisted by its own limit (never candidates)."""
EXEMPT_KINDS = frozenset({"image", "unlimited", "persisted"})
IMAGE_SLACK = 500
"""Characters an image block may count for in a harness's budget (the suite counts text only)."""
OWN_LIMIT = 3_000
"""The per-result limit of a ``persisted`` result's tool."""


@st.composite
def budget_mixes(draw: st.DrawFn) -> list[tuple[int, str]]:
    """(size, kind) of 4 to 10 results: sizes near or at the budget, any of them exempt.

    The sizes come from :func:`budget_edges` (one under, at or one over the budget) or are drawn
    freely; each result is sent in a drawn kind (:data:`BUDGET_KINDS`); and 0 to 2 exempt results
    larger than any candidate are inserted anywhere, so the largest result of the message is often
    one the budget may not replace.
    """
    sizes = draw(
        st.one_of(st.lists(st.integers(30_000, RESULT_LIMIT), min_size=4, max_size=8), budget_edges())
    )
    mix = [
        (
            n,
            draw(
                st.sampled_from(BUDGET_KINDS[:2])
                if draw(st.integers(0, 3))
                else st.sampled_from(BUDGET_KINDS)
            ),
        )
        for n in sizes
    ]
    for _ in range(draw(st.integers(0, 2))):
        big = (draw(st.integers(RESULT_LIMIT + 1, 120_000)), draw(st.sampled_from(("image", "unlimited"))))
        mix.insert(draw(st.integers(0, len(mix))), big)
    return mix


def budget_behavior(chars: int, kind: str) -> ToolBehavior:
    text = long_text("ab日", chars)
    if kind == "blocks":
        return ToolBehavior("json", value=[{"type": "text", "text": text}])
    if kind == "image":
        return ToolBehavior("image", text=text)
    return ToolBehavior("text", text=text)


def budget_tool(index: int, chars: int, kind: str) -> Any:
    limit: dict[str, Any] = {
        "unlimited": {"max_result_size_chars": None},
        "persisted": {"max_result_size_chars": OWN_LIMIT},
    }
    # A persisted result's output is over its own limit whatever its drawn size.
    size = max(chars, OWN_LIMIT + 1) if kind == "persisted" else chars
    return ok_tool(NAMES[index], budget_behavior(size, kind), **limit.get(kind, {}))


@requires("execution", "result_persistence")
@pytest.mark.requirement("RESULT-3", "MUST")
@settings(max_examples=16, deadline=None)
@given(mix=budget_mixes())
@example(mix=[(50_000, "text")] * 4)  # exactly the budget: nothing is replaced
@example(mix=[(50_000, "blocks")] * 4)
@example(mix=[(50_000, "text")] * 4 + [(1, "text")])  # one character over: one result is replaced, no more
@example(mix=[(49_999, "blocks"), (50_000, "text"), (50_000, "blocks"), (50_000, "text"), (2, "text")])
@example(
    mix=[(90_000, "unlimited"), (50_000, "text"), (40_000, "text"), (30_000, "text")]
)  # the largest is exempt
@example(mix=[(45_000, "text"), (100_000, "image"), (40_000, "blocks"), (30_000, "text")])
@example(mix=[(50_000, "persisted"), (50_000, "text"), (50_000, "text"), (50_000, "text"), (48_000, "text")])
def test_message_budget_replaces_largest_first(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], mix: list[tuple[int, str]]
) -> None:
    """The RESULT-3 property, stated below.

    RESULT-3: results each within their limit (as a string or a text block) but together over 200,000
    chars are brought within the budget by replacing the largest first, and no more than that takes: a
    replaced result is never smaller than one left in place, and putting the smallest replaced one back
    would break the budget. Together at or under the budget, nothing is replaced. Results the budget
    may not replace (with an image, of an unlimited tool, already persisted by their own limit) stay as
    they are and still count; when the largest result is one of them, the budget goes on to the next
    candidates, until the total is within it or no candidate is left.
    """
    tools = [budget_tool(i, n, kind) for i, (n, kind) in enumerate(mix)]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(mix))]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    check_pairing(run)
    by_id = run.results_by_id()
    sent = [content_chars(by_id[f"toolu_{i:02d}"]) for i in range(len(mix))]
    tagged = [TAG in text_of(by_id[f"toolu_{i:02d}"]) for i in range(len(mix))]
    for i, (n, kind) in enumerate(mix):
        if kind in ("image", "unlimited"):
            assert (tagged[i], sent[i]) == (False, n), f"the {n}-char {kind} result was replaced ({mix})"
        elif kind == "persisted":
            assert tagged[i], f"the result over its own {OWN_LIMIT}-char limit was not persisted ({mix})"
    images = sum(kind == "image" for _, kind in mix)
    candidates = {i: n for i, (n, kind) in enumerate(mix) if kind not in EXEMPT_KINDS}
    before = sum(candidates.values()) + sum(sent[i] for i in range(len(mix)) if i not in candidates)
    assume(not images or abs(before - MESSAGE_BUDGET) > IMAGE_SLACK * images)
    replaced = {i: n for i, n in candidates.items() if tagged[i]}
    kept = [n for i, n in candidates.items() if i not in replaced]
    total = sum(sent)
    if before <= MESSAGE_BUDGET:
        assert not replaced, (
            f"results totalling {before} chars, within the {MESSAGE_BUDGET} budget, had "
            f"{sorted(replaced.values())} replaced ({mix})"
        )
        return
    worth_replacing = [n for n in kept if n > 2 * PREVIEW_BYTES + 500]
    assert total <= MESSAGE_BUDGET or not worth_replacing, (
        f"the results total {total} chars, over the {MESSAGE_BUDGET} budget, yet candidates of "
        f"{sorted(worth_replacing)} chars stay inline ({mix})"
    )
    assert replaced, f"nothing was replaced although the budget was exceeded ({mix})"
    assert not kept or min(replaced.values()) >= max(kept), (
        f"not largest first: replaced results of {sorted(replaced.values())} chars but kept {sorted(kept)} ({mix})"
    )
    smallest = min(replaced, key=lambda i: (replaced[i], -i))
    restored = total - sent[smallest] + replaced[smallest]
    assert restored + IMAGE_SLACK * images > MESSAGE_BUDGET, (
        f"more was replaced than the budget needs: with the {replaced[smallest]}-char result left inline "
        f"the message would total {restored} chars, within {MESSAGE_BUDGET} ({mix})"
    )
