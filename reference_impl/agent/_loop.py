"""The agent loop on ``anthropic.AsyncAnthropic``: request, stream, execute, repeat.

One :class:`AgentSession` holds a conversation. :meth:`AgentSession.run` adds a user prompt and
then, turn by turn:

1. assembles the tool pool (built-ins, then MCP tools; whole-tool deny rules remove tools:
   PERM-10) and builds the request with :class:`~reference_impl.request._builder.RequestBuilder`, keeping
   the entries it appends (``deferred_tools_delta`` notices) in the transcript;
2. streams the answer with ``client.messages.stream``; each tool_use block goes to the streaming
   executor as soon as its ``content_block_stop`` arrives, so tools run while the model is still
   streaming (004 §6.4);
3. appends the assistant message and, when it asked for tools, one user message holding exactly
   one tool_result per tool_use, in order, under the per-message budget (PAIR-1, PAIR-5, RESULT-3);
4. stops when the stop reason is not ``tool_use``, after ``max_turns`` requests, or on abort.

An abort (an :class:`asyncio.Event`) interrupts the stream or the running batch; every tool_use
already received still gets a result, so the transcript stays valid for the next request (PAIR-1).
Compaction replaces old entries with a boundary that carries the discovered tools (DEFER-7) and
resets the beta latch (CACHE-6); its summary is given, or asked of the model in a side request
that carries no tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anthropic
from anthropic.types import MessageParam, ToolUseBlockParam

from reference_impl.execution import (
    ContentReplacementState,
    DecisionLog,
    ExecutionContext,
    StreamingToolExecutor,
    ToolRunOutcome,
    finish_batch,
    new_batch_executor,
)
from reference_impl.hooks import Hooks
from reference_impl.permissions import CanUseTool, PermissionContext, is_tool_denied_as_whole
from reference_impl.request import (
    BuiltRequest,
    CompactBoundary,
    DeferredToolsDelta,
    RequestBuilder,
    TranscriptEntry,
    content_blocks,
)
from reference_impl.request._discovery import compact as compact_entries
from reference_impl.tools import Tool, ToolProgress, ToolState, assemble_tool_pool

__all__ = [
    "SUMMARY_PROMPT",
    "AgentSession",
    "ApiRequestError",
    "CompactionPolicy",
    "LoopResult",
]

SUMMARY_PROMPT = (
    "Summarize the conversation below for a continuation of it: the user's requests, what was done, "
    "which tools were used and what they found, and what is left to do. Reply with the summary only."
)


class ApiRequestError(RuntimeError):
    """The Messages API refused a request; carries the HTTP status and the API's own message."""

    def __init__(self, status_code: int, message: str, *, request_id: str | None = None) -> None:
        self.status_code = status_code
        self.api_message = message
        self.request_id = request_id
        where = f" (request {request_id})" if request_id else ""
        super().__init__(f"the Messages API answered {status_code}{where}: {message}")

    @classmethod
    def from_sdk(cls, error: anthropic.APIStatusError) -> ApiRequestError:
        """Wrap an SDK error, pulling ``error.message`` out of the API's error body."""
        body = error.body
        message = error.message
        if isinstance(body, Mapping):
            inner = body.get("error")
            if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
                message = str(inner["message"])
        return cls(error.status_code, message, request_id=error.request_id)


@dataclass(frozen=True, slots=True)
class CompactionPolicy:
    """When the loop compacts by itself, and how much it keeps.

    Before a request, when the transcript holds more than ``max_entries`` entries, the loop asks the
    model for a summary (``summary_max_tokens``) and keeps the last ``keep_last`` entries (moved
    earlier when needed so no tool_result loses its tool_use). ``max_entries=None`` never compacts
    on its own; :meth:`AgentSession.compact` still works.
    """

    max_entries: int | None = None
    keep_last: int = 2
    summary_max_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.max_entries is not None and self.max_entries < 1:
            raise ValueError(f"CompactionPolicy.max_entries must be >= 1 or None, got {self.max_entries}")
        if self.keep_last < 0:
            raise ValueError(f"CompactionPolicy.keep_last must be >= 0, got {self.keep_last}")
        if self.summary_max_tokens < 1:
            raise ValueError(
                f"CompactionPolicy.summary_max_tokens must be >= 1, got {self.summary_max_tokens}"
            )


@dataclass(frozen=True, slots=True)
class LoopResult:
    """How one :meth:`AgentSession.run` ended.

    ``text`` is the text of the last assistant message; ``stop_reason`` the API's last stop reason,
    or ``"max_turns"`` / ``"aborted"``; ``turns`` the number of requests made; ``transcript`` the
    whole transcript afterwards.
    """

    text: str
    stop_reason: str
    turns: int
    transcript: tuple[TranscriptEntry, ...]


