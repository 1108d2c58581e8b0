"""The adapter contract: the capability protocols a harness implements and the adapter that makes it.

An adapter factory returns a :class:`HarnessAdapter`: a ``name``, the ``capabilities`` it declares
(a ``frozenset`` of names of :data:`~pytest_toolharness.adapters.CAPABILITIES`) and ``new_harness()``,
which the suite calls for a fresh :data:`Harness` for every test and every Hypothesis example.

Each capability that is a set of methods has a protocol here (``pool`` is :class:`PoolCapability`,
``wire`` is :class:`WireCapability`, ...). The suite never looks for methods to decide what a harness
can do: it reads the adapter's declaration, and at the setup of each test it checks that the harness
has every method of every declared capability, failing with the capability and the method that is
missing. A test that needs an undeclared capability is reported as "not checked", never as passed.

Everything crosses the boundary as plain data (:mod:`pytest_toolharness.specs` and JSON-like
dicts in the Messages API's own shapes), so a harness in any language can be adapted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from pytest_toolharness.specs import (
    ExecutionResult,
    ExecutionScenario,
    LoopRun,
    LoopScenario,
    Notice,
    RuleSpec,
    SandboxOutcome,
    SandboxRun,
    ToolSpec,
    WireRequest,
)

if TYPE_CHECKING:
    from pytest_toolharness.wire.scenarios import WireScenario
    from pytest_toolharness.wire.targets import WireRun

__all__ = [
    "AgentLoopCapability",
    "CacheKeyCapability",
    "ClassificationCapability",
    "ConversationCapability",
    "ExecutionCapability",
    "Harness",
    "HarnessAdapter",
    "NoticeRecordsCapability",
    "NoticesCapability",
    "PoolCapability",
    "SandboxCapability",
    "SchemasCapability",
    "SearchCapability",
    "TranscriptCapability",
    "WireCapability",
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


class NoticeRecordsCapability(Protocol):
    """``notice_records``: notices the harness did not compute, read into its transcript."""

    def record_notice(self, notice: Notice) -> None:
        """Add ``notice`` to the transcript as a notice record (of a resumed or imported session).

        A record may name one tool among both its added and its removed names; the fold (added, then
        removed, DELTA-1) decides what it leaves announced.
        """
        ...


class TranscriptCapability(Protocol):
    """``transcript``: a session's tools and messages, and the request the harness sends for them."""

    def set_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> None:
        """Set the tools available from now on (MCP servers connect and disconnect)."""
        ...

    def append_message(self, message: dict[str, Any]) -> None:
        """Add a user or assistant message (the Messages API's own shape) to the transcript."""
        ...

    def render_request(self, *, enable_tool_search: str | None = None, model: str = ...) -> WireRequest:
        """The next Messages API request, exactly as it would be sent."""
        ...


class ConversationCapability(TranscriptCapability, Protocol):
    """``conversation``: the ``transcript`` methods, and the session's compaction, discovery and resume."""

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
    """``execution``: turn one assistant turn's tool_use blocks into the next user message.

    The capabilities ``hooks``, ``command_hooks``, ``host_callback``, ``host_interrupt``, ``abort``,
    ``timeouts`` and ``result_persistence`` are features of this one method (the scenario's ``hooks``,
    ``host``, ``abort``, ``call_timeout`` and ``session_dir``); declaring one of them needs
    ``execution`` too.
    """

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Run the scenario's tool_use blocks through the whole pipeline."""
        ...


class AgentLoopCapability(Protocol):
    """``agent_loop``: run the harness's own agent loop against a scripted model, hooks included."""

    async def run_loop(self, scenario: LoopScenario) -> LoopRun:
        """Run the scenario's prompts through the loop (lifecycle hooks fire: HOOK-5, HOOK-7)."""
        ...


class WireCapability(Protocol):
    """``wire``: run the harness as a process against the scripted Messages API."""

    def run_wire(self, scenario: WireScenario) -> WireRun:
        """Run ``scenario`` once (a fresh working directory) and return the requests the harness sent.

        :func:`pytest_toolharness.wire.run_wire_scenario` does all of it for a
        :class:`~pytest_toolharness.wire.Target` (a command line).
        """
        ...


class SandboxCapability(Protocol):
    """``sandbox``: run one Bash call in a session with the shell sandbox configured (SBX-1..7)."""

    async def run_sandboxed(self, run: SandboxRun) -> SandboxOutcome:
        """Write ``run.settings`` to the harness's project settings in ``run.workdir`` and run the call.

        The call goes through the harness's whole pipeline (permissions, the host, the sandbox).
        """
        ...


Harness: TypeAlias = (
    PoolCapability
    | ClassificationCapability
    | SchemasCapability
    | CacheKeyCapability
    | SearchCapability
    | NoticesCapability
    | NoticeRecordsCapability
    | TranscriptCapability
    | ConversationCapability
    | ExecutionCapability
    | WireCapability
    | AgentLoopCapability
    | SandboxCapability
)
"""A harness: an object implementing the protocols of the capabilities its adapter declares."""


@runtime_checkable
class HarnessAdapter(Protocol):
    """What an adapter factory returns: a name, the declared capabilities, and fresh harnesses."""

    name: str
    capabilities: frozenset[str]
    """Names of :data:`~pytest_toolharness.adapters.CAPABILITIES`; unknown names are an error."""

    def new_harness(self) -> Harness:
        """A fresh harness (a new session) for one test or one Hypothesis example."""
        ...
