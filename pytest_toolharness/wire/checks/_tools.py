"""Wire checks of the tools a harness sends: unique names, deferred loading, tool search, pool order, cached bytes.

Like every request check (:mod:`pytest_toolharness.wire.checks._requests`), each takes the recorded
requests of one session and returns a list of problems. Tool bytes (CACHE-2, CACHE-3) are compared as
each tool's JSON re-encoded the way the SDK encodes (key order kept as received), without the
per-request overlays ``defer_loading`` and ``cache_control``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.checks._requests import _blocks, _messages, main_requests
from pytest_toolharness.wire.model_api import RecordedRequest, wire_json

__all__ = [
    "OVERLAY_KEYS",
    "check_beta_latch",
    "check_defer_loading",
    "check_deferred_names_listed",
    "check_message_cache_marker",
    "check_pool_order",
    "check_tool_bytes_stable",
    "check_tool_references",
    "check_tool_search_mode",
    "check_unique_names",
    "deferral_shown",
    "referenced_tools",
    "tool_bytes",
]

#: Per-request keys of a tool that are not part of its cached base (CACHE-3).
OVERLAY_KEYS = ("defer_loading", "cache_control")


def check_unique_names(requests: Sequence[RecordedRequest]) -> list[str]:
    """PAIR-6: tool names unique within each request; tool_use ids unique across its conversation."""
    problems = []
    for request in main_requests(requests):
        names = request.tool_names
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            problems.append(f"request #{request.index}: duplicate tool names {duplicates}")
        ids = [
            b.get("id")
            for m in _messages(request)
            if m.get("role") == "assistant"
            for b in _blocks(m.get("content"))
            if b.get("type") == "tool_use"
        ]
        repeated = sorted({str(i) for i in ids if ids.count(i) > 1})
        if repeated:
            problems.append(f"request #{request.index}: repeated tool_use ids {repeated}")
    return problems


def referenced_tools(request: RecordedRequest) -> list[str]:
    """The tool names of every ``tool_reference`` in ``request``'s tool_results, in order."""
    names = []
    for message in _messages(request):
        for block in _blocks(message.get("content")):
            if block.get("type") != "tool_result" or isinstance(block.get("content"), str):
                continue
            for item in _blocks(block.get("content")):
                if item.get("type") == "tool_reference":
                    names.append(str(item.get("tool_name")))
    return names


def check_defer_loading(requests: Sequence[RecordedRequest], deferred: Iterable[str]) -> list[str]:
    """DEFER-2: deferred tools go with ``defer_loading: true`` (or not at all) until discovered.

    Also, in every main request: at least one tool without ``defer_loading``, and no tool with
    both ``defer_loading`` and ``cache_control``. A tool counts as discovered once a
    ``tool_reference`` names it in the request's messages. Whether a tool left out was deferred
    or just absent is :func:`deferral_shown`'s question.
    """
    deferred = list(deferred)
    problems = []
    for request in main_requests(requests):
        tools = [t for t in request.tools if isinstance(t, Mapping)]
        if all(t.get("defer_loading") is True for t in tools):
            problems.append(f"request #{request.index}: every tool has defer_loading; one must be loaded")
        for tool in tools:
            if tool.get("defer_loading") is True and tool.get("cache_control") is not None:
                problems.append(
                    f"request #{request.index}: deferred tool {tool.get('name')} has cache_control"
                )
        discovered = set(referenced_tools(request))
        for tool in tools:
            name = tool.get("name")
            if name in deferred and name not in discovered and tool.get("defer_loading") is not True:
                problems.append(
                    f"request #{request.index}: {name} is deferred and not yet discovered, but is sent "
                    "without defer_loading: true"
                )
    return problems


