"""What the suite hands an adapter: tool specs with scripted behaviour, rules, hooks, hosts, scenarios.

Everything here is plain data that any harness can translate into its own types. Tool behaviour
is scripted by the suite and run through :meth:`ToolBehavior.run`, which records every start and
end in a :class:`CallRecorder` owned by the test, so a test can see overlaps, calls that should
never have happened, and aborts, whatever the harness under test is.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

__all__ = [
    "STATE_KEY",
    "BehaviorKind",
    "CallEvent",
    "CallRecorder",
    "ExecutionResult",
    "ExecutionScenario",
    "HookSpec",
    "HostAnswer",
    "HostSpec",
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "Notice",
    "PermissionTargetKind",
    "RuleSpec",
    "ScriptedErrorResult",
    "ScriptedToolError",
    "SettingsSpec",
    "StateChange",
    "ToolBehavior",
    "ToolSpec",
    "WireRequest",
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


@dataclass(frozen=True, slots=True)
class CallEvent:
    """One start or end of a tool call, numbered in the order the recorder saw it."""

    seq: int
    kind: Literal["start", "end", "abort_seen"]
    tool_use_id: str
    tool_name: str
    tool_input: Mapping[str, Any]


class CallRecorder:
    """Records tool-call starts and ends with a global sequence number (thread- and task-safe).

    Overlap is judged by sequence numbers, never by wall-clock time: call A overlaps call B when
    B started after A started and before A ended.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self.events: list[CallEvent] = []
        self._triggers: list[tuple[int, asyncio.Event]] = []

    def trigger_after_starts(self, count: int, event: asyncio.Event) -> None:
        """Set ``event`` as soon as ``count`` calls have started (fault injection: abort mid-batch)."""
        self._triggers.append((count, event))
        if len(self.started()) >= count:
            event.set()

    def record(
        self,
        kind: Literal["start", "end", "abort_seen"],
        tool_use_id: str,
        name: str,
        tool_input: Mapping[str, Any],
    ) -> None:
        """Add one event."""
        with self._lock:
            self.events.append(CallEvent(next(self._counter), kind, tool_use_id, name, dict(tool_input)))
            starts = sum(1 for e in self.events if e.kind == "start")
        if kind == "start":
            for count, event in self._triggers:
                if starts >= count:
                    event.set()

    def started(self) -> list[str]:
        """The tool_use ids whose call started, in start order."""
        return [e.tool_use_id for e in self.events if e.kind == "start"]

    def ended(self) -> list[str]:
        """The tool_use ids whose call returned or raised, in end order."""
        return [e.tool_use_id for e in self.events if e.kind == "end"]

    def inputs(self, tool_use_id: str) -> list[Mapping[str, Any]]:
        """The inputs the call with this id actually ran with."""
        return [e.tool_input for e in self.events if e.kind == "start" and e.tool_use_id == tool_use_id]

    def overlapping_pairs(self) -> list[tuple[str, str]]:
        """Pairs of calls whose runs overlapped (a call with no end runs to the end of the record)."""
        spans: dict[str, tuple[int, int]] = {}
        last = len(self.events) + 1
        for event in self.events:
            if event.kind == "start":
                spans[event.tool_use_id] = (event.seq, last)
            elif event.kind == "end" and event.tool_use_id in spans:
                spans[event.tool_use_id] = (spans[event.tool_use_id][0], event.seq)
        ordered = sorted(spans.items(), key=lambda item: item[1][0])
        pairs = []
        for (a, (a_start, a_end)), (b, (b_start, _b_end)) in itertools.combinations(ordered, 2):
            if a_start < b_start < a_end:
                pairs.append((a, b))
        return pairs


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
    """

    text: str


@dataclass(frozen=True, slots=True)
class ToolBehavior:
    """A scripted tool behaviour.

    ``text``: return ``text`` (or ``chars`` characters of ``fill``); ``empty``: return ``""``;
    ``image``: return an image block; ``json``: return ``value``; ``raise``: raise
    :class:`ScriptedToolError` with ``message``; ``error_result``: return a
    :class:`ScriptedErrorResult` with ``message`` (a failure the tool reports instead of raising); ``sleep``: wait ``seconds`` then return text;
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

    @property
    def is_mcp(self) -> bool:
        """Whether the spec describes an MCP tool."""
        return self.mcp_server is not None

    def rejection_message(self) -> str:
        """What the tool's own validation says when ``rejects_when`` is in the input.

        PAIR-3: the error result must carry it, so that the model learns what went wrong.
        """
        return f"{self.name} does not accept {self.rejects_when!r}"


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """A permission rule as written in settings (``Bash(npm test:*)``), its list and its source."""

    text: str
    behavior: Literal["allow", "ask", "deny"]
    source: str = "projectSettings"


HookOutcomeKind: TypeAlias = Literal[
    "allow",
    "ask",
    "deny",
    "none",
    "update_input",
    "context",
    "block",
    "exit2",
    "exit1",
    "garbage",
    "crash",
    "hang",
    "legacy_approve",
    "legacy_block",
    "update_output",
    "stop",
    "system_message",
    "block_once",
    "deny_interrupt",
]


