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

Hooks at every lifecycle moment the loop has (HOOK-7): SessionStart before the first prompt (and
after a compaction), UserPromptSubmit before a prompt is added (it can block it or add context),
Stop when the model stops (a block sends its reason back and the loop goes on, with
``stop_hook_active`` set on the next Stop), PreCompact before a compaction, Notification before the
host is asked, SessionEnd from :meth:`AgentSession.end`. ``continue: false`` from any hook ends the
loop after the current turn's results; ``systemMessage`` and ``stopReason`` go to the user in
:class:`LoopResult`, never to the model (HOOK-5). Async hooks report on the next turn (HOOK-8).
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

from reference_impl.agent._compaction import SUMMARY_PROMPT, CompactionPolicy, render_for_summary
from reference_impl.agent._results import ApiRequestError, LoopResult, block_param, text_of
from reference_impl.execution import (
    ContentReplacementState,
    DecisionLog,
    ExecutionContext,
    StreamingToolExecutor,
    ToolRunOutcome,
    finish_batch,
    new_batch_executor,
)
from reference_impl.hooks import (
    HookBaseInput,
    Hooks,
    HookSignals,
    LifecycleEvent,
    LifecycleOutcome,
    collect_background,
    run_lifecycle,
)
from reference_impl.permissions import (
    CanUseTool,
    PermissionContext,
    PermissionResult,
    ToolPermissionContext,
    is_tool_denied_as_whole,
)
from reference_impl.request import (
    BuiltRequest,
    CompactBoundary,
    RequestBuilder,
    TranscriptEntry,
    system_reminder,
)
from reference_impl.request import compact as compact_entries
from reference_impl.tools import Tool, ToolProgress, ToolState, assemble_tool_pool

__all__ = ["STOP_HOOK_BLOCK_CAP", "AgentSession"]


STOP_HOOK_BLOCK_CAP = 8
"""Consecutive Stop-hook blocks after which the loop stops anyway (Claude Code's default cap)."""