def deferral_shown(requests: Sequence[RecordedRequest], deferred: Iterable[str]) -> list[str]:
    """Why DEFER-2 was not exercised for ``deferred``: each tool never shown deferred (else nothing).

    A tool is shown deferred when some main request, before it is discovered, sends it with
    ``defer_loading: true`` or leaves it out while naming it where the model reads (the deferred
    tools listing). A tool left out and named nowhere is absent, not deferred: a harness that
    dropped it (or never loaded the MCP server) must not pass DEFER-2 for it.
    """
    mains = main_requests(requests)
    missing = []
    for name in deferred:
        shown = False
        for request in mains:
            if name in referenced_tools(request):
                break
            tool = next((t for t in request.tools if isinstance(t, Mapping) and t.get("name") == name), None)
            if (tool is not None and tool.get("defer_loading") is True) or (
                tool is None and name in _context_text(request)
            ):
                shown = True
                break
        if not shown:
            missing.append(
                f"{name} was never sent with defer_loading nor named as deferred before its discovery: "
                "absent, which can't be told from deferred"
            )
    return missing


def _context_text(request: RecordedRequest) -> str:
    body = request.messages_body if isinstance(request.messages_body, Mapping) else {}
    # Everything the model reads besides the tools array: system prompt and messages.
    return wire_json({"system": body.get("system"), "messages": body.get("messages")})


def check_deferred_names_listed(requests: Sequence[RecordedRequest], names: Iterable[str]) -> list[str]:
    """DEFER-3: in the first main request, every tool in ``names`` is sent in full or named in the text."""
    mains = main_requests(requests)
    if not mains:
        return ["the harness made no main-loop request (none carried tools)"]
    first = mains[0]
    full = {
        t.get("name") for t in first.tools if isinstance(t, Mapping) and t.get("defer_loading") is not True
    }
    text = _context_text(first)
    return [
        f"request #{first.index}: deferred tool {name} is named nowhere the model can read (system or messages)"
        for name in names
        if name not in full and name not in text
    ]


def check_tool_references(requests: Sequence[RecordedRequest]) -> list[str]:
    """DEFER-6: every ``tool_reference`` names a tool in the same request's ``tools``."""
    problems = []
    for request in main_requests(requests):
        names = set(request.tool_names)
        for name in referenced_tools(request):
            if name not in names:
                problems.append(
                    f"request #{request.index}: tool_reference {name!r} is not in its tools array"
                )
    return problems


def check_tool_search_mode(
    requests: Sequence[RecordedRequest], names: Iterable[str], *, enabled: bool
) -> list[str]:
    """DEFER-8: with tool search off, ``names`` go in full in every main request; on, deferred at first."""
    names = list(names)
    mains = main_requests(requests)
    problems = []
    for request in mains if not enabled else mains[:1]:
        by_name = {t.get("name"): t for t in request.tools if isinstance(t, Mapping)}
        for name in names:
            tool = by_name.get(name)
            if not enabled and (tool is None or tool.get("defer_loading") is True):
                state = "missing" if tool is None else "deferred"
                problems.append(f"request #{request.index}: tool search is off but {name} is {state}")
            if enabled and tool is not None and tool.get("defer_loading") is not True:
                problems.append(f"request #{request.index}: tool search is on but {name} is sent in full")
    return problems


def tool_bytes(request: RecordedRequest) -> list[tuple[str, str]]:
    """Each tool of ``request`` as ``(name, JSON)``: received key order, SDK encoding, no overlays."""
    try:
        body = json.loads(request.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    tools = body.get("tools") if isinstance(body, dict) else None
    out = []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict):
            base = {k: v for k, v in tool.items() if k not in OVERLAY_KEYS}
            # A hosted tool (Responses ``tool_search``, ``web_search``) has no name: its type names it.
            name = tool.get("name") if isinstance(tool.get("name"), str) else tool.get("type")
            out.append((str(name), wire_json(base)))
    return out


def _sorted_by_name(names: list[str]) -> bool:
    return names == sorted(names) or names == sorted(names, key=lambda n: (n.casefold(), n))


