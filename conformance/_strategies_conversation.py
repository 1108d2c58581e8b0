"""Small strategies and helpers for the conversation tests (requests, notices, discovery, cache, resume).

Everything here is harness-agnostic: plain :class:`ToolSpec` data and Messages API shaped dicts.
A conversation is built as the model and the harness would have produced it: a user message, then
pairs of (assistant message with ``tool_use`` blocks, user message with one ``tool_result`` per id).
ToolSearch turns answer with ``tool_reference`` blocks, which is how a deferred tool gets discovered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from pytest_toolharness.specs import ToolSpec, WireRequest, mcp_tool_name
from pytest_toolharness.strategies import cached_strategy, indices

__all__ = [
    "CALL_OUTPUTS",
    "RESERVED_NAMES",
    "SEARCH_TOOL",
    "STEP_KINDS",
    "Conversation",
    "FactoryHolder",
    "Session",
    "beta_values",
    "builtin",
    "builtin_names",
    "builtin_specs",
    "canonical",
    "mcp",
    "mcp_pairs",
    "mcp_specs",
    "mentions",
    "message_blocks",
    "message_cache_markers",
    "message_texts",
    "tool_references",
    "tool_use_ids",
    "twin_mcp_pairs",
    "wire_tool_names",
]

SEARCH_TOOL = "ToolSearch"
RESERVED_NAMES = frozenset({SEARCH_TOOL, "Brief", "SendUserFile"})
"""Names the harness uses itself or never defers: generated built-in tools avoid them."""


def builtin(name: str, **flags: Any) -> ToolSpec:
    """A built-in tool spec."""
    return ToolSpec(name=name, description=f"The {name} tool.", **flags)


def mcp(server: str, tool: str, **flags: Any) -> ToolSpec:
    """An MCP tool spec named ``mcp__<server>__<tool>``."""
    flags.setdefault("description", f"{tool} on {server}")
    return ToolSpec(name=mcp_tool_name(server, tool), mcp_server=server, mcp_tool=tool, **flags)


# Small name pools: cheap to draw, and names come back, so sequences remove and re-add tools.
builtin_names = st.sampled_from(["ReadFile", "WebFetch", "NotebookEdit", "TaskList", "LaterTool", "Grep"])
_SERVERS = ("gh", "slack", "db")
_MCP_TOOLS = ("issues", "send", "query", "pulls")
mcp_pairs = st.tuples(st.sampled_from(_SERVERS), st.sampled_from(_MCP_TOOLS))
twin_mcp_pairs = st.tuples(st.sampled_from((*_SERVERS, "GH")), st.sampled_from((*_MCP_TOOLS, "Issues")))
"""Like ``mcp_pairs``, with a server and a tool that differ from others only in letter case, so that
``mcp__GH__issues``, ``mcp__gh__Issues`` and ``mcp__gh__issues`` (three tools) can meet in one pool."""


def builtin_specs(max_size: int = 5) -> st.SearchStrategy[list[ToolSpec]]:
    """Built-in tools with unique names, some deferred (``should_defer``), some ``always_load``."""
    return st.lists(
        st.builds(
            lambda name, defer, always: builtin(name, should_defer=defer, always_load=always),
            builtin_names,
            st.booleans(),
            st.booleans(),
        ),
        unique_by=lambda s: s.name,
        max_size=max_size,
    )


@cached_strategy
def mcp_specs(
    min_size: int = 0, max_size: int = 6, *, case_twins: bool = False
) -> st.SearchStrategy[list[ToolSpec]]:
    """MCP tools with unique names; a few are ``always_load`` (so not deferred).

    ``case_twins`` draws names from ``twin_mcp_pairs``: tools whose names differ only in letter case.
    """
    return st.lists(
        st.builds(
            lambda pair, always: mcp(pair[0], pair[1], always_load=always),
            twin_mcp_pairs if case_twins else mcp_pairs,
            st.sampled_from([False, False, False, True]),
        ),
        unique_by=lambda s: s.name,
        min_size=min_size,
        max_size=max_size,
    )


@cached_strategy
def _step_kinds(kinds: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(kinds)


@dataclass
class Conversation:
    """Builds a valid transcript on a harness with the ``conversation`` capability.

    Every tool_use id is fresh (``toolu_conf_<n>``); :attr:`referenced` records every tool name
    a ToolSearch result referenced, i.e. what the harness must consider discovered, and
    :attr:`outputs` the content of every other tool_result by its tool_use id. With
    ``json_messages`` each message reaches the harness decoded from its JSON text, as a transcript
    read from a file or the wire does: equal strings that are not the objects the suite wrote.
    """

    harness: Any
    json_messages: bool = False
    referenced: list[str] = field(default_factory=list)
    outputs: dict[str, str | list[dict[str, Any]]] = field(default_factory=dict)
    _count: int = 0

    def _append(self, message: dict[str, Any]) -> None:
        self.harness.append_message(json.loads(json.dumps(message)) if self.json_messages else message)

    def new_id(self) -> str:
        """A tool_use id never used before in this conversation."""
        self._count += 1
        return f"toolu_conf_{self._count:04d}"

    def user(self, text: str) -> None:
        """A plain user message."""
        self._append({"role": "user", "content": text})

    def search(self, names: Sequence[str], query: str | None = None) -> str:
        """An assistant ToolSearch tool_use and its result: one tool_reference per name."""
        tool_use_id = self.new_id()
        query = query if query is not None else "select:" + ",".join(names)
        self._append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": tool_use_id, "name": SEARCH_TOOL, "input": {"query": query}}
                ],
            }
        )
        self._append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_use_id,
                        "content": [{"type": "tool_reference", "tool_name": name} for name in names],
                    }
                ],
            }
        )
        self.referenced.extend(names)
        return tool_use_id

    def call(
        self,
        name: str,
        output: str | list[dict[str, Any]] = "done",
        tool_use_id: str | None = None,
        between: Callable[[], object] | None = None,
    ) -> str:
        """An assistant tool_use of ``name`` and its tool_result (text, or a list of content blocks).

        ``between`` runs after the tool_use is in the transcript and before its result (an entry the
        harness stores while the tool runs).
        """
        tool_use_id = tool_use_id if tool_use_id is not None else self.new_id()
        self._append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Calling {name}."},
                    {"type": "tool_use", "id": tool_use_id, "name": name, "input": {}},
                ],
            }
        )
        if between is not None:
            between()
        self._append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": output}],
            }
        )
        self.outputs[tool_use_id] = json.loads(json.dumps(output))  # the suite's own copy
        return tool_use_id

    def chat(self, text: str = "ok") -> None:
        """An assistant text turn and a user reply."""
        self._append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        self.user("continue")


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def _walk(blocks: Sequence[Any]) -> Iterator[Mapping[str, Any]]:
    # Blocks and the blocks nested inside tool_result content.
    for block in blocks:
        if not isinstance(block, Mapping):
            continue
        yield block
        inner = block.get("content")
        if block.get("type") == "tool_result":
            if isinstance(inner, str):
                yield {"type": "text", "text": inner}
            elif isinstance(inner, list):
                yield from _walk(inner)


def message_blocks(request: WireRequest) -> Iterator[Mapping[str, Any]]:
    """Every content block of the request's messages, nested tool_result content included."""
    for message in request.body.get("messages", ()):
        yield from _walk(_blocks(message))


