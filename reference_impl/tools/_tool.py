"""The tool model: what a tool declares, and a builder whose defaults are conservative.

A :class:`Tool` is an immutable description of one capability the model can call. Everything the
harness asks of a tool (its wire schema, whether it may run beside others, whether it only reads,
how big its result may get, what a permission rule about it means) is a field or a callable here,
so that the harness never needs to special-case a tool by name.

Defaults follow Claude Code's ``buildTool()``: a tool that declares nothing is neither
concurrency safe nor read-only (CONC-3), its result is limited to 50,000 characters, it is not
deferred and it has no aliases.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel

from reference_impl.tools._names import mcp_tool_name

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam

__all__ = [
    "DEFAULT_MAX_RESULT_SIZE_CHARS",
    "UNLIMITED",
    "ContextModifier",
    "DescriptionContext",
    "McpInfo",
    "PermissionTarget",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolPermissionCheck",
    "ToolProgress",
    "ToolState",
    "ValidationResult",
    "build_tool",
    "mcp_tool",
]

DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000
"""Claude Code's ``DEFAULT_MAX_RESULT_SIZE_CHARS``: larger results are persisted to a file."""

UNLIMITED = math.inf
"""A ``max_result_size_chars`` that exempts a tool from persistence (Read-like tools)."""

JsonObject: TypeAlias = dict[str, Any]
ToolInput: TypeAlias = Mapping[str, Any]


class ToolError(Exception):
    """Raised by a tool's ``call`` to report a failure the model should see as ``is_error``."""


@dataclass(frozen=True, slots=True)
class McpInfo:
    """Where an MCP tool comes from: the server's name and the tool's name on that server."""

    server: str
    tool: str


@dataclass(frozen=True, slots=True)
class DescriptionContext:
    """What a tool may look at when it computes its description for a session."""

    model: str = ""
    cwd: Path = field(default_factory=Path.cwd)
    tool_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """Outcome of a tool's own input validation (after schema validation passed)."""

    ok: bool
    message: str = ""

    @classmethod
    def valid(cls) -> ValidationResult:
        """A passing validation."""
        return cls(ok=True)

    @classmethod
    def invalid(cls, message: str) -> ValidationResult:
        """A failing validation whose message the model will see."""
        return cls(ok=False, message=message)


@dataclass(frozen=True, slots=True)
class ToolPermissionCheck:
    """A tool's own content-level permission opinion (004 §5.6 ``checkPermissions``).

    ``behavior`` is ``allow``, ``ask``, ``deny`` or ``passthrough`` (no opinion, which the
    decision engine turns into ``ask``, never ``allow``: PERM-6). ``safety_check`` marks an ask
    that even bypassPermissions must honour (PERM-5). ``updated_input`` lets the tool normalise
    the input it approves.
    """

    behavior: Literal["allow", "ask", "deny", "passthrough"]
    message: str = ""
    safety_check: bool = False
    updated_input: JsonObject | None = None

    @classmethod
    def passthrough(cls) -> ToolPermissionCheck:
        """No opinion."""
        return cls(behavior="passthrough")


@dataclass(frozen=True, slots=True)
class PermissionTarget:
    """What a content rule such as ``Bash(npm test:*)`` or ``Read(./.env)`` is matched against.

    ``kind`` says which rule family applies: ``shell`` (``Bash(...)`` rules, ``value`` is the
    command), ``read`` / ``edit`` (path rules, ``value`` is the path as given in the input; a
    ``Read(...)`` rule applies to every read tool and an ``Edit(...)`` rule to every edit tool),
    ``web_fetch`` (``value`` is the URL, matched by ``WebFetch(domain:x)``), ``other``
    (``ToolName(content)`` compares ``value`` exactly).
    """

    kind: Literal["shell", "read", "edit", "web_fetch", "other"]
    value: str


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """A progress report a running tool sends to the harness (shown to users, never the model)."""

    tool_use_id: str
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolState:
    """The harness state a running tool sees, and that a non-concurrent tool may change (EXEC-4).

    ``tools`` is the session's pool and ``deferred_tool_names`` its deferred tools (the ToolSearch
    tool searches those). ``values`` holds anything else a harness shares with its tools; a tool
    changes it by returning a :attr:`ToolOutput.context_modifier`, usually ``lambda s: s.with_value(k, v)``.
    """

    tools: tuple[Tool, ...] = ()
    deferred_tool_names: frozenset[str] = frozenset()
    values: Mapping[str, Any] = field(default_factory=dict)

    def with_value(self, key: str, value: Any) -> ToolState:
        """A copy with ``values[key]`` set to ``value``."""
        return ToolState(self.tools, self.deferred_tool_names, {**self.values, key: value})

    def with_pool(self, tools: Sequence[Tool], deferred_tool_names: Iterable[str]) -> ToolState:
        """A copy for another pool (MCP servers connected or left), keeping ``values``."""
        return ToolState(tuple(tools), frozenset(deferred_tool_names), self.values)


