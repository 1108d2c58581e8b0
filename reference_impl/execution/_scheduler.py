"""The streaming tool executor: scheduling, aborts and sibling cancellation (CONC-1..5, PAIR-1..5).

Modelled on Claude Code's ``StreamingToolExecutor`` (004 §5.2, §6.4, §9.3). tool_use blocks are
added as they stream in; each starts as soon as Claude Code's ``canExecuteTool`` rule allows: when
nothing is running, or when it and everything running are concurrency safe. Queued calls start in
order, and a call that is not concurrency safe is a barrier: nothing after it starts before it ends
(CONC-1, CONC-2). Results are yielded in tool_use order (receive order, PAIR-5).

The executor is generic over the per-call pipeline: it calls ``run_one(block, control)`` and gets a
:class:`ToolRunOutcome`. Whatever happens, every accepted tool_use id gets exactly one outcome
(PAIR-1, PAIR-2):

- after :meth:`StreamingToolExecutor.abort` (or the ``abort`` event) no call starts; every call
  without an outcome gets a synthetic error (CONC-5);
- a shell-type call whose outcome is ``failed`` (or that raises or times out) cancels its unfinished
  shell-type siblings, including ones added later in the batch; each gets a synthetic error (CONC-4);
- a call that runs longer than ``call_timeout`` seconds gets a timeout error;
- a ``run_one`` that raises, or returns something that is not an outcome for this id, gets a
  synthetic error carrying the reason.

Decisions: a running call that is interrupted gets its synthetic error at once; it is signalled
through its own abort event, given ``grace_period`` seconds to return, then cancelled, and whatever
it returns after the interruption is discarded (as Claude Code does), so a result never depends on a
race. Its slot still counts as running until its task has ended, so an interrupted call never
overlaps a call that is not concurrency safe. A duplicate tool_use id is refused with
:class:`DuplicateToolUseIdError` (a second result for the id would break PAIR-1; the API rejects such
a message anyway); the calls already accepted are unaffected.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias, cast

from anthropic.types import ToolResultBlockParam, ToolUseBlockParam

from reference_impl._repeats import repeated
from reference_impl.tools import ContextModifier, ToolState

__all__ = [
    "CallControl",
    "DuplicateToolUseIdError",
    "RunOne",
    "StreamingToolExecutor",
    "ToolRunOutcome",
    "synthetic_error_result",
]

DEFAULT_GRACE_PERIOD = 1.0
"""Seconds an interrupted call gets to return after its abort event is set, before it is cancelled."""

USER_INTERRUPT_REASON = "Interrupted by user"


@dataclass(frozen=True, slots=True)
class ToolRunOutcome:
    """What one tool_use produced: its result plus what goes with it.

    ``extra_blocks`` are content blocks to add after the results (hook additional context, ...).
    ``context_modifier`` maps the shared state for later calls; the executor honours it only for a
    call that is not concurrency safe (EXEC-4). ``failed`` marks a failure (a failing shell-type call
    cancels its shell-type siblings). ``synthetic`` marks an outcome the executor made up.
    ``interrupts`` aborts the rest of the batch once this outcome is recorded: the user (or a
    PermissionRequest hook in their place) denied the call and asked to stop (CONC-5).
    """

    result: ToolResultBlockParam
    extra_blocks: tuple[Mapping[str, Any], ...] = ()
    context_modifier: ContextModifier | None = None
    failed: bool = False
    synthetic: bool = False
    interrupts: bool = False


@dataclass(frozen=True, slots=True)
class CallControl:
    """What the executor gives one running call.

    ``abort`` is the call's own event, set on a user abort, a sibling failure or a timeout. ``state``
    is the shared state as it was when the call started. ``batch_abort`` is the batch's outside
    abort event, if any.
    """

    abort: asyncio.Event
    state: ToolState = field(default_factory=ToolState)
    batch_abort: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        """Whether the call or the whole batch was aborted (checked right before the tool starts, CONC-5).

        The batch's outside abort event is read directly: the executor learns of it only when its
        watcher task runs, and a call already scheduled must not start in between.
        """
        return self.abort.is_set() or (self.batch_abort is not None and self.batch_abort.is_set())


RunOne: TypeAlias = Callable[[ToolUseBlockParam, CallControl], Awaitable[ToolRunOutcome]]


class DuplicateToolUseIdError(ValueError):
    """A tool_use id was added twice to one executor."""


def synthetic_error_result(tool_use_id: str, message: str) -> ToolResultBlockParam:
    """An error tool_result made by the harness: ``is_error`` and non-empty text (PAIR-3)."""
    text = message.strip() or "Tool call failed"
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": f"<tool_use_error>{text}</tool_use_error>",
        "is_error": True,
    }


def _synthetic(tool_use_id: str, message: str, *, failed: bool = False) -> ToolRunOutcome:
    return ToolRunOutcome(synthetic_error_result(tool_use_id, message), failed=failed, synthetic=True)


def _has_text(content: object) -> bool:
    if isinstance(content, str):
        return content.strip() != ""
    if isinstance(content, list | tuple):
        return any(
            isinstance(b, Mapping) and (b.get("type") != "text" or str(b.get("text", "")).strip())
            for b in content
        )
    return False


@dataclass(eq=False)
class _Call:
    index: int
    block: ToolUseBlockParam
    tool_use_id: str
    name: str
    safe: bool
    shell: bool
    abort: asyncio.Event
    status: Literal["queued", "running", "ended"] = "queued"
    outcome: ToolRunOutcome | None = None
    task: asyncio.Task[None] | None = None
    timers: list[asyncio.TimerHandle] = field(default_factory=list)


def _safe_predicate(predicate: Callable[[ToolUseBlockParam], bool], block: ToolUseBlockParam) -> bool:
    # A predicate that fails answers "no": the conservative choice (CONC-3).
    try:
        return bool(predicate(block))
    except Exception:
        return False


class StreamingToolExecutor:
    """Runs the tool_use blocks of one assistant message as they stream in.

    ``run_one`` runs one call through the pipeline. ``is_concurrency_safe`` and ``is_shell`` classify
    a block (a predicate that raises counts as False). ``call_timeout`` (seconds, or None) limits
    each call; ``abort`` is an outside event that aborts the batch like :meth:`abort`.
    ``grace_period`` is how long an interrupted call may take to return before it is cancelled.
    """

    def __init__(
        self,
        run_one: RunOne,
        *,
        is_concurrency_safe: Callable[[ToolUseBlockParam], bool],
        is_shell: Callable[[ToolUseBlockParam], bool],
        call_timeout: float | None = None,
        abort: asyncio.Event | None = None,
        grace_period: float = DEFAULT_GRACE_PERIOD,
        state: ToolState | None = None,
    ) -> None:
        if call_timeout is not None and not call_timeout > 0:
            raise ValueError(f"call_timeout must be positive or None, not {call_timeout!r}")
        if not grace_period >= 0:
            raise ValueError(f"grace_period must be >= 0, not {grace_period!r}")
        self._run_one = run_one
        self._is_safe = is_concurrency_safe
        self._is_shell = is_shell
        self._call_timeout = call_timeout
        self._outside_abort = abort
        self._grace = grace_period
        self._state = state if state is not None else ToolState()
        self._calls: list[_Call] = []
        # Kept with the calls' status: the running calls, those of them not concurrency safe, and
        # the index before which no call is queued (status only moves forward).
        self._running = 0
        self._running_unsafe = 0
        self._scan_from = 0
        self._ids: set[str] = set()
        self._stream_finished = False
        self._abort_reason: str | None = None
        self._failed_shell: _Call | None = None
        self._changed = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None

    # -- public API --------------------------------------------------------------------------

    @property
    def state(self) -> ToolState:
        """The shared state after the context changes applied so far (EXEC-4)."""
        return self._state

    @property
    def aborted(self) -> bool:
        """Whether the batch was aborted."""
        return self._abort_reason is not None

    def add_tool_use(self, block: ToolUseBlockParam) -> None:
        """Accept one streamed tool_use block; it starts at once if the scheduling rule allows.

        Raises ``ValueError`` for a block without a string ``id`` and ``name``,
        :class:`DuplicateToolUseIdError` for an id already added, ``RuntimeError`` after
        :meth:`finish_stream`. Needs a running event loop.
        """
        if self._stream_finished:
            raise RuntimeError("add_tool_use() after finish_stream()")
        tool_use_id, name = block.get("id"), block.get("name")
        if not isinstance(tool_use_id, str) or not tool_use_id or not isinstance(name, str):
            raise ValueError(f"a tool_use block needs a non-empty string 'id' and a string 'name': {block!r}")
        if tool_use_id in self._ids:
            raise DuplicateToolUseIdError(f"tool_use id {tool_use_id!r} was already added to this batch")
        self._start_watcher()
        self._ids.add(tool_use_id)
        call = _Call(
            index=len(self._calls),
            block=block,
            tool_use_id=tool_use_id,
            name=name,
            safe=_safe_predicate(self._is_safe, block),
            shell=_safe_predicate(self._is_shell, block),
            abort=asyncio.Event(),
        )
        self._calls.append(call)
        if self._outside_abort is not None and self._outside_abort.is_set():
            self.abort()
        if self._abort_reason is not None:
            self._interrupt(call, self._abort_reason)
        elif call.shell and self._failed_shell is not None:
            self._interrupt(call, self._sibling_message(self._failed_shell))
        else:
            self._process_queue()
        self._wake()

    def finish_stream(self) -> None:
        """No more tool_use blocks will come."""
        self._stream_finished = True
        self._wake()

    def abort(self, reason: str = USER_INTERRUPT_REASON) -> None:
        """Abort the batch: nothing more starts, every call without an outcome gets an error (CONC-5)."""
        if self._abort_reason is not None:
            return
        self._abort_reason = reason.strip() or USER_INTERRUPT_REASON
        for call in self._calls:
            if call.outcome is None:
                self._interrupt(call, self._abort_reason)
        self._wake()

    async def results(self) -> AsyncIterator[ToolRunOutcome]:
        """Yield one outcome per tool_use, in tool_use order, as each becomes available.

        An outcome not yet available holds back the ones after it. Ends after :meth:`finish_stream`
        once every outcome was yielded, and after the tasks of interrupted calls have ended (or, for a
        call that ignores cancellation, after waiting ``grace_period`` more).
        """
        self._start_watcher()
        next_index = 0
        try:
            while True:
                self._changed.clear()
                while next_index < len(self._calls):
                    outcome = self._calls[next_index].outcome
                    if outcome is None:
                        break
                    next_index += 1
                    yield outcome
                if self._stream_finished and next_index == len(self._calls):
                    break
                await self._changed.wait()
            tasks = [c.task for c in self._calls if c.task is not None and not c.task.done()]
            if tasks:
                await asyncio.wait(tasks, timeout=self._grace + 1.0)
        finally:
            if self._watcher is not None:
                self._watcher.cancel()
                self._watcher = None

    async def run_batch(self, blocks: Iterable[ToolUseBlockParam]) -> list[ToolRunOutcome]:
        """Run a whole message's tool_use blocks; one outcome per block, in order.

        Duplicate ids are refused before anything runs.
        """
        blocks = list(blocks)
        ids = [b.get("id") for b in blocks]
        duplicates = [str(i) for i in repeated(ids)] if len(set(ids)) != len(ids) else []
        if duplicates:
            raise DuplicateToolUseIdError(f"duplicate tool_use id(s) in the batch: {', '.join(duplicates)}")
        for block in blocks:
            self.add_tool_use(block)
        self.finish_stream()
        return [outcome async for outcome in self.results()]

    # -- scheduling --------------------------------------------------------------------------

    def _can_execute(self, safe: bool) -> bool:
        # Nothing running, or this call and every running one are concurrency safe (canExecuteTool).
        return self._running == 0 or (safe and self._running_unsafe == 0)

    def _process_queue(self) -> None:
        if self._abort_reason is not None:
            return
        calls, start = self._calls, self._scan_from
        while start < len(calls) and calls[start].status != "queued":
            start += 1
        self._scan_from = start
        for index in range(start, len(calls)):
            call = calls[index]
            if call.status != "queued":
                continue
            if self._can_execute(call.safe):
                self._start(call)
            elif not call.safe:
                break  # a barrier: nothing after it may start before it

    def _start(self, call: _Call) -> None:
        call.status = "running"
        self._running += 1
        if not call.safe:
            self._running_unsafe += 1
        control = CallControl(abort=call.abort, state=self._state, batch_abort=self._outside_abort)
        call.task = asyncio.get_running_loop().create_task(self._run(call, control))
        call.task.add_done_callback(lambda _task: self._ended(call, None))
        if self._call_timeout is not None:
            call.timers.append(
                asyncio.get_running_loop().call_later(self._call_timeout, self._timed_out, call)
            )

    async def _run(self, call: _Call, control: CallControl) -> None:
        if call.outcome is not None:
            # Interrupted between scheduling and its first step: the tool never begins (CONC-5).
            self._ended(call, None)
            return
        try:
            outcome = await self._run_one(call.block, control)
        except asyncio.CancelledError:
            self._ended(call, None)
            raise
        except Exception as exc:
            detail = str(exc) or type(exc).__name__
            outcome = _synthetic(call.tool_use_id, f"Error: {type(exc).__name__}: {detail}", failed=True)
        # Handled here, in the call's last step, so that no other call can finish in between.
        self._ended(call, self._checked(call, outcome))

    def _checked(self, call: _Call, outcome: object) -> ToolRunOutcome:
        if not isinstance(outcome, ToolRunOutcome):
            return _synthetic(
                call.tool_use_id,
                f"run_one returned {type(outcome).__name__}, not a ToolRunOutcome",
                failed=True,
            )
        result = cast(Mapping[str, Any], outcome.result)
        if result.get("type") != "tool_result" or result.get("tool_use_id") != call.tool_use_id:
            return _synthetic(
                call.tool_use_id,
                f"run_one returned a result that is not a tool_result for {call.tool_use_id}",
                failed=True,
            )
        if result.get("is_error") and not _has_text(result.get("content")):
            # PAIR-3: an error must say something.
            fixed = synthetic_error_result(call.tool_use_id, f"{call.name} failed without a message")
            return replace(outcome, result=fixed, synthetic=False)
        return outcome

    def _ended(self, call: _Call, outcome: ToolRunOutcome | None) -> None:
        if call.status == "ended":
            return
        if call.status == "running":
            self._running -= 1
            if not call.safe:
                self._running_unsafe -= 1
        call.status = "ended"
        for timer in call.timers:
            timer.cancel()
        if call.outcome is None:
            if outcome is None:
                outcome = _synthetic(call.tool_use_id, f"{call.name} was cancelled", failed=True)
            if outcome.context_modifier is not None and not call.safe:
                try:
                    changed = outcome.context_modifier(self._state)
                    if not isinstance(changed, ToolState):
                        raise TypeError(
                            f"a context modifier must return a ToolState, not {type(changed).__name__}"
                        )
                    self._state = changed
                except Exception as exc:
                    outcome = _synthetic(
                        call.tool_use_id, f"Error applying the context change: {exc}", failed=True
                    )
            call.outcome = outcome
            if outcome.failed and call.shell:
                self._cancel_shell_siblings(call)
            if outcome.interrupts:
                # After this call's own outcome is kept: the denial's message reaches the model.
                self.abort()
        self._process_queue()
        self._wake()

    # -- interruptions -----------------------------------------------------------------------

    def _interrupt(self, call: _Call, message: str, *, failed: bool = False) -> None:
        """Give ``call`` its synthetic error now; signal and, after the grace period, cancel it."""
        if call.outcome is not None:
            return
        call.outcome = _synthetic(call.tool_use_id, message, failed=failed)
        if call.status == "queued":
            call.status = "ended"
        elif call.status == "running":
            call.abort.set()
            task = call.task
            if task is not None:
                call.timers.append(asyncio.get_running_loop().call_later(self._grace, task.cancel))
        self._wake()

    @staticmethod
    def _sibling_message(failed: _Call) -> str:
        return f"Cancelled: parallel tool call {failed.name}({failed.tool_use_id}) errored"

    def _cancel_shell_siblings(self, failed: _Call) -> None:
        if self._failed_shell is None:
            self._failed_shell = failed
        message = self._sibling_message(failed)
        for call in self._calls:
            if call is not failed and call.shell and call.outcome is None:
                self._interrupt(call, message)

    def _timed_out(self, call: _Call) -> None:
        if call.outcome is not None or call.status != "running":
            return
        self._interrupt(call, f"Tool call timed out after {self._call_timeout:g} s", failed=True)
        if call.shell:
            self._cancel_shell_siblings(call)

    # -- plumbing ----------------------------------------------------------------------------

    def _wake(self) -> None:
        self._changed.set()

    def _start_watcher(self) -> None:
        if self._outside_abort is None or self._watcher is not None:
            return
        event = self._outside_abort

        async def watch() -> None:
            with contextlib.suppress(asyncio.CancelledError):
                await event.wait()
                self.abort()

        self._watcher = asyncio.get_running_loop().create_task(watch())
