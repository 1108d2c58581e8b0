"""Small strategies and helpers for the pool, schema, cache-key, search and snapshot tests.

Names are drawn from a small vocabulary so that searches hit, pools clash and prefixes collide
often; every value depends only on Hypothesis's choices, so failures shrink and replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from pytest_toolharness.specs import ToolSpec, mcp_tool_name
from pytest_toolharness.strategies import cached_strategy

__all__ = [
    "RESERVED_NAMES",
    "WORDS",
    "HarnessFactory",
    "bare_names_clash",
    "builtin_names",
    "builtin_spec",
    "descriptions",
    "encode",
    "input_schemas",
    "mcp_spec",
    "mcp_tool_parts",
    "server_names",
    "tool_bytes",
]

WORDS: tuple[str, ...] = (
    "slack",
    "send",
    "message",
    "file",
    "read",
    "write",
    "notebook",
    "edit",
    "issue",
    "github",
    "list",
    "create",
    "cron",
    "web",
    "fetch",
    "jupyter",
    "query",
    "page",
    "task",
    "note",
)
"""The vocabulary names, descriptions, hints and queries are made of."""

RESERVED_NAMES = frozenset({"ToolSearch", "Brief", "SendUserFile"})
"""Names a harness may treat specially (its own search tool, critical-channel tools): never generated."""


def encode(value: Any) -> bytes:
    """The Messages API SDK's request-body encoding: insertion order, compact, UTF-8 (SNAP-1, SNAP-2)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def tool_bytes(tools: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
    """Each rendered tool's wire bytes by name (a repeated name is an error: names are unique)."""
    found: dict[str, bytes] = {}
    for tool in tools:
        name = str(tool.get("name"))
        assert name not in found, f"tool name {name!r} appears twice in the rendered tools"
        found[name] = encode(dict(tool))
    return found


def builtin_spec(name: str, **flags: Any) -> ToolSpec:
    """A built-in tool spec with a description naming it."""
    flags.setdefault("description", f"The {name} tool.")
    return ToolSpec(name=name, **flags)


def mcp_spec(server: str, tool: str, **flags: Any) -> ToolSpec:
    """An MCP tool spec named ``mcp__<server>__<tool>`` (the parts are already name-safe)."""
    flags.setdefault("description", f"{tool} on {server}")
    return ToolSpec(name=mcp_tool_name(server, tool), mcp_server=server, mcp_tool=tool, **flags)


@cached_strategy
def builtin_names() -> st.SearchStrategy[str]:
    """CamelCase built-in names made of one to three vocabulary words (``NotebookEdit``)."""
    return (
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)
        .map(lambda words: "".join(w.capitalize() for w in words))
        .filter(lambda name: name not in RESERVED_NAMES)
    )


@cached_strategy
def server_names() -> st.SearchStrategy[str]:
    """MCP server names: a vocabulary word, sometimes with a hyphenated second word."""
    return st.one_of(
        st.sampled_from(WORDS),
        st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS)).map("-".join),
    )


@cached_strategy
def mcp_tool_parts() -> st.SearchStrategy[str]:
    """An MCP server's own tool names: snake_case vocabulary words (``send_message``)."""
    return st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("_".join)


@cached_strategy
def descriptions() -> st.SearchStrategy[str]:
    """Descriptions: vocabulary words with punctuation and some non-ASCII text."""
    word = st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(WORDS).map(str.capitalize),
        st.sampled_from(("the", "a", "to", "über", "日本語", "emoji 🚀", 'quote "x"', "new\nline")),
    )
    return st.lists(word, min_size=1, max_size=8).map(lambda words: " ".join(words) + ".")


_LEAF_SCHEMAS = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "integer", "minimum": 0}),
    st.just({"type": "boolean"}),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True).map(
        lambda values: {"type": "string", "enum": values}
    ),
    st.just({"type": "array", "items": {"type": "string"}}),
    st.sampled_from(WORDS).map(lambda w: {"type": "string", "description": f"The {w} to use."}),
)


@cached_strategy
def input_schemas() -> st.SearchStrategy[dict[str, Any]]:
    """Object input schemas with properties in a drawn order, some required."""

    def build(props: list[tuple[str, dict[str, Any]]], required_flags: list[bool]) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": dict(props)}
        required = [name for (name, _), flag in zip(props, required_flags, strict=False) if flag]
        if required:
            schema["required"] = required
        return schema

    # Each property with its required flag: one strategy, not one built per drawn list.
    props = st.lists(
        st.tuples(st.sampled_from(WORDS), _LEAF_SCHEMAS, st.booleans()),
        max_size=5,
        unique_by=lambda item: item[0],
    )
    return props.map(lambda ps: build([(name, leaf) for name, leaf, _ in ps], [flag for *_, flag in ps]))


class HarnessFactory:
    """Hands the ``new_harness`` fixture to a state machine (a unittest class takes no fixtures).

    An autouse fixture on the machine's TestCase stores the factory here; the machine calls :meth:`new`.
    """

    factory: Callable[[], Any] | None = None

    @classmethod
    def new(cls) -> Any:
        """A fresh harness."""
        if cls.factory is None:
            raise RuntimeError("no harness factory bound: the TestCase needs its bind_factory fixture")
        return cls.factory()


def bare_names_clash(specs: list[ToolSpec]) -> bool:
    """Whether two of ``specs`` share a name once an MCP tool is named by its own part (``mcp__a__x``, ``mcp__b__x``).

    A framework that names MCP tools so refuses the whole pool (smolagents: a baselined finding, pinned by
    ``test_same_definitions_same_bytes``); properties about other things skip such a pool rather than
    report that finding again, only when their draws happen to meet it.
    """
    names = [spec.name.rsplit("__", 1)[-1].casefold() for spec in specs]
    return len(set(names)) < len(names)