@dataclass(frozen=True, slots=True)
class HookSpec:
    """A hook the suite installs: its event, matcher and what it answers.

    ``outcome``: ``allow`` / ``ask`` / ``deny`` (PreToolUse permission decisions), ``none`` (exit 0,
    no decision), ``update_input`` (allow with ``updated_input``), ``context`` (additional context),
    ``block`` (PostToolUse block), ``exit2`` (blocking error with ``reason`` on stderr), ``exit1``
    (non-blocking error), ``garbage`` (non-JSON output), ``crash`` (the hook itself fails), ``hang``
    (never answers within its timeout), ``legacy_approve`` / ``legacy_block`` (``decision`` field),
    ``update_output`` (PostToolUse ``updatedMCPToolOutput``), ``stop`` (``continue: false`` with
    ``stopReason`` = ``reason``), ``system_message`` (``systemMessage`` = ``context``), ``block_once``
    (Stop / SubagentStop: block with ``reason`` unless the input says ``stop_hook_active``; see
    :meth:`output_for`), ``deny_interrupt`` (PermissionRequest: deny with ``interrupt: true``, which
    also stops the batch; capability ``host_interrupt``). ``as_command`` says whether to run it as a command hook (a real subprocess)
    or an in-process callback.

    Lifecycle events (UserPromptSubmit, Stop, SessionStart, ...) are run by an agent loop
    (``agent_loop``); ``context`` and ``block`` answer them in their own shape (``additionalContext``
    under ``hookSpecificOutput``, ``decision: "block"``). ``hook_type`` ``http`` serves the answer from an
    HTTP endpoint instead of a program, ``run_async`` makes it an async command hook, and
    ``from_plugin`` installs it through a plugin's ``hooks/hooks.json`` (HOOK-8; capability
    ``hook_sources``).
    """

    event: Literal[
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "SessionStart",
        "SessionEnd",
        "PreCompact",
        "Notification",
    ]
    outcome: HookOutcomeKind
    matcher: str | None = None
    reason: str = "hook says so"
    updated_input: Mapping[str, Any] | None = None
    context: str = "context from hook"
    updated_output: Any = None
    as_command: bool = False
    timeout: float = 5.0
    hook_type: Literal["command", "http"] = "command"
    run_async: bool = False
    from_plugin: bool = False

    def output_for(self, hook_input: Mapping[str, Any]) -> dict[str, Any] | None:
        """The output for this input: :meth:`output_json`, but ``block_once`` stops blocking.

        Once the input says ``stop_hook_active``, ``block_once`` says nothing: the guard a Stop hook
        must have against endless loops.
        """
        if self.outcome == "block_once" and hook_input.get("stop_hook_active"):
            return {}
        return self.output_json()

    def output_json(self) -> dict[str, Any] | None:
        """The JSON the hook prints on exit 0 (None when it prints nothing or not JSON)."""
        if self.event == "PermissionRequest":
            if self.outcome == "allow":
                decision: dict[str, Any] = {"behavior": "allow"}
                if self.updated_input is not None:
                    decision["updatedInput"] = dict(self.updated_input)
                return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
            if self.outcome in ("deny", "deny_interrupt"):
                denial: dict[str, Any] = {"behavior": "deny", "message": self.reason}
                if self.outcome == "deny_interrupt":
                    denial["interrupt"] = True
                return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": denial}}
            return {} if self.outcome == "none" else None
        specific: dict[str, Any] = {"hookEventName": self.event}
        if self.outcome in ("allow", "ask", "deny"):
            specific["permissionDecision"] = self.outcome
            specific["permissionDecisionReason"] = self.reason
            return {"hookSpecificOutput": specific}
        if self.outcome == "update_input":
            specific["permissionDecision"] = "allow"
            specific["permissionDecisionReason"] = self.reason
            specific["updatedInput"] = dict(self.updated_input or {})
            return {"hookSpecificOutput": specific}
        if self.outcome == "context":
            specific["additionalContext"] = self.context
            return {"hookSpecificOutput": specific}
        if self.outcome in ("block", "block_once"):
            return {"decision": "block", "reason": self.reason}
        if self.outcome == "stop":
            return {"continue": False, "stopReason": self.reason}
        if self.outcome == "system_message":
            return {"systemMessage": self.context}
        if self.outcome == "update_output":
            specific["updatedMCPToolOutput"] = self.updated_output
            return {"hookSpecificOutput": specific}
        if self.outcome == "legacy_approve":
            return {"decision": "approve", "reason": self.reason}
        if self.outcome == "legacy_block":
            return {"decision": "block", "reason": self.reason}
        if self.outcome == "none":
            return {}
        return None


@dataclass(frozen=True, slots=True)
class HostAnswer:
    """What the host (user or embedding application) answers when asked about a call.

    ``interrupt`` (with ``deny``) also stops the batch, as a user who rejects a prompt and stops the
    agent does (the SDK's ``PermissionResultDeny(interrupt=True)``; capability ``host_interrupt``).
    """

    behavior: Literal["allow", "deny"]
    updated_input: Mapping[str, Any] | None = None
    message: str = "the user said no"
    interrupt: bool = False


