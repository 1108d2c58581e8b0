"""Wire checks: requirements judged from the requests a harness sent to the scripted API.

Every check takes the recorded requests of one session (all of them, in arrival order, as
:class:`~pytest_toolharness.wire.model_api._server.RecordedRequest`) and returns a list of problems, each a
sentence naming the request (``request #3``) and the tool or tool_use id involved; an empty list
means the check passed. Only main-loop requests (``POST /v1/messages`` carrying a ``tools`` array)
are judged, except by :func:`check_accepted`, which holds every request to the API's own checks:
side requests (titles, summaries) carry no tools.

This module holds the checks of tool_use / tool_result pairing and of results; the checks of the
``tools`` array itself are in :mod:`pytest_toolharness.wire.checks._tools`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolharness.wire.model_api import (
    MESSAGES_PATH,
    RecordedRequest,
    ThinkingBlock,
    gemini_route,
    validate_messages_request,
    wire_json,
)

__all__ = [
    "check_accepted",
    "check_answered",
    "check_error_results",
    "check_nonempty_results",
    "check_pairing",
    "check_persisted",
    "check_reasoning_replayed",
    "check_replayed",
    "check_result_order",
    "check_selected",
    "is_unsent_at_end",
    "main_requests",
    "reasoning_replay_problem",
    "result_text",
    "served_tool_names",
    "tool_results",
]


def main_requests(requests: Iterable[RecordedRequest]) -> list[RecordedRequest]:
    """The main-loop requests: ``POST /v1/messages`` with a non-empty ``tools`` array."""
    return [r for r in requests if r.is_messages and r.tools]


_NAME_SEPARATORS = ("__", "_", "-", ".", ":", "/")


def _names_served(name: str, description: Any, served: Mapping[str, str]) -> str | None:
    for served_name, served_description in served.items():
        named = name == served_name or any(name.endswith(sep + served_name) for sep in _NAME_SEPARATORS)
        if named and (not served_description or served_description in str(description or "")):
            return served_name
    return None


def served_tool_names(requests: Iterable[RecordedRequest], served: Mapping[str, str]) -> dict[str, str]:
    """Each tool name in the main requests that is one of ``served`` (the MCP server's tools), → its name.

    A harness names an MCP tool its own way (``mcp__suite__echo``, ``suite_echo``); a request's tool
    is the suite's when its name ends with a served name (after a separator) and its description
    holds the served description. Nothing else counts, whatever its prefix: the server's own log of
    what it listed (``served``) decides, not a naming convention.
    """
    found: dict[str, str] = {}
    for request in main_requests(requests):
        for tool in request.tools:
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                continue
            served_name = _names_served(str(tool["name"]), tool.get("description"), served)
            if served_name is not None:
                found.setdefault(str(tool["name"]), served_name)
    return found


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, Mapping)]
    return []


def _messages(request: RecordedRequest) -> list[Mapping[str, Any]]:
    # The user/assistant conversation: system-role messages (Claude Code sends them with the
    # per-turn-control beta) hold only text, and pairing looks through them as the API check does.
    return [m for m in request.messages if isinstance(m, Mapping) and m.get("role") != "system"]


def result_text(block: Mapping[str, Any]) -> str:
    """The text of a tool_result block: its string content, or its text blocks joined."""
    content = block.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def _is_empty_content(block: Mapping[str, Any]) -> bool:
    content = block.get("content")
    if content is None or content == "" or content == []:
        return True
    if isinstance(content, list):
        # Only text blocks whose text is empty: nothing the model can read.
        return all(b.get("type") == "text" and not b.get("text") for b in _blocks(content))
    return False


def tool_results(requests: Sequence[RecordedRequest]) -> dict[str, list[Mapping[str, Any]]]:
    """tool_use id → its tool_result blocks in the last main request (the whole conversation)."""
    mains = main_requests(requests)
    found: dict[str, list[Mapping[str, Any]]] = {}
    if not mains:
        return found
    for message in _messages(mains[-1]):
        if message.get("role") != "user":
            continue
        for block in _blocks(message.get("content")):
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                found.setdefault(str(block["tool_use_id"]), []).append(block)
    return found


def check_accepted(requests: Sequence[RecordedRequest]) -> list[str]:
    """Every ``/v1/messages`` request is one the API accepts (PAIR-1, PAIR-6, DEFER-2, DEFER-6).

    ``system``-role messages are accepted (text only) wherever the scripted server accepts them:
    this is the server's own validation, so a request it answered passes here too.
    """
    problems = []
    for request in requests:
        if not request.is_messages:
            continue
        if request.view is not None:
            # Another API's request: the scripted server held it to that API's own rules.
            if request.status == 400 and request.error is not None:
                problems.append(f"request #{request.index}: the API would reject it: {request.error.message}")
            continue
        if not isinstance(request.json, Mapping):
            problems.append(f"request #{request.index}: the body is not a JSON object")
            continue
        error = validate_messages_request(request.json)
        if error is not None:
            problems.append(f"request #{request.index}: the API would reject it: {error.message}")
    return problems


def _assistant_with(messages: list[Mapping[str, Any]], tool_use_id: str) -> int | None:
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and any(
            b.get("type") == "tool_use" and b.get("id") == tool_use_id
            for b in _blocks(message.get("content"))
        ):
            return i
    return None


# The end of check_pairing's problem for a turn after which the harness sent nothing: a run may end there
# (an exit on SIGINT, a stop at a refusal), so the drawn checks tell it apart from a pairing fault.
_UNSENT_AT_END = "the harness sent no further request"


def is_unsent_at_end(problem: str) -> bool:
    """Whether a :func:`check_pairing` problem is a turn's results owed after the last request the harness sent."""
    return problem.endswith(_UNSENT_AT_END)


def check_pairing(requests: Sequence[RecordedRequest]) -> list[str]:
    """PAIR-1: each answered tool_use is followed, in the next main request, by exactly its results.

    For every main request whose scripted answer asked for tools, the next main request must hold
    that assistant turn and, right after it, a user message with exactly one tool_result per
    tool_use id, no other tool_result, results before any other block; and every request is one
    the API accepts. A turn whose stream broke mid-way is owed nothing.
    """
    problems = check_accepted(requests)
    mains = main_requests(requests)
    for position, request in enumerate(mains):
        # A turn whose stream broke (StreamFault) was never delivered whole: nothing is owed for it,
        # and what the harness sends next (a retry, or the part it got, paired) is checked as it is.
        if request.turn is None or not request.turn.tool_uses or request.turn.fault is not None:
            continue
        asked = [block.id for block in request.turn.tool_uses]
        if position + 1 >= len(mains):
            problems.append(
                f"the tool_use ids {', '.join(asked)} answered to request #{request.index} never got "
                f"results: {_UNSENT_AT_END}"
            )
            continue
        following = mains[position + 1]
        messages = _messages(following)
        at = _assistant_with(messages, asked[0])
        if at is None:
            problems.append(
                f"request #{following.index} lacks the assistant turn with tool_use {asked[0]} "
                f"(the answer to request #{request.index})"
            )
            continue
        sent_ids = [b.get("id") for b in _blocks(messages[at].get("content")) if b.get("type") == "tool_use"]
        if sent_ids != asked:
            problems.append(
                f"request #{following.index}: the assistant turn's tool_use ids are {sent_ids}, "
                f"but the model sent {asked}"
            )
        if at + 1 >= len(messages) or messages[at + 1].get("role") != "user":
            problems.append(
                f"request #{following.index}: no user message follows the assistant turn with "
                f"tool_use ids {', '.join(asked)}"
            )
            continue
        blocks = _blocks(messages[at + 1].get("content"))
        results = [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]
        for tool_use_id in asked:
            count = results.count(tool_use_id)
            if count != 1:
                problems.append(
                    f"request #{following.index}: tool_use {tool_use_id} has {count} tool_result blocks, "
                    "expected exactly 1"
                )
        extra = sorted(set(results) - set(asked))
        if extra:
            problems.append(
                f"request #{following.index}: tool_result for ids nobody asked: {', '.join(extra)}"
            )
        kinds = [b.get("type") for b in blocks]
        if "tool_result" in kinds and kinds[: len(results)] != ["tool_result"] * len(results):
            problems.append(
                f"request #{following.index}: tool_result blocks are not first in their message: {kinds}"
            )
    return problems


def check_replayed(requests: Sequence[RecordedRequest]) -> list[str]:
    """PAIR-7: the assistant turn is re-sent as the model wrote it: the same tool_use ids, names and inputs.

    For every main request whose scripted answer asked for tools, every later main request holds
    that turn's tool_use blocks unchanged, in order (a harness that renames a call, to its own
    ``invalid`` tool or a lower-cased ``read``, or rewrites its input, misreports the conversation).
    """
    problems = []
    mains = main_requests(requests)
    for position, request in enumerate(mains):
        if request.turn is None or not request.turn.tool_uses:
            continue
        wrote = [(b.id, b.name, dict(b.input)) for b in request.turn.tool_uses]
        for later in mains[position + 1 :]:
            messages = _messages(later)
            at = _assistant_with(messages, wrote[0][0])
            if at is None:
                continue  # check_pairing names a dropped turn
            sent = [
                (b.get("id"), b.get("name"), b.get("input"))
                for b in _blocks(messages[at].get("content"))
                if b.get("type") == "tool_use"
            ]
            if sent != wrote:
                changed = [
                    f"{w[0]}: the model wrote {w[1]} {wire_json(w[2])}, re-sent as "
                    + (f"{s[1]} {wire_json(s[2])}" if s is not None else "nothing")
                    for w, s in zip(wrote, [*sent, *[None] * len(wrote)], strict=False)
                    if s is None or (s[0], s[1], s[2]) != w
                ]
                problems.append(
                    f"request #{later.index} re-sends the assistant turn answered to request "
                    f"#{request.index} changed: " + ("; ".join(changed) or f"{len(sent)} tool_use blocks")
                )
    return problems


def reasoning_replay_problem(
    delivered: Sequence[Mapping[str, Any]],
    first_call: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    exact: bool = False,
) -> str | None:
    """PAIR-8 over one later request, API-neutral: what is wrong with the reasoning replayed, or None.

    ``delivered`` are the thinking blocks (``thinking``, ``signature``) the model's turn carried on the
    API, ``first_call`` the id of its first tool call, ``messages`` the later request in the Messages
    shape (a Responses reasoning item or a Gemini ``thoughtSignature`` is a ``thinking`` block there). The
    assistant message holding ``first_call`` must hold, ahead of its first tool_use, thinking blocks with
    the delivered signatures in order, their text unchanged (or, unless ``exact``, left empty: Gemini and
    Responses may send back the signature alone). None too when the turn is absent (PAIR-1 names that).
    """
    listed = list(messages)
    at = _assistant_with(listed, first_call)
    if at is None or not delivered:
        return None
    blocks = _blocks(listed[at].get("content"))
    first_use = next(i for i, b in enumerate(blocks) if b.get("type") == "tool_use")
    ahead = [b for b in blocks[:first_use] if b.get("type") in ("thinking", "redacted_thinking")]
    want = [(str(b.get("thinking", "")), b.get("signature")) for b in delivered]
    sent = [(str(b.get("thinking", "")), b.get("signature")) for b in ahead]
    same = [s for s, _ in sent] == [s for s, _ in want] if exact else None
    if [sig for _, sig in sent] != [sig for _, sig in want] or same is False:
        return (
            f"the turn with tool call {first_call} comes back with reasoning {wire_json(sent)} ahead of "
            f"its calls; the model sent {wire_json(want)}"
        )
    changed = [w for s, w in zip(sent, want, strict=True) if s[0] not in ("", w[0])]
    if changed:
        return f"the turn with tool call {first_call} comes back with its reasoning text changed: {wire_json(sent)}"
    return None


def _delivered(request: RecordedRequest) -> list[dict[str, Any]]:
    """The thinking blocks the answer to ``request`` carried on its API (Chat carries none)."""
    if request.turn is None:
        return []
    thinking = [b.to_api() for b in request.turn.blocks if isinstance(b, ThinkingBlock)]
    if request.path == MESSAGES_PATH or request.path.endswith("/responses"):
        return thinking
    if gemini_route(request.path) is not None:
        # Gemini carries one signature, on the first functionCall part: the last thought's.
        return [{"thinking": "", "signature": thinking[-1]["signature"]}] if thinking else []
    return []


def check_reasoning_replayed(requests: Sequence[RecordedRequest]) -> list[str]:
    """PAIR-8: the reasoning that came with a turn's tool calls goes back with them, in every later request.

    Messages ``thinking`` blocks unchanged with their signatures, Responses ``reasoning`` items (their
    ``encrypted_content``, or the kept item named by id), Gemini ``thoughtSignature``: each ahead of the
    calls of the replayed assistant turn (:func:`reasoning_replay_problem`).
    """
    problems = []
    mains = main_requests(requests)
    for position, request in enumerate(mains):
        delivered = _delivered(request)
        if request.turn is None or not request.turn.tool_uses or not delivered:
            continue
        first_call = request.turn.tool_uses[0].id
        exact = request.path == MESSAGES_PATH
        for later in mains[position + 1 :]:
            problem = reasoning_replay_problem(delivered, first_call, _messages(later), exact=exact)
            if problem is not None:
                problems.append(f"request #{later.index}: {problem} (answer to request #{request.index})")
    return problems


def check_answered(requests: Sequence[RecordedRequest], ids: Iterable[str]) -> list[str]:
    """PAIR-2: each of ``ids`` has exactly one tool_result in the conversation."""
    results = tool_results(requests)
    problems = []
    for tool_use_id in ids:
        count = len(results.get(tool_use_id, []))
        if count != 1:
            problems.append(f"tool_use {tool_use_id} got {count} tool_result blocks, expected exactly 1")
    return problems


def check_error_results(
    requests: Sequence[RecordedRequest], ids: Iterable[str], reasons: Mapping[str, str] | None = None
) -> list[str]:
    """PAIR-3: the results of ``ids`` (failures) have ``is_error: true`` and non-empty text.

    ``reasons`` maps a failure's id to the words of what went wrong that its text must carry (a
    failing tool's own message): text that only says "error" tells the model nothing.
    """
    results = tool_results(requests)
    problems = []
    for tool_use_id in ids:
        blocks = results.get(tool_use_id)
        if not blocks:
            problems.append(f"tool_use {tool_use_id} (a failure) got no tool_result")
            continue
        block = blocks[0]
        text = result_text(block)
        if block.get("is_error") is not True:
            problems.append(
                f"tool_use {tool_use_id} failed but its tool_result has is_error={block.get('is_error')!r}: "
                f"{text[:200]!r}"
            )
        if not text.strip():
            problems.append(f"tool_use {tool_use_id} failed but its tool_result has no text explaining why")
        elif reasons and tool_use_id in reasons and reasons[tool_use_id] not in text:
            problems.append(
                f"tool_use {tool_use_id} failed with {reasons[tool_use_id]!r} but its tool_result does not "
                f"say so: {text[:200]!r}"
            )
    return problems


def check_nonempty_results(
    requests: Sequence[RecordedRequest], ids: Iterable[str] | None = None
) -> list[str]:
    """PAIR-4: no tool_result (of ``ids``, or any) is sent with empty content."""
    problems = []
    for tool_use_id, blocks in tool_results(requests).items():
        if ids is not None and tool_use_id not in set(ids):
            continue
        for block in blocks:
            if _is_empty_content(block):
                problems.append(
                    f"tool_use {tool_use_id}: the tool_result content is empty ({block.get('content')!r}); "
                    "expected a placeholder"
                )
    return problems


def check_result_order(requests: Sequence[RecordedRequest]) -> list[str]:
    """PAIR-5: in each main request, tool_results follow the order of their tool_use blocks."""
    problems = []
    for request in main_requests(requests):
        messages = _messages(request)
        for i, message in enumerate(messages[:-1]):
            if message.get("role") != "assistant":
                continue
            asked = [b.get("id") for b in _blocks(message.get("content")) if b.get("type") == "tool_use"]
            answered = [
                b.get("tool_use_id")
                for b in _blocks(messages[i + 1].get("content"))
                if b.get("type") == "tool_result"
            ]
            expected = [tool_use_id for tool_use_id in asked if tool_use_id in answered]
            if answered and [a for a in answered if a in asked] != expected:
                problems.append(
                    f"request #{request.index}: tool_results in order {answered}, tool_use order {asked}"
                )
    return problems


_PATH = re.compile(r"(?:file://)?((?:/|\.{1,2}/|~/)[^\s<>\"'`]+)")
_PREVIEW_CHARS = 100


def check_persisted(
    requests: Sequence[RecordedRequest],
    tool_use_id: str,
    output: str,
    *,
    workdir: Path | None = None,
) -> list[str]:
    """RESULT-1, by meaning: the oversized ``output`` of ``tool_use_id`` arrives replaced.

    The result must be shorter than the output, say where the whole output is (a file path; when
    it is a file this side can read, relative to ``workdir``, the file must hold the output) and
    carry a non-empty preview (the output's first 100 characters). How it says so is the
    harness's own: Claude Code's ``<persisted-output>`` tag is one way, not the requirement.
    """
    blocks = tool_results(requests).get(tool_use_id, [])
    if not blocks:
        return [f"tool_use {tool_use_id} (a {len(output)}-character output) got no tool_result"]
    text = result_text(blocks[0])
    problems = []
    where = f"tool_use {tool_use_id}: a {len(output)}-character output"
    if len(text) >= len(output):
        problems.append(f"{where} was sent as {len(text)} characters, not shorter than the output")
    if output[:_PREVIEW_CHARS] not in text:
        problems.append(f"{where} was sent without a preview of it: {text[:200]!r}")
    paths = [m.group(1).rstrip(".,;:)]") for m in _PATH.finditer(text)]
    if not paths:
        problems.append(f"{where} was sent without saying where the whole output is: {text[:200]!r}")
    elif workdir is not None:
        files = [Path(p).expanduser() if p.startswith("~") else workdir / p for p in paths]
        readable = [f for f in files if f.is_file()]
        if readable and not any(output in f.read_text(encoding="utf-8", errors="replace") for f in readable):
            problems.append(
                f"{where}: the file(s) it names ({', '.join(map(str, readable))}) lack the output"
            )
    return problems


def check_selected(requests: Sequence[RecordedRequest], search_id: str, names: Iterable[str]) -> list[str]:
    """DEFER-4: the ToolSearch ``select:`` call ``search_id`` returned a tool_reference to each of ``names``."""
    blocks = tool_results(requests).get(search_id, [])
    if not blocks:
        return [f"the ToolSearch call {search_id} got no tool_result"]
    content = blocks[0].get("content")
    referenced = (
        [str(item.get("tool_name")) for item in _blocks(content) if item.get("type") == "tool_reference"]
        if not isinstance(content, str)
        else []
    )
    return [
        f"ToolSearch {search_id} (select:) did not return {name}: got references {referenced}, "
        f"text {result_text(blocks[0])[:200]!r}"
        for name in names
        if name not in referenced
    ]
