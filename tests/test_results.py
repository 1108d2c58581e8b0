"""Result mapping, the empty placeholder, persistence and budgets (RESULT-1..4, PAIR-4), on real files."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import ToolResultBlockParam
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import Tool, ToolOutput, build_tool
from reference_impl._wire import wire_json
from reference_impl.execution import (
    MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
    PERSISTED_OUTPUT_TAG,
    ContentReplacementState,
    apply_message_budget,
    content_size,
    format_size,
    map_tool_output,
    maybe_persist_large_result,
    rebuild_replacement_state,
    utf8_prefix,
)
from reference_impl.tools import UNLIMITED


async def _never_called(_input: Any, _context: Any) -> str:
    raise AssertionError("not called")


def make_tool(name: str = "Bash", limit: float = 50_000) -> Tool:
    return build_tool(
        name, "a tool", _never_called, input_json_schema={"type": "object"}, max_result_size_chars=limit
    )


def result(tool_use_id: str, content: Any, **extra: Any) -> ToolResultBlockParam:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, **extra}  # type: ignore[typeddict-item]


def saved_path(replacement: str) -> Path:
    line = replacement.splitlines()[1]
    return Path(line.split("Full output saved to: ", 1)[1])


# Text with 1- to 4-byte characters, emoji included.
unicode_text = st.text(
    alphabet=st.one_of(st.sampled_from("aé€😀🧪\n "), st.characters(codec="utf-8")), min_size=0, max_size=400
)


# -- preview and size ---------------------------------------------------------------------------


@given(text=unicode_text, max_bytes=st.integers(0, 60))
def test_utf8_prefix_never_splits_a_character(text, max_bytes):
    """RESULT-1: the preview is the longest prefix whose UTF-8 fits the byte limit; it never splits a
    multi-byte character (so it is always valid UTF-8)."""
    prefix = utf8_prefix(text, max_bytes)
    assert text.startswith(prefix)
    encoded = prefix.encode("utf-8")  # strict: raises on anything invalid
    assert len(encoded) <= max_bytes
    if prefix != text:
        assert len(encoded) + len(text[len(prefix)].encode("utf-8")) > max_bytes


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1280, "1.3KB"),  # 1.25 rounds half up, as JavaScript's toFixed does
        (1536, "1.5KB"),
        (2000, "2KB"),
        (120_000, "117.2KB"),
        (1024 * 1024, "1MB"),
        (5 * 1024**3, "5GB"),
    ],
)
def test_format_size(size, expected):
    assert format_size(size) == expected


# -- per-tool persistence -------------------------------------------------------------------------


def test_large_result_is_saved_whole_and_replaced_with_the_exact_block(tmp_path):
    """RESULT-1: over the limit, the result is saved to tool-results/<id>.txt and replaced by the
    persisted-output block with size, path and a 2,000-byte preview."""
    text = "x" * 120_000
    state = ContentReplacementState()
    out = maybe_persist_large_result(result("toolu_big", text), make_tool(), tmp_path, state)
    path = tmp_path.absolute() / "tool-results" / "toolu_big.txt"
    assert out["content"] == (
        "<persisted-output>\nOutput too large (117.2KB). Full output saved to: "
        f"{path}\n\nPreview (first 2KB):\n{'x' * 2000}\n</persisted-output>"
    )
    assert path.read_text(encoding="utf-8") == text
    assert state.replacements == {"toolu_big": out["content"]}
    assert [p.name for p in path.parent.iterdir()] == ["toolu_big.txt"]  # no temp file left behind


@settings(max_examples=60, deadline=None)
@given(text=unicode_text.filter(lambda t: len(t) > 50 and t.strip()), limit=st.integers(1, 50))
def test_persisted_file_holds_the_whole_output(text, limit):
    """RESULT-1: any text over the limit is saved whole (byte for byte) and the preview is the file's
    first <= 2,000 bytes cut on a character boundary. Nothing is silently truncated."""
    with tempfile.TemporaryDirectory() as tmp:
        out = maybe_persist_large_result(
            result("toolu_1", text), make_tool(limit=limit), Path(tmp), ContentReplacementState()
        )
        replacement = out["content"]
        assert isinstance(replacement, str)
        assert replacement.startswith(PERSISTED_OUTPUT_TAG + "\n")
        path = saved_path(replacement)
        assert path.read_bytes() == text.encode("utf-8")
        preview = replacement.split("Preview (first 2KB):\n", 1)[1].removesuffix("\n</persisted-output>")
        assert preview == utf8_prefix(text, 2000)


def test_json_content_is_compact_json_and_saved_as_json(tmp_path):
    """A JSON output becomes compact wire JSON text; when large, it is saved as .json."""
    value = {"rows": [{"n": i, "name": "é"} for i in range(3000)]}
    mapped = map_tool_output("Query", ToolOutput(content=value), "toolu_j")
    assert mapped["content"] == wire_json(value)
    out = maybe_persist_large_result(mapped, make_tool("Query"), tmp_path, ContentReplacementState())
    path = saved_path(str(out["content"]))
    assert path.name == "toolu_j.json"
    assert path.read_text(encoding="utf-8") == wire_json(value)


def test_block_content_is_saved_as_json(tmp_path):
    blocks = [{"type": "text", "text": "y" * 60_000}]
    out = maybe_persist_large_result(
        result("toolu_b", blocks), make_tool(), tmp_path, ContentReplacementState()
    )
    assert saved_path(str(out["content"])).read_text(encoding="utf-8") == wire_json(blocks)


@pytest.mark.parametrize(
    "content",
    [
        [
            {"type": "text", "text": "z" * 60_000},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        ],
        [{"type": "text", "text": "z" * 60_000}, {"type": "tool_reference", "tool_name": "mcp__x__y"}],
    ],
)
def test_results_with_images_or_tool_references_are_never_persisted(tmp_path, content):
    """RESULT-2: a result holding an image (or a tool_reference) passes unchanged, whatever its size."""
    state = ContentReplacementState()
    item = result("toolu_img", content)
    assert maybe_persist_large_result(item, make_tool(), tmp_path, state) == item
    assert apply_message_budget([item], state, tmp_path, limit=10) == [item]
    assert not (tmp_path / "tool-results").exists()


def test_unlimited_tools_are_never_persisted(tmp_path):
    """RESULT-2: a tool with max_result_size_chars = inf (Read-like) is exempt."""
    item = result("toolu_read", "r" * 300_000)
    assert math.inf == UNLIMITED
    assert (
        maybe_persist_large_result(item, make_tool("Read", UNLIMITED), tmp_path, ContentReplacementState())
        == item
    )


def test_a_different_existing_file_is_never_overwritten(tmp_path):
    folder = tmp_path / "tool-results"
    folder.mkdir()
    (folder / "toolu_x.txt").write_text("someone else's", encoding="utf-8")
    with pytest.raises(FileExistsError, match="refusing to overwrite"):
        maybe_persist_large_result(
            result("toolu_x", "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
        )
    assert (folder / "toolu_x.txt").read_text(encoding="utf-8") == "someone else's"
    (folder / "toolu_x.txt").write_text("q" * 60_000, encoding="utf-8")  # the same bytes: fine
    out = maybe_persist_large_result(
        result("toolu_x", "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
    )
    assert str(out["content"]).startswith(PERSISTED_OUTPUT_TAG)
    assert sorted(p.name for p in folder.iterdir()) == ["toolu_x.txt"]


def test_without_hard_links_a_result_is_renamed_into_place_and_never_overwrites(tmp_path, monkeypatch):
    """A file system without hard links (os.link fails with OSError): check, then an atomic rename."""
    import os

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(os, "link", no_links)
    folder = tmp_path / "tool-results"
    out = maybe_persist_large_result(
        result("toolu_n", "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
    )
    assert str(out["content"]).startswith(PERSISTED_OUTPUT_TAG)
    assert (folder / "toolu_n.txt").read_text(encoding="utf-8") == "q" * 60_000
    again = maybe_persist_large_result(
        result("toolu_n", "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
    )
    assert again == out  # the same bytes already there: fine
    (folder / "toolu_n.txt").write_text("someone else's", encoding="utf-8")
    with pytest.raises(FileExistsError, match="refusing to overwrite"):
        maybe_persist_large_result(
            result("toolu_n", "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
        )
    assert (folder / "toolu_n.txt").read_text(encoding="utf-8") == "someone else's"
    assert sorted(p.name for p in folder.iterdir()) == ["toolu_n.txt"]  # no temporary file left


@pytest.mark.parametrize("bad_id", ["../escape", "a/b", "", "toolu 1"])
def test_unsafe_ids_are_refused(tmp_path, bad_id):
    with pytest.raises(ValueError, match="tool_use_id"):
        maybe_persist_large_result(
            result(bad_id, "q" * 60_000), make_tool(), tmp_path, ContentReplacementState()
        )


# -- empty output placeholder ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "content", ["", "   \n\t", [], [{"type": "text", "text": ""}, {"type": "text", "text": "  "}]]
)
def test_empty_output_gets_the_placeholder(tmp_path, content):
    """PAIR-4: empty, whitespace-only, [] and all-blank text blocks become '(<Tool> completed with no output)'."""
    mapped = map_tool_output("Bash", ToolOutput(content=content), "toolu_e")
    assert mapped == {
        "type": "tool_result",
        "tool_use_id": "toolu_e",
        "content": "(Bash completed with no output)",
    }
    raw = result("toolu_e", content)
    out = maybe_persist_large_result(raw, make_tool("Bash"), tmp_path, ContentReplacementState())
    assert out["content"] == "(Bash completed with no output)"


def test_empty_error_says_it_failed():
    """PAIR-3, PAIR-4: an empty error output still tells the model something went wrong."""
    mapped = map_tool_output("Bash", ToolOutput(content="", is_error=True), "toolu_e")
    assert mapped == {
        "type": "tool_result",
        "tool_use_id": "toolu_e",
        "content": "(Bash failed with no output)",
        "is_error": True,
    }


def test_non_empty_outputs_are_kept():
    assert map_tool_output("T", "hi", "toolu_1")["content"] == "hi"
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    assert map_tool_output("T", ToolOutput(content=[image]), "toolu_1")["content"] == [image]
    with pytest.raises(ValueError, match="block 0"):
        map_tool_output("T", ToolOutput(content=["not a block"]), "toolu_1")  # type: ignore[list-item]


# -- per-message budget and frozen decisions ------------------------------------------------------

# Mostly large results so that many messages go over the 200,000 budget.
sizes_strategy = st.lists(
    st.one_of(st.integers(0, 3_000), st.integers(20_000, 49_999), st.just(49_999)), min_size=1, max_size=10
)


def results_of(sizes: list[int], prefix: str = "toolu_") -> list[ToolResultBlockParam]:
    return [
        result(f"{prefix}{i:02d}", chr(ord("a") + i % 26) * size + "é" * (size > 0))
        for i, size in enumerate(sizes)
    ]


@settings(max_examples=40, deadline=None)
@given(sizes=sizes_strategy)
def test_message_budget_replaces_largest_first(sizes):
    """RESULT-3: after the budget, a message's tool_results total <= 200,000 characters; every replaced
    result is at least as large as every kept one; each replaced result's file holds it whole."""
    with tempfile.TemporaryDirectory() as tmp:
        originals = results_of(sizes)
        out = apply_message_budget(originals, ContentReplacementState(), Path(tmp))
        assert sum(content_size(r["content"]) for r in out) <= MAX_TOOL_RESULTS_PER_MESSAGE_CHARS
        replaced = [o for o, r in zip(originals, out, strict=True) if r["content"] != o["content"]]
        kept = [o for o, r in zip(originals, out, strict=True) if r["content"] == o["content"]]
        if replaced:
            assert min(len(str(o["content"])) for o in replaced) >= max(
                (len(str(o["content"])) for o in kept), default=0
            )
        for original, new in zip(originals, out, strict=True):
            if new["content"] != original["content"]:
                assert saved_path(str(new["content"])).read_text(encoding="utf-8") == original["content"]
        if sum(content_size(r["content"]) for r in originals) <= MAX_TOOL_RESULTS_PER_MESSAGE_CHARS:
            assert out == originals


