"""Wire checks on hand-made request sequences: each passes a good sequence and names the fault in a bad one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness.wire import checks
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ToolUseBlock
from reference_impl._wire import wire_bytes

TOOL_A = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object", "properties": {}}}
TOOL_B = {"name": "Bash", "description": "Run.", "input_schema": {"type": "object", "properties": {}}}
MCP_X = {"name": "mcp__s__x", "description": "X.", "input_schema": {"type": "object", "properties": {}}}
MCP_Y = {"name": "mcp__s__y", "description": "Y.", "input_schema": {"type": "object", "properties": {}}}
PROMPT = {"role": "user", "content": [{"type": "text", "text": "go", "cache_control": {"type": "ephemeral"}}]}


def req(
    index: int,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    *,
    turn: AssistantTurn | None = None,
    status: int = 200,
    beta: str = "",
    system: Any = None,
) -> RecordedRequest:
    body: dict[str, Any] = {"model": "m", "max_tokens": 10, "messages": messages}
    if tools is not None:
        body["tools"] = tools
    if system is not None:
        body["system"] = system
    raw = wire_bytes(body)
    headers = {"anthropic-beta": beta} if beta else {}
    return RecordedRequest(
        index, "POST", "/v1/messages", {}, headers, raw, json.loads(raw), status=status, turn=turn
    )


def use(tool_id: str, name: str = "Read") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {}}


def result(tool_id: str, content: Any = "ok", *, is_error: bool | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def turn(*ids: str) -> AssistantTurn:
    return AssistantTurn(tuple(ToolUseBlock(i, "Read", {}) for i in ids))


def conversation(
    results: list[dict[str, Any]], ids: tuple[str, ...] = ("toolu_a", "toolu_b")
) -> list[RecordedRequest]:
    """Request 0 gets tool_uses ``ids``; request 1 answers them with ``results``."""
    first = req(0, [PROMPT], [TOOL_A], turn=turn(*ids))
    second = req(
        1,
        [
            PROMPT,
            {"role": "assistant", "content": [use(i) for i in ids]},
            {"role": "user", "content": results},
        ],
        [TOOL_A],
        turn=AssistantTurn((TextBlock("done"),)),
    )
    return [first, second]


GOOD = conversation([result("toolu_a"), result("toolu_b")])


def test_pairing_good_and_missing_result() -> None:
    assert checks.check_pairing(GOOD) == []
    problems = checks.check_pairing(conversation([result("toolu_a")]))
    assert any("toolu_b has 0 tool_result" in p for p in problems), problems


def test_pairing_no_further_request() -> None:
    problems = checks.check_pairing(GOOD[:1])
    assert problems
    assert "never got results" in problems[0]
    assert "toolu_a, toolu_b" in problems[0]


def test_pairing_results_not_first() -> None:
    problems = checks.check_pairing(
        conversation([{"type": "text", "text": "hi"}, result("toolu_a"), result("toolu_b")])
    )
    assert any("not first" in p for p in problems), problems


def test_pairing_dropped_assistant_turn() -> None:
    second = req(
        1, [PROMPT, {"role": "assistant", "content": "nothing"}, {"role": "user", "content": "x"}], [TOOL_A]
    )
    problems = checks.check_pairing([GOOD[0], second])
    assert any("lacks the assistant turn with tool_use toolu_a" in p for p in problems), problems


@settings(max_examples=30, deadline=None)
@given(data=st.data(), count=st.integers(1, 5))
def test_pairing_property(data: st.DataObject, count: int) -> None:
    """PAIR-1: any order of exactly one result per id passes; dropping one names exactly that id."""
    ids = tuple(f"toolu_{n}" for n in range(count))
    order = data.draw(st.permutations(ids))
    assert checks.check_pairing(conversation([result(i) for i in order], ids)) == []
    dropped = data.draw(st.sampled_from(ids))
    problems = checks.check_pairing(conversation([result(i) for i in order if i != dropped], ids))
    assert any(dropped in p for p in problems), problems


def test_accepted_takes_system_messages_with_or_without_a_beta() -> None:
    system: dict[str, Any] = {"role": "system", "content": "reminder"}
    messages: list[dict[str, Any]] = [PROMPT, system]
    assert checks.check_accepted([req(0, messages, [TOOL_A], beta="per-turn-control-2026-07-01")]) == []
    assert checks.check_accepted([req(0, messages, [TOOL_A])]) == []
    bad = {"role": "system", "content": [result("toolu_a")]}
    problems = checks.check_accepted([req(0, [PROMPT, bad], [TOOL_A])])
    assert problems
    assert "would reject" in problems[0]
    assert "may hold only text blocks" in problems[0]


def test_pairing_and_order_look_through_system_messages() -> None:
    """A system message between a tool_use turn and its results (or before it) changes no verdict."""
    note = {"role": "system", "content": [{"type": "text", "text": "per-turn note"}]}
    first = req(0, [PROMPT, note], [TOOL_A], turn=turn("toolu_a", "toolu_b"))
    messages = [
        PROMPT,
        note,
        {"role": "assistant", "content": [use("toolu_a"), use("toolu_b")]},
        note,
        {"role": "user", "content": [result("toolu_a"), result("toolu_b")]},
    ]
    second = req(1, messages, [TOOL_A], turn=AssistantTurn((TextBlock("done"),)))
    assert checks.check_pairing([first, second]) == []
    assert checks.check_result_order([first, second]) == []
    messages[4] = {"role": "user", "content": [result("toolu_b"), result("toolu_a")]}
    swapped = req(1, messages, [TOOL_A], turn=AssistantTurn((TextBlock("done"),)))
    problems = checks.check_result_order([first, swapped])
    assert problems
    assert "['toolu_b', 'toolu_a']" in problems[0]


def test_answered_and_error_results() -> None:
    requests = conversation([result("toolu_a", "boom", is_error=True), result("toolu_b", "fine")])
    assert checks.check_answered(requests, ["toolu_a", "toolu_b"]) == []
    assert checks.check_answered(requests, ["toolu_c"]) == [
        "tool_use toolu_c got 0 tool_result blocks, expected exactly 1"
    ]
    assert checks.check_error_results(requests, ["toolu_a"]) == []
    problems = checks.check_error_results(requests, ["toolu_b"])
    assert problems
    assert "is_error=None" in problems[0]
    empty_error = conversation([result("toolu_a", "", is_error=True), result("toolu_b")])
    assert "no text" in checks.check_error_results(empty_error, ["toolu_a"])[0]
    # A failure's own words must reach the model, not a bare "error".
    assert checks.check_error_results(requests, ["toolu_a"], {"toolu_a": "boom"}) == []
    bare = conversation([result("toolu_a", "MCP tool error", is_error=True)])
    (problem,) = checks.check_error_results(bare, ["toolu_a"], {"toolu_a": "boom"})
    assert "failed with 'boom' but its tool_result does not say so" in problem


def test_nonempty_results() -> None:
    assert checks.check_nonempty_results(GOOD) == []
    for empty in ("", [], [{"type": "text", "text": ""}]):
        problems = checks.check_nonempty_results(conversation([result("toolu_a", empty), result("toolu_b")]))
        assert len(problems) == 1, (empty, problems)
        assert "toolu_a" in problems[0], (empty, problems)


def test_result_order() -> None:
    assert checks.check_result_order(GOOD) == []
    problems = checks.check_result_order(conversation([result("toolu_b"), result("toolu_a")]))
    assert problems
    assert "toolu_b" in problems[0]


def test_unique_names() -> None:
    assert checks.check_unique_names(GOOD) == []
    assert (
        "duplicate tool names ['Read']" in checks.check_unique_names([req(0, [PROMPT], [TOOL_A, TOOL_A])])[0]
    )
    repeated = req(1, [PROMPT, {"role": "assistant", "content": [use("t1"), use("t1")]}], [TOOL_A])
    assert "repeated tool_use ids ['t1']" in checks.check_unique_names([repeated])[0]


def deferred(tool: dict[str, Any]) -> dict[str, Any]:
    return {**tool, "defer_loading": True}


def referencing(name: str) -> list[dict[str, Any]]:
    ref = result("toolu_s", [{"type": "tool_reference", "tool_name": name}])
    return [
        PROMPT,
        {"role": "assistant", "content": [use("toolu_s", "ToolSearch")]},
        {"role": "user", "content": [ref]},
    ]


def test_defer_loading() -> None:
    good = [req(0, [PROMPT], [TOOL_A, deferred(MCP_X)]), req(1, referencing("mcp__s__x"), [TOOL_A, MCP_X])]
    assert checks.check_defer_loading(good, ["mcp__s__x"]) == []
    early = [req(0, [PROMPT], [TOOL_A, MCP_X])]
    assert "without defer_loading" in checks.check_defer_loading(early, ["mcp__s__x"])[0]
    all_deferred = [req(0, [PROMPT], [deferred(MCP_X)])]
    assert "every tool has defer_loading" in checks.check_defer_loading(all_deferred, [])[0]
    cached = [req(0, [PROMPT], [TOOL_A, {**deferred(MCP_X), "cache_control": {"type": "ephemeral"}}])]
    assert "has cache_control" in checks.check_defer_loading(cached, [])[0]


def test_deferred_names_listed() -> None:
    listed = [req(0, [PROMPT], [TOOL_A], system="Deferred tools: mcp__s__x")]
    assert checks.check_deferred_names_listed(listed, ["mcp__s__x"]) == []
    in_full = [req(0, [PROMPT], [TOOL_A, MCP_X])]
    assert checks.check_deferred_names_listed(in_full, ["mcp__s__x"]) == []
    hidden = [req(0, [PROMPT], [TOOL_A, deferred(MCP_X)])]
    assert "mcp__s__x is named nowhere" in checks.check_deferred_names_listed(hidden, ["mcp__s__x"])[0]
    assert "no main-loop request" in checks.check_deferred_names_listed([], ["mcp__s__x"])[0]


def test_tool_references_and_selected() -> None:
    good = [req(1, referencing("mcp__s__x"), [TOOL_A, deferred(MCP_X)])]
    assert checks.check_tool_references(good) == []
    assert checks.check_selected(good, "toolu_s", ["mcp__s__x"]) == []
    assert "did not return mcp__s__y" in checks.check_selected(good, "toolu_s", ["mcp__s__y"])[0]
    bad = [req(1, referencing("mcp__s__x"), [TOOL_A])]
    assert "tool_reference 'mcp__s__x' is not in its tools array" in checks.check_tool_references(bad)[0]


def test_tool_search_mode() -> None:
    full = [req(0, [PROMPT], [TOOL_A, MCP_X])]
    assert checks.check_tool_search_mode(full, ["mcp__s__x"], enabled=False) == []
    assert "is sent in full" in checks.check_tool_search_mode(full, ["mcp__s__x"], enabled=True)[0]
    hidden = [req(0, [PROMPT], [TOOL_A])]
    assert checks.check_tool_search_mode(hidden, ["mcp__s__x"], enabled=True) == []
    assert "is missing" in checks.check_tool_search_mode(hidden, ["mcp__s__x"], enabled=False)[0]


MCP = {"mcp__s__x", "mcp__s__y"}


def test_pool_order() -> None:
    good = [req(0, [PROMPT], [TOOL_B, TOOL_A, MCP_X]), req(1, [PROMPT], [TOOL_B, TOOL_A, MCP_X, MCP_Y])]
    assert checks.check_pool_order(good, MCP) == []
    mixed = [req(0, [PROMPT], [TOOL_A, MCP_X, TOOL_B])]
    assert "mixed into the built-in prefix" in checks.check_pool_order(mixed, MCP)[0]
    unsorted = [req(0, [PROMPT], [TOOL_A, MCP_Y, MCP_X])]
    assert "not sorted" in checks.check_pool_order(unsorted, MCP)[0]
    moved = [req(0, [PROMPT], [TOOL_B, TOOL_A, MCP_X]), req(1, [PROMPT], [TOOL_A, TOOL_B, MCP_X, MCP_Y])]
    assert "differs in order or bytes from request #0" in checks.check_pool_order(moved, MCP)[0]
    changed = {**TOOL_A, "description": "Read a file, now longer."}
    assert checks.check_pool_order([req(0, [PROMPT], [TOOL_A]), req(1, [PROMPT], [changed])], MCP)


# A CLI that names MCP tools <server>_<tool> (opencode), with a built-in of its own after them.
SUITE_ECHO = {"name": "suite_echo", "description": "Echo text back.", "input_schema": {"type": "object"}}
OWN_ECHO = {"name": "own_echo", "description": "The CLI's own echo.", "input_schema": {"type": "object"}}


def test_mcp_tools_are_the_served_ones_whatever_their_prefix() -> None:
    """Artefact: ``suite_echo`` counted as a built-in, so CACHE-2 passed a pool with MCP tools first."""
    served = {"echo": "Echo text back."}
    mcp_first = [req(0, [PROMPT], [SUITE_ECHO, TOOL_A]), req(1, [PROMPT], [SUITE_ECHO, TOOL_A])]
    mcp = set(checks.served_tool_names(mcp_first, served))
    assert mcp == {"suite_echo"}
    assert "mixed into the built-in prefix" in checks.check_pool_order(mcp_first, mcp)[0]
    # A prefix proves nothing: mcp__-named tools the server never served are built-ins here ...
    assert checks.served_tool_names([req(0, [PROMPT], [MCP_X])], served) == {}
    # ... and a name ending like a served tool with another description is the harness's own.
    own = {**SUITE_ECHO, "description": "Something else."}
    assert checks.served_tool_names([req(0, [PROMPT], [own, OWN_ECHO])], served) == {}
    assert checks.served_tool_names([req(0, [PROMPT], [MCP_X])], {"x": "X."}) == {"mcp__s__x": "x"}


def test_tool_bytes_stable_ignores_overlays_only() -> None:
    good = [req(0, [PROMPT], [TOOL_A, deferred(MCP_X)]), req(1, [PROMPT], [TOOL_A, MCP_X])]
    assert checks.check_tool_bytes_stable(good) == []
    reordered = {"description": TOOL_A["description"], "name": "Read", "input_schema": TOOL_A["input_schema"]}
    problems = checks.check_tool_bytes_stable([req(0, [PROMPT], [TOOL_A]), req(1, [PROMPT], [reordered])])
    assert problems
    assert "tool Read changed bytes since request #0" in problems[0]


def test_message_cache_marker() -> None:
    assert checks.check_message_cache_marker([req(0, [PROMPT], [TOOL_A])]) == []
    plain: dict[str, Any] = {"role": "user", "content": "go"}
    assert "0 message-level" in checks.check_message_cache_marker([req(0, [plain], [TOOL_A])])[0]
    two: list[dict[str, Any]] = [PROMPT, {"role": "assistant", "content": "a"}, PROMPT]
    assert "2 message-level" in checks.check_message_cache_marker([req(0, two, [TOOL_A])])[0]


def test_beta_latch() -> None:
    good = [req(0, [PROMPT], [TOOL_A], beta="b1"), req(1, [PROMPT], [TOOL_A], beta="b1, b2")]
    assert checks.check_beta_latch(good) == []
    dropped = [req(0, [PROMPT], [TOOL_A], beta="b1"), req(1, [PROMPT], [TOOL_A])]
    assert "beta 'b1' sent since request #0 was dropped" in checks.check_beta_latch(dropped)[0]
    refused = [req(0, [PROMPT], [TOOL_A], beta="b1", status=400), req(1, [PROMPT], [TOOL_A])]
    assert checks.check_beta_latch(refused) == []


BIG = "0123456789" * 6_000


def test_persisted_by_meaning_not_by_tag(tmp_path: Path) -> None:
    """Artefact: RESULT-1 wanted Claude Code's ``<persisted-output>``; it is judged by meaning now."""
    claude = (
        "<persisted-output>\nOutput too large (58.6KB). Full output saved to: /x/tool-results/toolu_a.json\n\n"
        f"Preview (first 2KB):\n{BIG[:2000]}\n</persisted-output>"
    )
    assert (
        checks.check_persisted(conversation([result("toolu_a", claude), result("toolu_b")]), "toolu_a", BIG)
        == []
    )
    own_words = f"Output truncated; the full output is in ./out/toolu_a.txt. First lines:\n{BIG[:500]}"
    assert (
        checks.check_persisted(
            conversation([result("toolu_a", own_words), result("toolu_b")]), "toolu_a", BIG
        )
        == []
    )
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "toolu_a.txt").write_text(BIG[:10], encoding="utf-8")
    wrong_file = checks.check_persisted(
        conversation([result("toolu_a", own_words), result("toolu_b")]), "toolu_a", BIG, workdir=tmp_path
    )
    assert "lack the output" in wrong_file[0]
    (tmp_path / "out" / "toolu_a.txt").write_text(BIG, encoding="utf-8")
    right_file = conversation([result("toolu_a", own_words), result("toolu_b")])
    assert checks.check_persisted(right_file, "toolu_a", BIG, workdir=tmp_path) == []