def _block_param(block: Any) -> dict[str, Any]:
    """An assistant content block of the SDK as the ``*BlockParam`` dict sent back next time."""
    kind = block.type
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    # Server tool blocks and the like go back as the API sent them.
    return cast(dict[str, Any], block.to_dict())


def _text_of(blocks: Sequence[Mapping[str, Any]]) -> str:
    return "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def _render_for_summary(entries: Sequence[TranscriptEntry]) -> str:
    """The transcript as plain text, for a summary request that carries no tools.

    Plain text, not messages: the history holds tool_use/tool_result pairs and tool_reference
    blocks that a request without tools can't carry.
    """
    lines: list[str] = []
    for entry in entries:
        if isinstance(entry, DeferredToolsDelta | CompactBoundary):
            lines.append(f"[harness] {entry.render()}")
            continue
        role = entry["role"]
        for block in content_blocks(entry):
            kind = block.get("type")
            if kind == "text":
                lines.append(f"[{role}] {block.get('text', '')}")
            elif kind == "tool_use":
                lines.append(f"[{role} calls {block.get('name')}] {block.get('input')!r}")
            elif kind == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = " ".join(str(i.get("text") or i.get("tool_name") or i.get("type")) for i in inner)
                lines.append(f"[tool result] {inner}")
    return "\n".join(lines)