@settings(max_examples=30, deadline=None)
@given(sizes=sizes_strategy, big=st.integers(50_001, 120_000))
def test_frozen_decisions_resend_identical_bytes_and_survive_resume(sizes, big):
    """RESULT-4: applying the per-tool limit and the budget again with the same state gives identical
    bytes (and writes nothing new); the state rebuilt from the transcript equals the original and gives
    the same bytes too."""
    with tempfile.TemporaryDirectory() as tmp:
        session = Path(tmp)
        tool = make_tool()
        raw = [*results_of(sizes), result("toolu_big", "B" * big)]

        def pipeline(state: ContentReplacementState) -> list[ToolResultBlockParam]:
            return apply_message_budget(
                [maybe_persist_large_result(r, tool, session, state) for r in raw], state, session
            )

        state = ContentReplacementState()
        first = pipeline(state)
        files = {p: p.read_bytes() for p in (session / "tool-results").iterdir()}
        again = pipeline(state)
        assert wire_json(again) == wire_json(first)
        # The budget alone, on the raw results, re-applies its own frozen decisions too.
        budget_again = apply_message_budget(raw, state, session)
        for new, old in zip(budget_again, first, strict=True):
            if new["tool_use_id"] in state.replacements:
                assert wire_json(new) == wire_json(old)
        assert {p: p.read_bytes() for p in (session / "tool-results").iterdir()} == files

        transcript: list[Any] = [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": r["tool_use_id"], "name": "Bash", "input": {}} for r in raw
                ],
            },
            {"role": "user", "content": first},
        ]
        rebuilt = rebuild_replacement_state(transcript)
        assert rebuilt == state
        assert wire_json(pipeline(rebuilt)) == wire_json(first)