@dataclass(slots=True)
class HostSpec:
    """A host that answers permission questions, recording every question it was asked."""

    answer: Callable[[str, Mapping[str, Any]], HostAnswer] = lambda _name, _input: HostAnswer("allow")
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def ask(self, tool_name: str, tool_input: Mapping[str, Any]) -> HostAnswer:
        """Record the question and answer it."""
        self.asked.append((tool_name, dict(tool_input)))
        return self.answer(tool_name, tool_input)


@dataclass(frozen=True, slots=True)
class SettingsSpec:
    """One Claude Code settings file of the session: its JSON ``content`` and the ``source`` it sits in.

    ``source`` is ``userSettings``, ``projectSettings``, ``localSettings`` or ``policySettings``
    (managed). The permission keys the suite uses: ``permissions.allow/ask/deny`` (rules),
    ``defaultMode``, ``additionalDirectories`` (relative ones are relative to the working directory),
    ``blockWritesOutsideWorkingDirectories`` and ``denyInsteadOfPrompting``.
    """

    source: str
    content: Mapping[str, Any]


@dataclass(slots=True)
class ExecutionScenario:
    """One assistant turn's tool_use blocks, to be executed by the harness under test.

    ``host`` None means nobody can be asked (headless): an ask becomes a PermissionRequest hook's
    decision or a deny. ``abort`` is the suite's interrupt signal: the harness must watch it
    (the suite sets it, e.g. when a given number of calls have started).

    ``settings`` are the session's settings files (the ``settings_files`` capability), besides
    ``rules``; ``mode`` is the mode given when the session starts (as on the command line), so with
    settings files ``"default"`` means none was given and their ``defaultMode`` applies.
    """

    tools: Sequence[ToolSpec]
    tool_uses: Sequence[Mapping[str, Any]]
    recorder: CallRecorder
    cwd: Path
    session_dir: Path
    rules: Sequence[RuleSpec] = ()
    mode: str = "default"
    hooks: Sequence[HookSpec] = ()
    host: HostSpec | None = None
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    abort_after_starts: int | None = None
    call_timeout: float | None = None
    additional_dirs: Sequence[Path] = ()
    settings: Sequence[SettingsSpec] = ()


@dataclass(slots=True)
class ExecutionResult:
    """What the harness produced for a scenario.

    ``user_content`` is the content of the user message that follows the assistant turn, as it
    will go on the wire (tool_result blocks and any extra blocks such as hook context).
    ``decisions`` maps tool_use ids to the recorded permission decision, when the harness records
    them: ``{"behavior": ..., "stage": ..., "source": ..., "rule": ...}``.
    """

    user_content: list[dict[str, Any]]
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class LoopScenario:
    """A session of the harness's agent loop against a scripted model (``agent_loop``).

    The harness runs its own loop: for each of ``prompts`` in turn it submits the prompt and loops
    until the model stops, asking the scripted model, which answers with ``turns`` in order (each a
    list of Messages API content blocks: ``text`` and ``tool_use``; a turn with a tool_use ends with
    stop reason ``tool_use``, else ``end_turn``; past the script the model answers ``"Done."``).
    ``compact_after`` compacts the conversation after that prompt (0-based), as a user's ``/compact``
    does, with the summary ``"scripted summary"``. After the last prompt the session ends (SessionEnd).

    ``hook_log``: every hook the adapter installs appends the JSON input it got to this file, one
    object per line, in the order the hooks ran (the suite reads payloads from it: HOOK-6).
    """

    prompts: Sequence[str]
    turns: Sequence[Sequence[Mapping[str, Any]]]
    tools: Sequence[ToolSpec]
    recorder: CallRecorder
    cwd: Path
    session_dir: Path
    hook_log: Path
    rules: Sequence[RuleSpec] = ()
    mode: str = "default"
    hooks: Sequence[HookSpec] = ()
    host: HostSpec | None = None
    max_turns: int = 8
    compact_after: int | None = None


@dataclass(slots=True)
class LoopPromptResult:
    """How the loop ended for one prompt, and what the harness showed the user (never the model).

    ``stop_reason``: ``end_turn`` (the model stopped), ``hook_stopped`` (a hook's ``continue: false``),
    ``prompt_blocked`` (a UserPromptSubmit hook blocked it), ``max_turns``. ``user_messages``: every
    text the harness showed its user for this prompt (hooks' ``systemMessage``, a ``stopReason``, a
    blocked prompt's reason), in order.
    """

    stop_reason: str
    user_messages: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LoopRun:
    """What a :class:`LoopScenario` did: the requests the model got and each prompt's ending.

    ``requests`` are the Messages API request bodies the harness sent (``messages``, ``tools``, ...),
    in order, excluding side requests without tools (summaries). ``ended`` lists what the harness
    showed the user when the session ended.
    """

    requests: list[dict[str, Any]]
    prompts: list[LoopPromptResult]
    ended: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class WireRequest:
    """A Messages API request as it goes on the wire: the JSON body and the headers."""

    body: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Notice:
    """A deferred-tools change notice: names announced as added and as removed."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