def message_texts(request: WireRequest) -> list[str]:
    """The text of every text block in the request's messages."""
    return [str(b.get("text", "")) for b in message_blocks(request) if b.get("type") == "text"]


def tool_references(request: WireRequest) -> list[str]:
    """The tool names of every tool_reference block in the request's messages."""
    return [str(b.get("tool_name")) for b in message_blocks(request) if b.get("type") == "tool_reference"]


def tool_use_ids(request: WireRequest) -> list[str]:
    """The ids of every tool_use block in the request's messages, in order."""
    return [str(b.get("id")) for b in message_blocks(request) if b.get("type") == "tool_use"]


def message_cache_markers(request: WireRequest) -> list[str]:
    """Where the request's messages carry ``cache_control``: one ``message[i].block[j]`` entry each."""
    found: list[str] = []
    for i, message in enumerate(request.body.get("messages", ())):
        for j, block in enumerate(_blocks(message)):
            if isinstance(block, Mapping) and "cache_control" in block:
                found.append(f"messages[{i}].content[{j}] ({block.get('type')})")
            inner = block.get("content") if isinstance(block, Mapping) else None
            for k, item in enumerate(inner if isinstance(inner, list) else ()):
                if isinstance(item, Mapping) and "cache_control" in item:
                    found.append(f"messages[{i}].content[{j}].content[{k}] ({item.get('type')})")
    return found


def wire_tool_names(request: WireRequest) -> list[str]:
    """The names in the request's tools array, in order."""
    return [str(t.get("name")) for t in request.body.get("tools", ())]


def mentions(texts: Sequence[str], name: str) -> bool:
    """Whether ``name`` occurs as a whole token (not inside a longer name) in one of ``texts``."""
    pattern = re.compile(r"(?<![A-Za-z0-9_\-])" + re.escape(name) + r"(?![A-Za-z0-9_\-])")
    return any(pattern.search(text) for text in texts)