@dataclass
class AgentSession:
    """One conversation of the reference harness with the Messages API.

    ``tools`` are the built-in tools (include the ToolSearch tool for deferred loading) and
    ``mcp_tools`` the MCP tools; the pool is assembled afresh for every request. ``entries`` is
    the transcript and may be given to resume. ``max_turns`` limits requests per :meth:`run`.
    ``call_timeout`` and ``grace_period`` go to the streaming executor.
    """

    client: anthropic.AsyncAnthropic
    builder: RequestBuilder
    session_dir: Path
    tools: Sequence[Tool] = ()
    mcp_tools: Sequence[Tool] = ()
    permission_context: PermissionContext = field(default_factory=PermissionContext)
    hooks: Hooks = field(default_factory=Hooks)
    can_use_tool: CanUseTool | None = None
    entries: list[TranscriptEntry] = field(default_factory=list)
    max_turns: int = 20
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    call_timeout: float | None = None
    grace_period: float = 1.0
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    transcript_path: str = ""
    replacement_state: ContentReplacementState = field(default_factory=ContentReplacementState)
    decision_log: DecisionLog = field(default_factory=DecisionLog)
    progress: list[ToolProgress] = field(default_factory=list)
    state: ToolState = field(default_factory=ToolState)
    last_request: BuiltRequest | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"AgentSession.max_turns must be >= 1, got {self.max_turns}")
        self.entries = list(self.entries)

    def pool(self) -> tuple[Tool, ...]:
        """The tools of the next request: built-ins, then MCP tools, minus whole-tool denials."""
        context = self.permission_context
        return assemble_tool_pool(
            self.tools, self.mcp_tools, is_denied=lambda tool: is_tool_denied_as_whole(tool, context)
        )

    # -- compaction --------------------------------------------------------------------------

    async def summarize(self) -> str:
        """Ask the model for a summary of the transcript in a side request without tools."""
        text = f"{SUMMARY_PROMPT}\n\n<conversation>\n{_render_for_summary(self.entries)}\n</conversation>"
        try:
            message = await self.client.messages.create(
                model=self.builder.model,
                max_tokens=self.compaction.summary_max_tokens,
                messages=[{"role": "user", "content": text}],
            )
        except anthropic.APIStatusError as error:
            raise ApiRequestError.from_sdk(error) from error
        return _text_of([_block_param(b) for b in message.content])

    async def compact(self, summary: str | None = None) -> CompactBoundary:
        """Compact the transcript now; the summary is ``summary`` or the model's (:meth:`summarize`).

        The boundary carries every discovered tool (DEFER-7); the beta latch restarts (CACHE-6).
        """
        text = summary if summary is not None else await self.summarize()
        self.entries = compact_entries(self.entries, text, keep_last=self.compaction.keep_last)
        self.builder.reset()
        boundary = self.entries[0]
        assert isinstance(boundary, CompactBoundary)
        return boundary

    # -- the loop ----------------------------------------------------------------------------

    async def run(
        self, prompt: str | Sequence[Mapping[str, Any]], *, abort: asyncio.Event | None = None
    ) -> LoopResult:
        """Add ``prompt`` as a user message and loop until the model stops asking for tools.

        Raises :class:`ApiRequestError` when the API refuses a request; the transcript then ends
        with what was complete before that request.
        """
        if isinstance(prompt, str):
            if not prompt.strip():
                raise ValueError("AgentSession.run: the prompt is empty")
            content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        else:
            content = [dict(block) for block in prompt]
            if not content:
                raise ValueError("AgentSession.run: the prompt has no content blocks")
        self.entries.append(cast(MessageParam, {"role": "user", "content": content}))
        text, stop_reason, turns = "", "end_turn", 0
        while True:
            if abort is not None and abort.is_set():
                stop_reason = "aborted"
                break
            if turns >= self.max_turns:
                stop_reason = "max_turns"
                break
            limit = self.compaction.max_entries
            if limit is not None and len(self.entries) > limit:
                await self.compact()
            turns += 1
            blocks, stop_reason = await self._turn(abort)
            if blocks:
                text = _text_of(blocks)
            if stop_reason != "tool_use":
                break
        return LoopResult(text=text, stop_reason=stop_reason, turns=turns, transcript=tuple(self.entries))

    def _execution_context(self, pool: Sequence[Tool]) -> ExecutionContext:
        return ExecutionContext(
            tools=pool,
            permission_context=self.permission_context,
            session_dir=self.session_dir,
            hooks=self.hooks,
            can_use_tool=self.can_use_tool,
            base_tools=[*self.tools, *self.mcp_tools],
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            replacement_state=self.replacement_state,
            decision_log=self.decision_log,
            progress=self.progress,
        )

    async def _turn(self, abort: asyncio.Event | None) -> tuple[list[dict[str, Any]], str]:
        """One request and its tool batch; the assistant blocks and the stop reason."""
        pool = self.pool()
        built = self.builder.build(pool, self.entries)
        self.entries.extend(built.appended_entries)
        self.last_request = built
        # What the tools see: the ToolSearch tool reads the pool and the deferred names.
        self.state = self.state.with_pool(pool, built.deferred_tool_names)
        ctx = self._execution_context(pool)
        executor = new_batch_executor(
            ctx,
            abort=abort,
            call_timeout=self.call_timeout,
            state=self.state,
            grace_period=self.grace_period,
        )
        completed: list[dict[str, Any]] = []
        tool_uses: list[ToolUseBlockParam] = []
        streaming = asyncio.ensure_future(self._stream(built.params, executor, completed, tool_uses))
        try:
            finished = await _until_done_or_aborted(streaming, abort)
        except anthropic.APIStatusError as error:
            await _drain(executor)
            raise ApiRequestError.from_sdk(error) from error
        except BaseException:
            await _drain(executor)
            raise
        if finished is None:
            # Aborted mid-stream: keep the blocks that were complete; their tool_uses get results.
            executor.abort()
            blocks, stop_reason = completed, "aborted"
        else:
            blocks, stop_reason = finished
        executor.finish_stream()
        outcomes: list[ToolRunOutcome] = [outcome async for outcome in executor.results()]
        self.state = executor.state
        if blocks:
            self.entries.append(cast(MessageParam, {"role": "assistant", "content": blocks}))
        if tool_uses:
            results = finish_batch(tool_uses, outcomes, ctx)
            self.entries.append(cast(MessageParam, {"role": "user", "content": results}))
        if stop_reason == "tool_use" and abort is not None and abort.is_set():
            stop_reason = "aborted"
        return blocks, stop_reason

    async def _stream(
        self,
        params: Mapping[str, Any],
        executor: StreamingToolExecutor,
        completed: list[dict[str, Any]],
        tool_uses: list[ToolUseBlockParam],
    ) -> tuple[list[dict[str, Any]], str]:
        """Stream one answer, handing each tool_use to ``executor`` once its input is complete."""
        async with self.client.messages.stream(**params) as stream:
            async for event in stream:
                if event.type != "content_block_stop":
                    continue
                block = _block_param(event.content_block)
                completed.append(block)
                if block["type"] == "tool_use":
                    tool_use = cast(ToolUseBlockParam, block)
                    tool_uses.append(tool_use)
                    executor.add_tool_use(tool_use)
            message = await stream.get_final_message()
        return [_block_param(b) for b in message.content], str(message.stop_reason or "end_turn")


async def _until_done_or_aborted(
    task: asyncio.Future[tuple[list[dict[str, Any]], str]], abort: asyncio.Event | None
) -> tuple[list[dict[str, Any]], str] | None:
    """The task's result, or None when ``abort`` was set first (the task is then cancelled)."""
    if abort is None:
        return await task
    waiter = asyncio.ensure_future(abort.wait())
    try:
        await asyncio.wait(
            cast(list[asyncio.Future[Any]], [task, waiter]), return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    # Closing the stream may itself fail; the abort is what the caller acts on.
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    return None


async def _drain(executor: StreamingToolExecutor) -> None:
    """Stop a batch whose request failed: nothing more starts, running calls are interrupted."""
    executor.abort("The request failed")
    executor.finish_stream()
    async for _ in executor.results():
        pass