def check_pool_order(requests: Sequence[RecordedRequest], mcp: Collection[str]) -> list[str]:
    """CACHE-2: built-in tools form a prefix, MCP tools (sorted) follow; the prefix bytes don't move.

    ``mcp`` are the request tool names that are the suite's MCP tools (:func:`served_tool_names`:
    what the MCP server served, never a name prefix); every other tool is a built-in. The loaded
    (not ``defer_loading``) built-in tools of two main requests with the same such names must be
    byte-identical and in the same order, whatever MCP tools came and went in between. Deferred
    tools are left out: they are not part of the cached prompt.
    """
    problems = []
    prefixes: dict[tuple[str, ...], tuple[int, list[str]]] = {}
    for request in main_requests(requests):
        names = request.tool_names
        is_mcp = [n in mcp for n in names]
        if is_mcp != sorted(is_mcp):
            problems.append(
                f"request #{request.index}: MCP tools are mixed into the built-in prefix: {names}"
            )
        mcp_sent = [n for n in names if n in mcp]
        if not _sorted_by_name(mcp_sent):
            problems.append(f"request #{request.index}: MCP tools not sorted by name: {mcp_sent}")
        loaded = {
            t.get("name")
            for t in request.tools
            if isinstance(t, Mapping) and t.get("defer_loading") is not True
        }
        builtin = [(n, text) for n, text in tool_bytes(request) if n not in mcp and n in loaded]
        key = tuple(sorted(n for n, _ in builtin))
        texts = [f"{n}:{text}" for n, text in builtin]
        if key in prefixes and prefixes[key][1] != texts:
            problems.append(
                f"request #{request.index}: the built-in prefix {[n for n, _ in builtin]} differs in order "
                f"or bytes from request #{prefixes[key][0]}"
            )
        prefixes.setdefault(key, (request.index, texts))
    return problems


def check_tool_bytes_stable(requests: Sequence[RecordedRequest]) -> list[str]:
    """CACHE-3: each tool's bytes (overlays aside) are identical in every main request of the session."""
    first: dict[str, tuple[int, str]] = {}
    problems = []
    for request in main_requests(requests):
        for name, text in tool_bytes(request):
            if name not in first:
                first[name] = (request.index, text)
            elif first[name][1] != text:
                problems.append(
                    f"request #{request.index}: tool {name} changed bytes since request #{first[name][0]}: "
                    f"{first[name][1][:300]} then {text[:300]}"
                )
    return problems


def _count_markers(value: Any) -> int:
    if isinstance(value, Mapping):
        own = 1 if value.get("cache_control") is not None else 0
        return own + sum(_count_markers(v) for k, v in value.items() if k != "cache_control")
    if isinstance(value, list):
        return sum(_count_markers(v) for v in value)
    return 0


def check_message_cache_marker(requests: Sequence[RecordedRequest]) -> list[str]:
    """CACHE-5: exactly one ``cache_control`` marker inside ``messages`` in each main request."""
    problems = []
    for request in main_requests(requests):
        count = _count_markers(request.messages)
        if count != 1:
            problems.append(
                f"request #{request.index}: {count} message-level cache_control markers, expected 1"
            )
    return problems


def check_beta_latch(requests: Sequence[RecordedRequest]) -> list[str]:
    """CACHE-6: a beta header value, once sent in an accepted main request, is sent in every later one.

    A beta the server refused (a 4xx answer) may be dropped: only accepted requests latch.
    """
    problems = []
    seen: dict[str, int] = {}
    for request in main_requests(requests):
        betas = set(request.beta_headers)
        for beta, since in seen.items():
            if beta not in betas:
                problems.append(
                    f"request #{request.index}: beta {beta!r} sent since request #{since} was dropped"
                )
        if request.status == 200:
            for beta in request.beta_headers:
                seen.setdefault(beta, request.index)
    return problems
