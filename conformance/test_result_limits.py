"""Large results at their boundaries: RESULT-1 at exactly the limit, RESULT-2 with images anywhere.

``test_results.py`` states RESULT-1..3 on sizes far from the limits and on one leading image; these
tests draw the values a one-character or one-block slip gets wrong: a size one under, exactly at
and one over the limit ("over" is strict), and images in any position, several at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import execute, ok_tool, scenario_root, text_of, tool_use
from pytest_toolharness.adapters import CAPABILITIES, requires
from pytest_toolharness.specs import RuleSpec, ToolBehavior, ToolSpec, mcp_tool_name

TAG = "<persisted-output>"

# One character of each UTF-8 length: the limit counts characters, not bytes.
fills = st.sampled_from(["a", "é", "日", "🚀"])

IMAGE_BLOCK: Mapping[str, Any] = {
    "type": "image",
    "source": {
        "type": "base64",
        "media_type": "image/png",
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    },
}


def _allow(tools: Sequence[ToolSpec], adapter: Any) -> list[RuleSpec]:
    """An allow rule per tool, unless the adapter says it has no permission engine (then none)."""
    if "permissions" in CAPABILITIES and "permissions" not in frozenset(getattr(adapter, "capabilities", ())):
        return []
    return [RuleSpec(t.name, "allow") for t in tools]


def _run_one(new_harness: Callable[[], Any], adapter: Any, tool: ToolSpec, root: Any) -> Mapping[str, Any]:
    run = execute(
        new_harness(),
        root,
        [tool],
        [tool_use("toolu_edge", tool.name, {"n": 1})],
        rules=_allow([tool], adapter),
    )
    return run.results_by_id()["toolu_edge"]


# RESULT-1 is the check of persistence itself, so it needs no result_persistence capability: a harness
# without persistence is judged, not skipped (a core MUST has a default limit).
@requires("execution")
@pytest.mark.requirement("RESULT-1", "MUST")
@settings(max_examples=12, deadline=None)
@given(
    fill=fills,
    offset=st.sampled_from([-1, 0, 1]),
    limit=st.sampled_from([None, 1, 2_500, 3_000]),
    as_blocks=st.booleans(),
    declared=st.sampled_from(["built-in", "nothing", "MCP"]),
)
@example(fill="a", offset=0, limit=3_000, as_blocks=False, declared="built-in")
@example(fill="日", offset=0, limit=None, as_blocks=False, declared="built-in")
@example(fill="a", offset=1, limit=3_000, as_blocks=False, declared="built-in")
@example(fill="🚀", offset=1, limit=None, as_blocks=False, declared="built-in")
@example(fill="a", offset=0, limit=3_000, as_blocks=True, declared="built-in")
@example(fill="日", offset=1, limit=3_000, as_blocks=True, declared="built-in")
@example(fill="a", offset=0, limit=None, as_blocks=False, declared="nothing")
@example(fill="a", offset=1, limit=None, as_blocks=False, declared="nothing")
@example(fill="a", offset=0, limit=1, as_blocks=False, declared="built-in")
@example(fill="a", offset=1, limit=1, as_blocks=False, declared="MCP")
@example(fill="é", offset=1, limit=2_500, as_blocks=False, declared="MCP")
def test_result_at_the_limit_is_sent_one_over_is_persisted(
    new_harness: Callable[[], Any],
    toolharness_adapter: Any,
    fill: str,
    offset: int,
    limit: int | None,
    as_blocks: bool,
    declared: str,
) -> None:
    """The RESULT-1 property at its boundary, stated below.

    RESULT-1: "over the limit" is strict: a result of exactly the tool's limit in characters
    (default 50,000), or one under, is sent as it is and no file is written; one character more is
    saved to a file and replaced by a ``<persisted-output>`` block. Characters, not bytes, are counted,
    whether the output is a string or text blocks (two here, the limit counts them together). The
    limit is the tool's own, down to one character, whether a built-in tool declares it or an MCP
    server lists it (``_meta``); a tool that declares nothing (``declared="nothing"``, ``limit`` unused)
    has the default.
    """
    size_limit = 50_000 if limit is None or declared == "nothing" else limit
    chars = size_limit + offset
    # A one-character limit: no empty output (PAIR-4 replaces it) and no empty text block.
    assume(chars >= (2 if as_blocks else 1))
    output = fill * chars
    flags: dict[str, Any] = {} if limit is None else {"max_result_size_chars": limit}
    if declared == "nothing":
        flags = {"declares_nothing": True}
    elif declared == "MCP":
        flags |= {"name": mcp_tool_name("srv", "alpha"), "mcp_server": "srv", "mcp_tool": "alpha"}
    half = chars // 2
    behavior = (
        ToolBehavior(
            "json", value=[{"type": "text", "text": output[:half]}, {"type": "text", "text": output[half:]}]
        )
        if as_blocks
        else ToolBehavior("text", text=output)
    )
    tool = replace(ok_tool("Alpha", behavior), **flags)
    with scenario_root() as root:
        text = text_of(_run_one(new_harness, toolharness_adapter, tool, root))
        written = [p for p in (root / "session").rglob("*") if p.is_file()]
    if as_blocks:
        text = text.replace("\n", "")  # text_of joins the blocks with line breaks; the fills have none
    if offset <= 0:
        assert text == output, (
            f"a result of {chars} chars ({fill!r}), within the {size_limit}-char limit, was changed: {text[:200]!r}"
        )
        assert not written, f"a file was written for a result within the limit: {written}"
    else:
        assert TAG in text, (
            f"a result of {chars} chars, one over the {size_limit}-char limit, was not persisted"
        )


def _blocks_with_images(output: str, positions: Sequence[int]) -> list[dict[str, Any]]:
    """``output`` cut into three text blocks, with an image inserted before text block ``i`` per ``i`` in ``positions``.

    Position 3 is after the last text block; a position drawn twice gives two adjacent images.
    """
    third = len(output) // 3
    chunks = [output[:third], output[third : 2 * third], output[2 * third :]]
    blocks: list[dict[str, Any]] = []
    for index in range(len(chunks) + 1):
        blocks += [dict(IMAGE_BLOCK) for position in positions if position == index]
        if index < len(chunks):
            blocks.append({"type": "text", "text": chunks[index]})
    return blocks


@requires("execution", "result_persistence")
@pytest.mark.requirement("RESULT-2", "MUST")
@settings(max_examples=8, deadline=None)
@given(
    fill=fills,
    positions=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    chars=st.integers(55_000, 70_000),
)
@example(fill="a", positions=[1], chars=55_000)
@example(fill="a", positions=[3, 3], chars=55_000)
@example(fill="日", positions=[0, 2], chars=60_000)
def test_result_with_images_anywhere_is_not_persisted(
    new_harness: Callable[[], Any], toolharness_adapter: Any, fill: str, positions: list[int], chars: int
) -> None:
    """The RESULT-2 property for every layout of images, stated below.

    RESULT-2: a result holding an image is never persisted, wherever the image is among its content
    blocks (first, between text blocks, last) and however many there are: the blocks reach the model
    in their order, every text block unchanged, and no file is written.
    """
    blocks = _blocks_with_images(fill * chars, positions)
    layout = [b["type"] for b in blocks]
    tool = ok_tool("Alpha", ToolBehavior("json", value=blocks))
    with scenario_root() as root:
        result = _run_one(new_harness, toolharness_adapter, tool, root)
        written = [p for p in (root / "session").rglob("*") if p.is_file()]
    assert TAG not in text_of(result), f"a result of {chars} chars with blocks {layout} was persisted"
    content = result.get("content")
    sent = content if isinstance(content, list) else []
    assert [b.get("type") for b in sent] == layout, (
        f"the blocks {layout} were sent as {[b.get('type') for b in sent]}"
    )
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert [b.get("text") for b in sent if b.get("type") == "text"] == texts, (
        f"a text block of {layout} was changed"
    )
    assert not written, f"a file was written for a result with blocks {layout}: {written}"


# Whitespace the API does not count as text (a text block of only these is rejected), alone and mixed.
blank_texts = st.lists(st.sampled_from([" ", "\n", "\t", "\r\n", "  "]), min_size=1, max_size=4).map("".join)


@requires("execution")
@pytest.mark.requirement("PAIR-4", "MUST")
@settings(max_examples=8, deadline=None)
@given(blank=blank_texts, as_blocks=st.booleans())
@example(blank=" ", as_blocks=False)
@example(blank="\n\t", as_blocks=True)
def test_whitespace_only_output_gets_placeholder(
    new_harness: Callable[[], Any], toolharness_adapter: Any, blank: str, as_blocks: bool
) -> None:
    """The PAIR-4 property for whitespace, stated below.

    PAIR-4: output that is only whitespace, as a string or as text blocks, is empty: the
    tool_result carries a placeholder with visible text instead, and is not an error.
    """
    value: Any = [{"type": "text", "text": blank}, {"type": "text", "text": blank}] if as_blocks else blank
    behavior = ToolBehavior("json", value=value) if as_blocks else ToolBehavior("text", text=blank)
    tool = ok_tool("Alpha", behavior)
    with scenario_root() as root:
        result = _run_one(new_harness, toolharness_adapter, tool, root)
    assert text_of(result).strip(), (
        f"whitespace-only output {blank!r} was sent without visible text: {result}"
    )
    assert result.get("is_error") is not True, f"whitespace-only output {blank!r} became an error: {result}"


@requires("execution")
@pytest.mark.requirement("PAIR-4", "MUST")
@settings(max_examples=3, deadline=None)
@given(images=st.integers(1, 3))
@example(images=1)
def test_image_only_output_is_not_empty(
    new_harness: Callable[[], Any], toolharness_adapter: Any, images: int
) -> None:
    """The PAIR-4 property's other side, stated below.

    PAIR-4: only empty output is replaced by the placeholder. A result of one to three image blocks
    and no text is not empty: every image is sent, and nothing replaces it.
    """
    tool = ok_tool("Alpha", ToolBehavior("json", value=[dict(IMAGE_BLOCK) for _ in range(images)]))
    with scenario_root() as root:
        result = _run_one(new_harness, toolharness_adapter, tool, root)
    content = result.get("content")
    sent = [b.get("type") for b in content] if isinstance(content, list) else [content]
    assert sent == ["image"] * images, f"a result of {images} image block(s) was sent as {sent}"


# RESULT-1 is the check of persistence itself, so it needs no result_persistence capability: a harness
# without persistence is judged, not skipped (a core MUST has a default limit).
@requires("execution")
@pytest.mark.requirement("RESULT-1", "MUST")
@settings(max_examples=3, deadline=None)
@given(shape=st.sampled_from(["object", "array"]), over=st.integers(1, 500))
@example(shape="object", over=1)
def test_json_text_over_the_limit_is_saved_whole(
    new_harness: Callable[[], Any], toolharness_adapter: Any, shape: str, over: int
) -> None:
    """The RESULT-1 property for output that is a JSON document, stated below.

    RESULT-1: a text output over the limit that happens to be JSON (an object or an array) is saved
    whole to one file named by its tool_use id, byte for byte, like any other text.
    """
    limit = 3_000
    items = [f"item-{i:05d}" for i in range((limit + over) // 12 + 1)]
    output = json.dumps({"items": items} if shape == "object" else items)
    tool = ok_tool("Alpha", ToolBehavior("text", text=output), max_result_size_chars=limit)
    with scenario_root() as root:
        text = text_of(_run_one(new_harness, toolharness_adapter, tool, root))
        written = [p for p in (root / "session").rglob("*") if p.is_file() and "toolu_edge" in p.name]
        saved = [p.read_bytes().decode("utf-8") for p in written]
    assert TAG in text, f"a {len(output)}-char JSON {shape} over the {limit}-char limit was not persisted"
    assert saved == [output], f"the JSON {shape} was not saved whole to one file named by its id: {written}"


PREVIEW_BYTES = 2_000


# RESULT-1 is the check of persistence itself, so it needs no result_persistence capability: a harness
# without persistence is judged, not skipped (a core MUST has a default limit).
@requires("execution")
@pytest.mark.requirement("RESULT-1", "MUST")
@settings(max_examples=4, deadline=None)
@given(fill=fills, whole=st.booleans())
@example(fill="a", whole=False)
@example(fill="🚀", whole=False)
@example(fill="a", whole=True)  # exactly 2,000 bytes: the preview is all of it
@example(fill="🚀", whole=True)
def test_preview_is_the_longest_prefix_within_2000_bytes(
    new_harness: Callable[[], Any], toolharness_adapter: Any, fill: str, whole: bool
) -> None:
    """The RESULT-1 preview at its boundary, stated below.

    RESULT-1: the preview is the output's longest prefix that fits in 2,000 bytes without cutting a
    character: with characters of k UTF-8 bytes, exactly 2,000 // k of them, not one fewer; an
    output over its limit but of at most 2,000 bytes is previewed whole.
    """
    count = PREVIEW_BYTES // len(fill.encode("utf-8"))
    output = fill * (count if whole else 3_001)
    limit = count - 1 if whole else 3_000
    tool = ok_tool("Alpha", ToolBehavior("text", text=output), max_result_size_chars=limit)
    with scenario_root() as root:
        text = text_of(_run_one(new_harness, toolharness_adapter, tool, root))
    assert TAG in text, f"a {len(output)}-char output over its {limit}-char limit was not persisted"
    assert output[:count] in text, f"the preview holds fewer than {count} {fill!r} ({PREVIEW_BYTES} bytes)"
    assert (fill * (count + 1)) not in text, (
        f"the preview holds more than {count} {fill!r} ({PREVIEW_BYTES} bytes)"
    )