def test_persisted_faults() -> None:
    raw = checks.check_persisted(conversation([result("toolu_a", BIG), result("toolu_b")]), "toolu_a", BIG)
    assert any("not shorter than the output" in p for p in raw)
    assert any("without saying where" in p for p in raw)
    no_preview = "<persisted-output>Full output saved to: /x/toolu_a.txt\nPreview:\n</persisted-output>"
    problems = checks.check_persisted(
        conversation([result("toolu_a", no_preview), result("toolu_b")]), "toolu_a", BIG
    )
    assert problems
    assert "without a preview" in problems[0]
    truncated = f"{BIG[:2000]}... (truncated)"
    problems = checks.check_persisted(
        conversation([result("toolu_a", truncated), result("toolu_b")]), "toolu_a", BIG
    )
    assert problems
    assert "without saying where the whole output is" in problems[0]
    assert "got no tool_result" in checks.check_persisted(GOOD[:1], "toolu_a", BIG)[0]


def _replay(sent: list[dict[str, Any]]) -> list[RecordedRequest]:
    wrote = AssistantTurn(
        (ToolUseBlock("toolu_a", "Read", {"file_path": "/f"}), ToolUseBlock("toolu_b", "Nope", {}))
    )
    first = req(0, [PROMPT], [TOOL_A], turn=wrote)
    answers = [result("toolu_a"), result("toolu_b", is_error=True)]
    second = req(
        1, [PROMPT, {"role": "assistant", "content": sent}, {"role": "user", "content": answers}], [TOOL_A]
    )
    return [first, second]


