"""The adapter protocol: how any harness plugs into the conformance suite.

An adapter factory returns a :class:`HarnessAdapter`; the suite asks it for a fresh
:class:`Harness` for every test and every Hypothesis example. A harness implements any subset of
the capability protocols below; :func:`capabilities_of` finds which by looking for their methods,
and a test that needs a missing one is reported as "not checked", never as passed.

Everything crosses the boundary as plain data (:mod:`pytest_toolharness.adapters._specs` and JSON-like
dicts in the Messages API's own shapes), so a harness in any language can be adapted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pytest_toolharness.adapters._specs import (
    ExecutionResult,
    ExecutionScenario,
    Notice,
    RuleSpec,
    ToolSpec,
    WireRequest,
)

__all__ = [
    "CAPABILITIES",
    "CacheKeyCapability",
    "ClassificationCapability",
    "ConversationCapability",
    "ExecutionCapability",
    "Harness",
    "HarnessAdapter",
    "NoticesCapability",
    "PoolCapability",
    "SchemasCapability",
    "SearchCapability",
    "capabilities_of",
]


class PoolCapability(Protocol):
    """``pool``: assemble the tools the model sees."""

    def assemble_pool(
        self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec], *, deny_rules: Sequence[RuleSpec] = ()
    ) -> list[str]:
        """The names of the pool's tools in wire order, after removing tools denied as a whole."""
        ...


class ClassificationCapability(Protocol):
    """``classification``: which tools are deferred."""

    def is_deferred(self, spec: ToolSpec) -> bool:
        """Whether the harness defers this tool (with tool search on)."""
        ...


class SchemasCapability(Protocol):
    """``schemas``: the tools array as it goes on the wire, within one session."""

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The ``tools`` array of the next request (tool search on); calls on one harness are one session."""
        ...


class CacheKeyCapability(Protocol):
    """``cache_key``: the prompt-cache break detection key."""

    def cache_key(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> str:
        """The key the harness uses to notice that the cached prompt prefix changed."""
        ...


class SearchCapability(Protocol):
    """``search``: the ToolSearch tool."""

    def search(
        self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec], query: str, max_results: int = 5
    ) -> list[str] | str:
        """The tool names a search returns (as tool_reference blocks), or the text it returns instead."""
        ...


class NoticesCapability(Protocol):
    """``notices``: deferred-tools change notices (mechanism B)."""

    def notice(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> Notice | None:
        """The notice the harness would add now for this pool (and records it as sent), or None."""
        ...


class ConversationCapability(Protocol):
    """``conversation``: a session's transcript, its requests, compaction and resume."""

    def set_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> None:
        """Set the tools available from now on (MCP servers connect and disconnect)."""
        ...

    def append_message(self, message: dict[str, Any]) -> None:
        """Add a user or assistant message (the Messages API's own shape) to the transcript."""
        ...

    def render_request(self, *, enable_tool_search: str | None = None, model: str = ...) -> WireRequest:
        """The next Messages API request, exactly as it would be sent."""
        ...

    def compact(self, summary: str) -> None:
        """Compact the transcript as the harness does when the context fills up."""
        ...

    def discovered_tools(self) -> set[str]:
        """The deferred tools the harness considers discovered now."""
        ...

    def resume(self) -> Harness:
        """A new harness for the same session, rebuilt from what was persisted (a resumed session)."""
        ...


class ExecutionCapability(Protocol):
    """``execution``: turn one assistant turn's tool_use blocks into the next user message."""

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Run the scenario's tool_use blocks through the whole pipeline."""
        ...


Harness = Any
"""A harness object: implements any subset of the capability protocols."""

CAPABILITIES: dict[str, tuple[str, ...]] = {
    "pool": ("assemble_pool",),
    "classification": ("is_deferred",),
    "schemas": ("render_tools",),
    "cache_key": ("cache_key",),
    "search": ("search",),
    "notices": ("notice",),
    "conversation": (
        "set_tools",
        "append_message",
        "render_request",
        "compact",
        "discovered_tools",
        "resume",
    ),
    "execution": ("execute",),
    "wire": ("run_wire",),
}
"""Each capability and the methods that make it up."""


def capabilities_of(harness: object) -> frozenset[str]:
    """The capabilities ``harness`` implements: those whose every method it has."""
    return frozenset(
        name
        for name, methods in CAPABILITIES.items()
        if all(callable(getattr(harness, method, None)) for method in methods)
    )


@runtime_checkable
class HarnessAdapter(Protocol):
    """What an adapter factory returns: a name and a way to make fresh harnesses."""

    name: str

    def new_harness(self) -> Harness:
        """A fresh harness (a new session) for one test or one Hypothesis example."""
        ...