def beta_values(request: WireRequest) -> set[str]:
    """The values of the request's ``anthropic-beta`` header (any header-name case)."""
    values: set[str] = set()
    for key, value in request.headers.items():
        if key.lower() == "anthropic-beta":
            values.update(v.strip() for v in str(value).split(",") if v.strip())
    return values


def canonical(value: Any) -> str:
    """Deterministic JSON text of a wire value (for byte comparisons in tests)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class FactoryHolder:
    """Hands the session's ``new_harness`` fixture to a Hypothesis state machine.

    A state machine's TestCase is a unittest class, which can't take fixtures as arguments; an
    autouse fixture on it stores the factory here, and the machine calls :meth:`new`.
    """

    factory: Callable[[], Any] | None = None

    @classmethod
    def new(cls) -> Any:
        """A fresh harness."""
        if cls.factory is None:
            raise RuntimeError("no harness factory bound: the TestCase needs the bind_factory fixture")
        return cls.factory()


STEP_KINDS = ("search", "call", "chat", "drop", "connect", "compact", "render")

CALL_OUTPUTS: tuple[str | list[dict[str, Any]], ...] = (
    "done",
    [{"type": "text", "text": "done"}],
    [{"type": "text", "text": "first part"}, {"type": "text", "text": "second part"}],
)
"""The tool outputs a ``call`` step draws: a string, or a tool_result's list of content blocks."""


@dataclass
class Session:
    """A harness with a changing pool and a growing conversation, driven by Hypothesis data.

    :meth:`step` appends one valid turn (or changes the pool, or compacts); :meth:`render` asks for
    the next request. :attr:`discovered` is every name a ToolSearch result referenced so far.
    """

    harness: Any
    builtin: list[ToolSpec]
    mcp: list[ToolSpec]
    json_messages: bool = False
    conversation: Conversation = field(init=False)
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.conversation = Conversation(self.harness, json_messages=self.json_messages)
        self.harness.set_tools(self.builtin, self.mcp)
        self.conversation.user("Hello")

    @property
    def discovered(self) -> set[str]:
        """Every tool name a tool_reference named so far."""
        return set(self.conversation.referenced)

    def specs(self) -> list[ToolSpec]:
        """The specs in the pool now."""
        return [*self.builtin, *self.mcp]

    def _set(self) -> None:
        self.harness.set_tools(self.builtin, self.mcp)

    def step(self, data: st.DataObject, kinds: Sequence[str] = STEP_KINDS) -> str:
        """One drawn step; returns a description for failure messages."""
        kind = data.draw(_step_kinds(tuple(kinds)), label="step")
        candidates = sorted({s.name for s in self.specs() if s.is_mcp or s.should_defer})
        if kind == "search" and candidates:
            names = [candidates[i] for i in data.draw(indices(len(candidates), max_count=3))]
            self.conversation.search(names)
            text = f"ToolSearch -> tool_reference {names}"
        elif kind == "call" and self.specs():
            specs = self.specs()
            name = specs[data.draw(indices(len(specs)))].name
            # Tool output as text, or as content blocks (one text block, or two).
            output = data.draw(st.sampled_from(CALL_OUTPUTS), label="output")
            self.conversation.call(name, output=output)
            text = f"call {name} -> {output!r}"
        elif kind == "drop" and self.mcp:
            servers = sorted({str(s.mcp_server) for s in self.mcp})
            server = servers[data.draw(indices(len(servers)))]
            self.mcp = [s for s in self.mcp if s.mcp_server != server]
            self._set()
            text = f"server {server} disconnected"
        elif kind == "connect":
            added = data.draw(mcp_specs(min_size=1, max_size=3))
            present = {s.name for s in self.specs()}
            self.mcp += [s for s in added if s.name not in present]
            self._set()
            text = f"connected {[s.name for s in added if s.name not in present]}"
        elif kind == "compact":
            self.harness.compact("Summary of the conversation so far.")
            text = "compact()"
        else:
            self.conversation.chat()
            text = "chat turn"
        self.log.append(text)
        return text

    def render(self, **kwargs: Any) -> WireRequest:
        """The next request (keyword arguments go to ``render_request``)."""
        request: WireRequest = self.harness.render_request(**kwargs)
        self.log.append(f"render_request({kwargs})")
        return request

    def where(self) -> str:
        """The last steps, for assertion messages."""
        return "\nsteps:\n  " + "\n  ".join(self.log[-12:])