def test_a_result_seen_and_kept_is_never_replaced_later(tmp_path):
    """RESULT-4: a decision to keep a result is frozen; a later budget pass replaces only fresh results."""
    state = ContentReplacementState()
    a = result("toolu_a", "a" * 150_000)
    assert apply_message_budget([a], state, tmp_path) == [a]
    b = result("toolu_b", "b" * 100_000)
    out = apply_message_budget([a, b], state, tmp_path)
    assert out[0] == a
    assert str(out[1]["content"]).startswith(PERSISTED_OUTPUT_TAG)
    assert state.seen_ids == {"toolu_a", "toolu_b"}


def test_exempt_ids_are_never_replaced(tmp_path):
    """RESULT-2/3: ids the caller marks exempt are left alone; the next largest fresh one is replaced."""
    items = [result("toolu_a", "a" * 120_000), result("toolu_b", "b" * 90_000)]
    out = apply_message_budget(items, ContentReplacementState(), tmp_path, exempt_ids={"toolu_a"})
    assert out[0] == items[0]
    assert str(out[1]["content"]).startswith(PERSISTED_OUTPUT_TAG)


def test_duplicate_ids_in_one_message_are_refused(tmp_path):
    with pytest.raises(ValueError, match="toolu_a"):
        apply_message_budget(
            [result("toolu_a", "x"), result("toolu_a", "y")], ContentReplacementState(), tmp_path
        )


def test_a_frozen_replacement_can_not_change():
    state = ContentReplacementState()
    state.record("toolu_a", "one")
    state.record("toolu_a", "one")
    with pytest.raises(ValueError, match="toolu_a"):
        state.record("toolu_a", "two")