@dataclass(frozen=True)
class ToolContext:
    """What a running tool gets besides its input.

    ``abort`` is set when the user or a failing sibling interrupts the batch; a long-running
    tool should watch it. ``state`` is the harness-level context a non-concurrent tool may
    change through :attr:`ToolOutput.context_modifier` (EXEC-4).
    """

    tool_use_id: str
    abort: asyncio.Event
    cwd: Path
    progress: Callable[[ToolProgress], None] = lambda _progress: None
    state: ToolState = field(default_factory=ToolState)
    user_modified: bool = False


ContextModifier: TypeAlias = Callable[[ToolState], ToolState]


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a tool's ``call`` returns.

    ``content`` is text, a list of content blocks (text, image, tool_reference, ...) or a JSON
    value (persisted as ``.json`` when large). ``context_modifier`` maps the harness state for
    the calls that follow (only honoured for non-concurrent tools, as in Claude Code).
    ``hook_response`` is the tool's own response object as PostToolUse hooks get it in
    ``tool_response`` (Bash: ``{"stdout", "stderr", "interrupted", "isImage", ...}``, HOOK-6); None
    means the content.
    """

    content: str | Sequence[Mapping[str, Any]] | Mapping[str, Any]
    context_modifier: ContextModifier | None = None
    is_error: bool = False
    hook_response: Any = None


ToolCall: TypeAlias = Callable[[ToolInput, ToolContext], Awaitable[ToolOutput | str]]


def _never(_input: ToolInput) -> bool:
    return False


def _always_valid(_input: ToolInput, _context: ToolContext) -> ValidationResult:
    return ValidationResult.valid()


def _no_opinion(_input: ToolInput, _context: ToolContext) -> ToolPermissionCheck:
    return ToolPermissionCheck.passthrough()


def _no_target(_input: ToolInput) -> PermissionTarget | None:
    return None


@dataclass(frozen=True, eq=False)
class Tool:
    """One tool of the harness. Build it with :func:`build_tool` or :func:`mcp_tool`.

    Exactly one of ``input_model`` (a pydantic model) and ``input_json_schema`` (a raw JSON
    schema, as MCP tools have) describes the input. ``description`` may be a callable computed
    once per session (the schema cache fixes the first rendering: CACHE-3).
    """

    name: str
    description: str | Callable[[DescriptionContext], str]
    call: ToolCall
    input_model: type[BaseModel] | None = None
    input_json_schema: Mapping[str, Any] | None = None
    should_defer: bool = False
    always_load: bool = False
    mcp: McpInfo | None = None
    search_hint: str | None = None
    is_concurrency_safe: Callable[[ToolInput], bool] = _never
    is_read_only: Callable[[ToolInput], bool] = _never
    is_shell: bool = False
    requires_user_interaction: bool = False
    max_result_size_chars: float = DEFAULT_MAX_RESULT_SIZE_CHARS
    aliases: tuple[str, ...] = ()
    strict: bool = False
    eager_input_streaming: bool | None = None
    validate_input: Callable[[ToolInput, ToolContext], ValidationResult] = _always_valid
    check_permissions: Callable[[ToolInput, ToolContext], ToolPermissionCheck] = _no_opinion
    permission_target: Callable[[ToolInput], PermissionTarget | None] = _no_target
    map_result: Callable[[ToolOutput, str], ToolResultBlockParam] | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a tool needs a non-empty name")
        if (self.input_model is None) == (self.input_json_schema is None):
            raise ValueError(f"tool {self.name!r}: give exactly one of input_model and input_json_schema")
        if self.input_json_schema is not None and self.input_json_schema.get("type") != "object":
            raise ValueError(f"tool {self.name!r}: input_json_schema must have type 'object'")
        if not self.max_result_size_chars > 0:
            raise ValueError(f"tool {self.name!r}: max_result_size_chars must be positive")

    @property
    def is_mcp(self) -> bool:
        """Whether the tool comes from an MCP server."""
        return self.mcp is not None

    def render_description(self, context: DescriptionContext) -> str:
        """The description text for this session (callables are evaluated here)."""
        if callable(self.description):
            return self.description(context)
        return self.description

    def with_changes(self, **changes: Any) -> Tool:
        """A copy with some fields replaced (tools are immutable)."""
        return replace(self, **changes)

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"


def build_tool(
    name: str,
    description: str | Callable[[DescriptionContext], str],
    call: ToolCall,
    *,
    input_model: type[BaseModel] | None = None,
    input_json_schema: Mapping[str, Any] | None = None,
    **options: Any,
) -> Tool:
    """Build a tool whose every undeclared property takes the conservative default (CONC-3).

    ``options`` are the other :class:`Tool` fields (``should_defer``, ``is_concurrency_safe``,
    ``is_read_only``, ``aliases``, ...). A name that is not a field is an error that names it.
    """
    unknown = sorted(set(options) - set(Tool.__dataclass_fields__))
    if unknown:
        raise TypeError(f"build_tool({name!r}): unknown option(s) {', '.join(unknown)}")
    return Tool(
        name=name,
        description=description,
        call=call,
        input_model=input_model,
        input_json_schema=input_json_schema,
        **options,
    )


MCP_ALWAYS_LOAD_META = "anthropic/alwaysLoad"
MCP_SEARCH_HINT_META = "anthropic/searchHint"
MCP_MAX_RESULT_SIZE_META = "anthropic/maxResultSizeChars"


def _listed_limit(size: Any) -> float:
    """An MCP server's ``anthropic/maxResultSizeChars`` as a limit: a positive JSON number, else the default.

    A boolean is no number (JSON ``true`` is not a limit of one character); a number beyond a float's
    range is no limit at all (JavaScript, Claude Code's language, reads it as Infinity), where
    ``float()`` would raise and cost the server its tool.
    """
    if isinstance(size, bool) or not isinstance(size, int | float) or not size > 0:
        return DEFAULT_MAX_RESULT_SIZE_CHARS
    try:
        return float(size)
    except OverflowError:
        return UNLIMITED


def mcp_tool(
    server: str,
    tool_name: str,
    description: str,
    input_schema: Mapping[str, Any],
    call: ToolCall,
    *,
    meta: Mapping[str, Any] | None = None,
    annotations: Mapping[str, Any] | None = None,
) -> Tool:
    """Wrap a tool an MCP server lists as a harness tool named ``mcp__<server>__<tool>``.

    ``meta`` is the tool's ``_meta``: ``anthropic/alwaysLoad``, ``anthropic/searchHint`` and
    ``anthropic/maxResultSizeChars`` are honoured as in Claude Code. ``annotations`` with
    ``readOnlyHint: true`` make the tool read-only and concurrency safe.
    """
    meta = meta or {}
    annotations = annotations or {}
    read_only = annotations.get("readOnlyHint") is True
    max_size = _listed_limit(meta.get(MCP_MAX_RESULT_SIZE_META))
    hint = meta.get(MCP_SEARCH_HINT_META)

    def read_only_predicate(_input: ToolInput) -> bool:
        return read_only

    return Tool(
        name=mcp_tool_name(server, tool_name),
        description=description,
        call=call,
        input_json_schema=dict(input_schema),
        always_load=meta.get(MCP_ALWAYS_LOAD_META) is True,
        mcp=McpInfo(server=server, tool=tool_name),
        search_hint=hint if isinstance(hint, str) else None,
        is_concurrency_safe=read_only_predicate,
        is_read_only=read_only_predicate,
        max_result_size_chars=max_size,
    )