def test_replay_is_the_turn_the_model_wrote() -> None:
    """Artefact: PAIR-1 compared ids only, so a turn re-sent with renamed calls passed."""
    same = [
        {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"file_path": "/f"}},
        {"type": "tool_use", "id": "toolu_b", "name": "Nope", "input": {}},
    ]
    assert checks.check_pairing(_replay(same)) == []
    assert checks.check_replayed(_replay(same)) == []
    renamed = [
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"file_path": "/f"}},
        {"type": "tool_use", "id": "toolu_b", "name": "invalid", "input": {"tool": "Nope"}},
    ]
    assert checks.check_pairing(_replay(renamed)) == []  # the ids still pair up ...
    problems = checks.check_replayed(_replay(renamed))  # ... but the conversation is not the model's
    assert len(problems) == 1
    assert "toolu_a: the model wrote Read" in problems[0]
    assert "re-sent as read" in problems[0]
    assert "toolu_b: the model wrote Nope {}, re-sent as invalid" in problems[0]
    new_input = [{**same[0], "input": {"file_path": "/other"}}, same[1]]
    assert "re-sent as Read" in checks.check_replayed(_replay(new_input))[0]
    assert "re-sent as nothing" in checks.check_replayed(_replay(same[:1]))[0]


def test_absent_is_not_deferred() -> None:
    """Artefact: DEFER-2 passed when the deferred tool was simply absent (never sent nor named)."""
    absent = [req(0, [PROMPT], [TOOL_A]), req(1, [PROMPT], [TOOL_A])]
    assert checks.check_defer_loading(absent, ["mcp__s__x"]) == []  # nothing to object to ...
    shown = checks.deferral_shown(absent, ["mcp__s__x"])  # ... and nothing shown: not checked
    assert len(shown) == 1
    assert "absent, which can't be told from deferred" in shown[0]
    flagged = [req(0, [PROMPT], [TOOL_A, deferred(MCP_X)])]
    assert checks.deferral_shown(flagged, ["mcp__s__x"]) == []
    listed = [req(0, [PROMPT], [TOOL_A], system="Deferred tools: mcp__s__x")]
    assert checks.deferral_shown(listed, ["mcp__s__x"]) == []
    # Named only after it was discovered: not shown deferred before.
    late = [req(0, [PROMPT], [TOOL_A]), req(1, referencing("mcp__s__x"), [TOOL_A, MCP_X])]
    assert checks.deferral_shown(late, ["mcp__s__x"])


def test_main_requests_skip_side_requests() -> None:
    side = req(5, [PROMPT])
    assert checks.main_requests([side, *GOOD]) == GOOD
