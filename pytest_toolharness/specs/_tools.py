"""Tool specs: the tools the suite asks a harness to build, with their scripted behaviour.

Everything here is plain data that any harness can translate into its own types. Tool behaviour
is scripted by the suite and run through :meth:`ToolBehavior.run`, which records every start and
end in the test's :class:`~pytest_toolharness.specs.CallRecorder`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pytest_toolharness.specs._recorder import CallRecorder

__all__ = [
    "STATE_KEY",
    "BehaviorKind",
    "PermissionTargetKind",
    "ScriptedErrorResult",
    "ScriptedToolError",
    "StateChange",
    "ToolBehavior",
    "ToolSpec",
]

BehaviorKind: TypeAlias = Literal[
    "text",
    "empty",
    "image",
    "json",
    "raise",
    "error_result",
    "sleep",
    "hang",
    "wait_abort",
    "set_state",
    "read_state",
]
PermissionTargetKind: TypeAlias = Literal["shell", "read", "edit", "web_fetch", "other"]

_ONE_PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class ScriptedToolError(Exception):
    """What a tool scripted to fail raises; harnesses turn it into an ``is_error`` result."""


STATE_KEY = "toolharness"
"""The context entry that ``set_state`` and ``read_state`` behaviours write and read."""


@dataclass(frozen=True, slots=True)
class StateChange:
    """A tool's request to change the shared context for later calls (a context modifier, EXEC-4).

    The adapter turns it into its harness's own mechanism: the output is ``text``, and the context
    entry :data:`STATE_KEY` becomes ``value`` for the calls that follow.
    """

    value: Any
    text: str


@dataclass(frozen=True, slots=True)
class ScriptedErrorResult:
    """A tool that completes and *returns* an error result (``is_error``) instead of raising.

    The adapter turns it into its harness's own error output (the reference harness's
    ``ToolOutput(is_error=True)``, an MCP ``isError`` result). For the harness it is a failed call:
    PostToolUseFailure hooks run, never PostToolUse (EXEC-5). A framework whose tools can only fail
    by raising raises :class:`ScriptedToolError` with ``text``.

    ``blocks``, when set, is the error's content as a list of content blocks instead of ``text``
    (an ``error_result`` behaviour with a ``value``): a harness whose tools return blocks sends them;
    ``text`` is then the blocks' text joined, for harnesses that take only a message.
    """

    text: str
    blocks: tuple[dict[str, Any], ...] | None = None


@dataclass(frozen=True, slots=True)
class ToolBehavior:
    """A scripted tool behaviour.

    ``text``: return ``text`` (or ``chars`` characters of ``fill``); ``empty``: return ``""``;
    ``image``: return an image block; ``json``: return ``value``; ``raise``: raise
    :class:`ScriptedToolError` with ``message``; ``error_result``: return a
    :class:`ScriptedErrorResult` with ``message`` (a failure the tool reports instead of raising;
    with a list ``value``, those content blocks); ``sleep``: wait ``seconds`` then return text;
    ``hang``: never return (only an abort or a timeout ends it); ``wait_abort``: wait for the abort
    signal, then return text saying so. ``set_state``: return a :class:`StateChange` asking the
    harness to set :data:`STATE_KEY` of its shared context to ``value`` for the calls after it
    (EXEC-4); ``read_state``: return the JSON of the ``STATE_KEY`` entry of the context it was given.
    """

    kind: BehaviorKind = "text"
    text: str | None = None
    chars: int = 0
    fill: str = "x"
    seconds: float = 0.0
    message: str = "scripted failure"
    value: Any = None
    gate: asyncio.Event | None = field(default=None, compare=False)

    def output_text(self) -> str:
        """The text a ``text`` or ``sleep`` behaviour returns."""
        if self.text is not None:
            return self.text
        if self.chars:
            reps = -(-self.chars // len(self.fill))
            return (self.fill * reps)[: self.chars]
        return "ok"

    async def run(
        self,
        tool_use_id: str,
        name: str,
        tool_input: Mapping[str, Any],
        abort: asyncio.Event,
        recorder: CallRecorder,
        state: Mapping[str, Any] | None = None,
    ) -> str | list[dict[str, Any]] | Any:
        """Run the behaviour; records start and end (also on failure or cancellation).

        ``state`` is the harness's shared context as this call sees it (for ``read_state``).
        """
        recorder.record("start", tool_use_id, name, tool_input)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.kind == "set_state":
                return StateChange(value=self.value, text="state set")
            if self.kind == "read_state":
                return json.dumps((state or {}).get(STATE_KEY), sort_keys=True)
            return await self._body(abort, recorder, tool_use_id, name, tool_input)
        finally:
            recorder.record("end", tool_use_id, name, tool_input)

    async def _body(
        self,
        abort: asyncio.Event,
        recorder: CallRecorder,
        tool_use_id: str,
        name: str,
        tool_input: Mapping[str, Any],
    ) -> str | list[dict[str, Any]] | Any:
        if self.kind == "text":
            return self.output_text()
        if self.kind == "empty":
            return ""
        if self.kind == "image":
            return [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": _ONE_PIXEL_PNG},
                },
                {"type": "text", "text": self.output_text()},
            ]
        if self.kind == "json":
            return self.value
        if self.kind == "raise":
            raise ScriptedToolError(self.message)
        if self.kind == "error_result":
            if isinstance(self.value, list):
                blocks = tuple(dict(b) for b in self.value)
                return ScriptedErrorResult(
                    "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text"), blocks
                )
            return ScriptedErrorResult(self.message)
        if self.kind == "sleep":
            await asyncio.sleep(self.seconds)
            return self.output_text()
        if self.kind == "hang":
            await asyncio.Event().wait()
        # wait_abort
        await abort.wait()
        recorder.record("abort_seen", tool_use_id, name, tool_input)
        return "stopped after abort"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the suite asks the harness to build.

    ``name`` is the name the model sees; an MCP tool also has ``mcp_server`` and ``mcp_tool``
    (and its ``name`` is ``mcp__<server>__<tool>`` normalised). ``declares_nothing`` asks for a
    tool built with every optional property left to the harness's defaults (CONC-3).
    ``permission_kind`` and ``permission_field`` say which input field a content rule matches
    (``Bash(...)`` rules match ``command`` of a ``shell`` tool). ``rejects_when`` names an input
    key whose presence makes the tool's own validation fail; ``validation_raises_when`` one whose
    presence makes that validation raise instead (a broken validator: the call must be rejected,
    never run, PAIR-2). ``max_result_size_chars`` of None is
    unlimited. ``concurrency_safe_when`` names an input key: a call is concurrency safe only when its
    input has it (``concurrency_safe`` is then ignored), as Bash's ``ls`` is and its ``rm`` is not
    (CONC-1's ``is_concurrency_safe(input)``). ``classification_raises`` asks for a tool whose concurrency-safety and read-only
    predicates raise when asked (a harness with such predicates must then treat the call as neither,
    CONC-3; a harness without them ignores it). ``content_check`` is the tool's own permission
    opinion on every input; ``raises`` and ``invalid`` ask for a broken one, which raises or answers
    something that is not a permission behaviour (the harness must not let it allow the call, PERM-14).
    ``mcp_annotations`` are an MCP tool's ``annotations`` exactly as its server lists them (any of the
    MCP spec's ``title``, ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``;
    ``readOnlyHint: false`` says so explicitly); None lists ``readOnlyHint: true`` when ``read_only``
    and no annotations otherwise. An MCP tool that ``declares_nothing`` is listed without ``_meta``
    and with only ``mcp_annotations``.
    """

    name: str
    description: str = "A tool."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    should_defer: bool = False
    always_load: bool = False
    mcp_server: str | None = None
    mcp_tool: str | None = None
    search_hint: str | None = None
    concurrency_safe: bool = False
    read_only: bool = False
    shell: bool = False
    requires_user_interaction: bool = False
    max_result_size_chars: int | None = 50_000
    aliases: tuple[str, ...] = ()
    permission_kind: PermissionTargetKind | None = None
    permission_field: str | None = None
    rejects_when: str | None = None
    validation_raises_when: str | None = None
    safety_check_when: str | None = None
    content_check: Literal["passthrough", "allow", "ask", "deny", "raises", "invalid"] = "passthrough"
    declares_nothing: bool = False
    classification_raises: bool = False
    concurrency_safe_when: str | None = None
    behavior: ToolBehavior = field(default_factory=ToolBehavior)
    mcp_annotations: Mapping[str, Any] | None = None

    @property
    def is_mcp(self) -> bool:
        """Whether the spec describes an MCP tool."""
        return self.mcp_server is not None

    def rejection_message(self) -> str:
        """What the tool's own validation says when ``rejects_when`` is in the input.

        PAIR-3: the error result must carry it, so that the model learns what went wrong.
        """
        return f"{self.name} does not accept {self.rejects_when!r}"