@dataclass
class AgentSession:
    """One conversation of the reference harness with the Messages API.

    ``tools`` are the built-in tools (include the ToolSearch tool for deferred loading) and
    ``mcp_tools`` the MCP tools; the pool is assembled afresh for every request. ``entries`` is
    the transcript and may be given to resume. ``max_turns`` limits requests per :meth:`run`.
    ``call_timeout`` and ``grace_period`` go to the streaming executor. ``hooks`` run around tool
    calls and at the loop's lifecycle moments; ``stop_hook_block_cap`` bounds consecutive Stop blocks.
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
    stop_hook_block_cap: int = STOP_HOOK_BLOCK_CAP
    last_request: BuiltRequest | None = field(default=None, init=False)
    prompt_id: str | None = field(default=None, init=False)
    started: bool = field(default=False, init=False)
    _signals: HookSignals = field(default_factory=HookSignals, init=False, repr=False)
    _pending_context: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"AgentSession.max_turns must be >= 1, got {self.max_turns}")
        self.entries = list(self.entries)

    # -- lifecycle hooks (HOOK-7) ------------------------------------------------------------

    def hook_base(self) -> HookBaseInput:
        """The common fields of every hook input now (HOOK-6)."""
        return HookBaseInput(
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            cwd=str(self.permission_context.cwd),
            permission_mode=self.permission_context.mode,
            prompt_id=self.prompt_id,
        )

    async def _lifecycle(
        self, event: LifecycleEvent, fields: Mapping[str, Any], match: str | None = None
    ) -> LifecycleOutcome:
        if not self.hooks.has(event):
            return LifecycleOutcome(event)
        outcome = await run_lifecycle(self.hooks, event, fields, base=self.hook_base(), match=match)
        self._signals.take(outcome)
        # Exit-2 stderr of an event that can't block is for the user (Claude Code shows it).
        self._signals.system_messages.extend(outcome.user_notes)
        return outcome

    def _add_context(self, event: str, contexts: Sequence[str]) -> None:
        self._pending_context.extend(f"{event} hook additional context: {c}" for c in contexts)

    def _flush_context(self) -> None:
        """Deliver pending hook context with the next request, in the last user message."""
        if not self._pending_context:
            return
        blocks = [{"type": "text", "text": system_reminder(text)} for text in self._pending_context]
        self._pending_context.clear()
        last = self.entries[-1] if self.entries else None
        if isinstance(last, dict) and last.get("role") == "user":
            content = last["content"]
            listed = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            self.entries[-1] = cast(MessageParam, {**last, "content": [*listed, *blocks]})
        else:
            self.entries.append(cast(MessageParam, {"role": "user", "content": blocks}))

    async def _collect_background(self, *, wait: bool = False) -> None:
        for done in await collect_background(self.hooks, wait=wait):
            if done.error is not None:
                self._signals.errors.append(done.error)
            if done.system_message:
                self._signals.system_messages.append(done.system_message)
            if done.additional_context:
                self._add_context(done.event, [done.additional_context])

    async def start(self, source: str | None = None) -> LifecycleOutcome:
        """Fire SessionStart: ``startup``, or ``resume`` for a session given entries.

        Its context goes with the next request. :meth:`run` calls it once when nobody did.
        """
        self.started = True
        chosen = source or ("resume" if self.entries else "startup")
        outcome = await self._lifecycle("SessionStart", {"source": chosen}, match=chosen)
        self._add_context("SessionStart", outcome.additional_contexts)
        return outcome

    async def end(self, reason: str = "other") -> tuple[str, ...]:
        """Fire SessionEnd and wait for the async hooks still running; what they say to the user."""
        self._signals = HookSignals()
        await self._lifecycle("SessionEnd", {"reason": reason}, match=reason)
        await self._collect_background(wait=True)
        return tuple(self._signals.system_messages)

    def _notifying(self, host: CanUseTool) -> CanUseTool:
        async def ask(
            name: str, tool_input: dict[str, Any], context: ToolPermissionContext
        ) -> PermissionResult:
            message = f"Claude needs your permission to use {name}"
            fields = {"message": message, "notification_type": "permission_prompt"}
            await self._lifecycle("Notification", fields, match="permission_prompt")
            return await host(name, tool_input, context)

        return ask

    def pool(self) -> tuple[Tool, ...]:
        """The tools of the next request: built-ins, then MCP tools, minus whole-tool denials."""
        context = self.permission_context
        return assemble_tool_pool(
            self.tools, self.mcp_tools, is_denied=lambda tool: is_tool_denied_as_whole(tool, context)
        )

    # -- compaction --------------------------------------------------------------------------

    async def summarize(self) -> str:
        """Ask the model for a summary of the transcript in a side request without tools."""
        text = f"{SUMMARY_PROMPT}\n\n<conversation>\n{render_for_summary(self.entries)}\n</conversation>"
        try:
            message = await self.client.messages.create(
                model=self.builder.model,
                max_tokens=self.compaction.summary_max_tokens,
                messages=[{"role": "user", "content": text}],
            )
        except anthropic.APIStatusError as error:
            raise ApiRequestError.from_sdk(error) from error
        return text_of([block_param(b) for b in message.content])

    async def compact(
        self, summary: str | None = None, *, trigger: str = "manual", custom_instructions: str = ""
    ) -> CompactBoundary:
        """Compact the transcript now; the summary is ``summary`` or the model's (:meth:`summarize`).

        PreCompact hooks run first (``trigger`` ``manual``, or ``auto`` from the loop's policy), then
        SessionStart with source ``compact`` (HOOK-7). The boundary carries every discovered tool
        (DEFER-7); the beta latch restarts (CACHE-6).
        """
        fields = {"trigger": trigger, "custom_instructions": custom_instructions}
        await self._lifecycle("PreCompact", fields, match=trigger)
        text = summary if summary is not None else await self.summarize()
        self.entries = compact_entries(self.entries, text, keep_last=self.compaction.keep_last)
        self.builder.reset()
        boundary = self.entries[0]
        assert isinstance(boundary, CompactBoundary)
        await self.start("compact")
        return boundary

    # -- the loop ----------------------------------------------------------------------------

    async def run(
        self, prompt: str | Sequence[Mapping[str, Any]], *, abort: asyncio.Event | None = None
    ) -> LoopResult:
        """Add ``prompt`` as a user message and loop until the model stops asking for tools.

        SessionStart runs before the first prompt, UserPromptSubmit before each (a block keeps the
        prompt out of the transcript), Stop when the model stops (HOOK-7); a hook's ``continue: false``
        ends the loop after the turn's results (HOOK-5). Raises :class:`ApiRequestError` when the API
        refuses a request; the transcript then ends with what was complete before that request.
        """
        if isinstance(prompt, str):
            if not prompt.strip():
                raise ValueError("AgentSession.run: the prompt is empty")
            content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        else:
            content = [dict(block) for block in prompt]
            if not content:
                raise ValueError("AgentSession.run: the prompt has no content blocks")
        signals = self._signals = HookSignals()
        if not self.started:
            await self.start()
        self.prompt_id = str(uuid.uuid4())
        text, stop_reason, turns = "", "end_turn", 0
        submitted = await self._lifecycle("UserPromptSubmit", {"prompt": text_of(content)})
        if submitted.block or signals.stop:
            # The prompt is not processed and not kept (Claude Code erases a blocked prompt); the
            # SessionStart context still waits for the next prompt. continue: false takes precedence
            # over a block (Claude Code shows only the stopReason then).
            if signals.stop:
                return self._result("", "hook_stopped", 0)
            return self._result("", "prompt_blocked", 0, "\n".join(submitted.block_reasons))
        self.entries.append(cast(MessageParam, {"role": "user", "content": content}))
        self._add_context("UserPromptSubmit", submitted.additional_contexts)
        stop_hook_active, stop_blocks = False, 0
        while True:
            if abort is not None and abort.is_set():
                stop_reason = "aborted"
                break
            if turns >= self.max_turns:
                stop_reason = "max_turns"
                break
            limit = self.compaction.max_entries
            if limit is not None and len(self.entries) > limit:
                await self.compact(trigger="auto")
            await self._collect_background()
            self._flush_context()
            turns += 1
            blocks, stop_reason = await self._turn(abort)
            if blocks:
                text = text_of(blocks)
            if signals.stop:
                # continue: false: every tool_use of this turn has its result; no further request.
                stop_reason = "hook_stopped"
                break
            if stop_reason == "tool_use":
                continue
            if stop_reason == "aborted":
                break
            fields = {"stop_hook_active": stop_hook_active, "last_assistant_message": text}
            stopping = await self._lifecycle("Stop", fields)
            if signals.stop:
                stop_reason = "hook_stopped"
                break
            if not stopping.block or stop_blocks >= self.stop_hook_block_cap:
                break
            # The hook refused the stop: its reason goes to the model and the loop goes on.
            feedback = "Stop hook feedback:\n" + "\n".join(stopping.block_reasons)
            self.entries.append(
                cast(MessageParam, {"role": "user", "content": [{"type": "text", "text": feedback}]})
            )
            stop_hook_active, stop_blocks = True, stop_blocks + 1
        return self._result(text, stop_reason, turns)

    def _result(self, text: str, stop_reason: str, turns: int, blocked: str = "") -> LoopResult:
        signals = self._signals
        return LoopResult(
            text=text,
            stop_reason=stop_reason,
            turns=turns,
            transcript=tuple(self.entries),
            system_messages=tuple(signals.system_messages),
            hook_stop_reason=signals.stop_reason if signals.stop else "",
            prompt_block_reason=blocked,
            hook_errors=tuple(signals.errors),
        )

    def execution_context(self, pool: Sequence[Tool]) -> ExecutionContext:
        """What a turn's tool batch runs with: the pool, the session's permissions, hooks and state.

        The host is asked through the Notification hooks when there are any (HOOK-7); hooks get the
        session's id, transcript and current prompt (HOOK-6).
        """
        host = self.can_use_tool
        if host is not None and self.hooks.has("Notification"):
            host = self._notifying(host)
        return ExecutionContext(
            tools=pool,
            permission_context=self.permission_context,
            session_dir=self.session_dir,
            hooks=self.hooks,
            can_use_tool=host,
            prompt_id=self.prompt_id,
            hook_signals=self._signals,
            base_tools=[*self.tools, *self.mcp_tools],
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            replacement_state=self.replacement_state,
            decision_log=self.decision_log,
            progress=self.progress,
        )

    def next_request(self) -> BuiltRequest:
        """Build the next request as :meth:`run` sends it, keeping what it appends to the transcript.

        The pool is assembled afresh (:meth:`pool`), the entries the request introduces (a
        ``deferred_tools_delta`` notice) join the transcript, and the tools' state takes the new pool
        and its deferred names (the ToolSearch tool reads both).
        """
        pool = self.pool()
        built = self.builder.build(pool, self.entries)
        self.entries.extend(built.appended_entries)
        self.last_request = built
        self.state = self.state.with_pool(pool, built.deferred_tool_names)
        return built

    async def _turn(self, abort: asyncio.Event | None) -> tuple[list[dict[str, Any]], str]:
        """One request and its tool batch; the assistant blocks and the stop reason."""
        built = self.next_request()
        pool = self.state.tools
        ctx = self.execution_context(pool)
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
        if stop_reason == "tool_use" and (executor.aborted or (abort is not None and abort.is_set())):
            # An abort, or a user's deny that interrupts: the results are kept, no further request.
            stop_reason = "aborted"
        return blocks, stop_reason

    async def _stream(
        self,
        params: Mapping[str, Any],
        executor: StreamingToolExecutor,
        completed: list[dict[str, Any]],
        tool_uses: list[ToolUseBlockParam],
    ) -> tuple[list[dict[str, Any]], str]:
        """Stream one answer, handing each tool_use to ``executor`` once its input is complete.

        A stream that ends before ``message_stop`` is a failed request (:class:`ApiRequestError`),
        never a finished answer: taken as one, the calls it started would never be answered.
        """
        stopped = False
        async with self.client.messages.stream(**params) as stream:
            async for event in stream:
                stopped = stopped or event.type == "message_stop"
                if event.type != "content_block_stop":
                    continue
                block = block_param(event.content_block)
                completed.append(block)
                if block["type"] == "tool_use":
                    tool_use = cast(ToolUseBlockParam, block)
                    tool_uses.append(tool_use)
                    executor.add_tool_use(tool_use)
            incomplete = _incomplete_stream(stopped)
            if incomplete is not None:
                raise incomplete
            message = await stream.get_final_message()
        return [block_param(b) for b in message.content], str(message.stop_reason or "end_turn")


def _incomplete_stream(stopped: bool) -> ApiRequestError | None:
    """The error of an answer's stream that ended before ``message_stop``, None for a whole one."""
    if stopped:
        return None
    return ApiRequestError(200, "the answer's stream ended before message_stop (incomplete answer)")


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
