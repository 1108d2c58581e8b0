"""``run_tool_use``: one tool_use block through the whole pipeline (004 §3, §5.3–§5.10; EXEC-1..5).

The stages run in this order, and a stage that rejects ends the call with an error tool_result
(the tool's ``call`` never runs):

1. lookup by name, then by deprecated alias (EXEC-3);
2. schema validation (pydantic model or JSON schema: ``_input_checks``);
3. the tool's own ``validate_input``;
4. PreToolUse hooks (only ever on validated input);
5. the permission decision (rules, the tool's own check, mode, the hooks' verdict);
6. on ask: PermissionRequest hooks, then the host (``can_use_tool``), else deny (PERM-8: ``_asks``);
7. the call, with its context and abort signal;
8. result mapping and the per-tool size limit (RESULT-1, RESULT-2, PAIR-4);
9. PostToolUse hooks after success, PostToolUseFailure hooks after failure (EXEC-5).

An input replaced by a hook or the host is validated again and judged again, so a rewrite can't
smuggle in what a rule denies (EXEC-2).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from anthropic.types import ToolUseBlockParam

from reference_impl.execution._asks import settle_ask_with_hooks_or_host
from reference_impl.execution._context import ExecutionContext
from reference_impl.execution._input_checks import PRECHECKED, CheckedInput, check_input, validate_tool_input
from reference_impl.execution._results import (
    apply_message_budget,
    map_tool_output,
    maybe_persist_large_result,
)
from reference_impl.execution._scheduler import (
    CallControl,
    StreamingToolExecutor,
    ToolRunOutcome,
    synthetic_error_result,
)
from reference_impl.hooks import run_post_tool_use, run_post_tool_use_failure, run_pre_tool_use
from reference_impl.permissions import decide_permission, internal_error_decision
from reference_impl.request import system_reminder
from reference_impl.tools import ToolContext, ToolOutput, ToolState

__all__ = [
    "BatchResult",
    "finish_batch",
    "new_batch_executor",
    "run_tool_use",
    "run_tool_uses",
]


def _error(tool_use_id: str, text: str) -> ToolRunOutcome:
    # Rejected before the call: nothing ran, so it is not a failure that cancels shell siblings.
    return ToolRunOutcome(synthetic_error_result(tool_use_id, text))


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


async def run_tool_use(
    block: ToolUseBlockParam, control: CallControl, ctx: ExecutionContext
) -> ToolRunOutcome:
    """Turn one tool_use into exactly one tool_result (plus blocks that follow it), stage by stage."""
    tool_use_id = block["id"]
    name = block["name"]
    tool = ctx.find_tool(name)
    if tool is None:
        return _error(tool_use_id, f"Error: No such tool available: {name}")
    tool_context = ToolContext(
        tool_use_id=tool_use_id,
        abort=control.abort,
        cwd=ctx.permission_context.cwd,
        progress=ctx.progress.append,
        state=control.state,
    )
    raw_input = block.get("input")
    problem = check_input(tool, raw_input, tool_context)
    if problem is not None:
        return _error(tool_use_id, problem)
    tool_input: Mapping[str, Any] = dict(cast(Mapping[str, Any], raw_input))
    extra: list[dict[str, Any]] = []
    base = ctx.hook_base()

    pre = await run_pre_tool_use(
        ctx.hooks, tool_name=tool.name, tool_input=tool_input, tool_use_id=tool_use_id, base=base, tool=tool
    )
    ctx.hook_signals.take(pre)
    if pre.additional_contexts:
        extra.extend(
            _text_block(system_reminder(f"PreToolUse:{tool.name} hook additional context: {c}"))
            for c in pre.additional_contexts
        )
    if pre.updated_input is not None:
        problem = check_input(tool, pre.updated_input, tool_context)
        if problem is not None:
            return _error(tool_use_id, f"A PreToolUse hook's updated input was rejected: {problem}")
        tool_input = dict(pre.updated_input)

    interrupts = False  # a deny from the user (or a hook in their place) that also stops the batch
    try:  # PERM-14: no exception escapes the permission stage; an internal error denies
        decision = decide_permission(
            tool, tool_input, ctx.permission_context, hook_verdict=pre.verdict, tool_context=tool_context
        )
        if decision.behavior == "ask":
            decision, tool_input, interrupts = await settle_ask_with_hooks_or_host(
                tool, tool_input, decision, ctx, tool_context
            )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        decision = internal_error_decision(tool.name, exc)
    if decision.behavior == "ask":  # pragma: no cover - settle_ask_with_hooks_or_host settles every ask
        decision = internal_error_decision(tool.name, RuntimeError("an ask was left unresolved"))
    elif decision.behavior == "allow" and decision.updated_input is not None:
        problem = check_input(tool, decision.updated_input, tool_context)
        if problem is not None:
            return _error(tool_use_id, problem)
        tool_input = dict(decision.updated_input)
    ctx.decision_log.record(tool_use_id, decision)
    if decision.behavior != "allow":
        return ToolRunOutcome(
            synthetic_error_result(
                tool_use_id, decision.message or f"Permission to use {tool.name} has been denied."
            ),
            tuple(extra),
            interrupts=interrupts,
        )

    if control.aborted:
        # The batch was aborted while this call went through the earlier stages: it never starts (CONC-5).
        return ToolRunOutcome(
            synthetic_error_result(tool_use_id, f"Interrupted by user: {tool.name} was not started"),
            tuple(extra),
        )
    started = time.monotonic()
    try:
        output = await tool.call(tool_input, tool_context)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        post_fail = await run_post_tool_use_failure(
            ctx.hooks,
            tool_name=tool.name,
            tool_input=tool_input,
            tool_use_id=tool_use_id,
            error=message,
            base=base,
            duration_ms=_elapsed_ms(started),
            tool=tool,
        )
        ctx.hook_signals.take(post_fail)
        extra.extend(
            _post_blocks(
                tool.name, post_fail.block_messages, post_fail.additional_contexts, "PostToolUseFailure"
            )
        )
        return ToolRunOutcome(
            synthetic_error_result(tool_use_id, f"Error: {message}"), tuple(extra), failed=True
        )

    if isinstance(output, str):
        output = ToolOutput(content=output)
    if output.is_error:
        post_fail = await run_post_tool_use_failure(
            ctx.hooks,
            tool_name=tool.name,
            tool_input=tool_input,
            tool_use_id=tool_use_id,
            error=_plain_text(output.content),
            base=base,
            duration_ms=_elapsed_ms(started),
            tool=tool,
        )
        ctx.hook_signals.take(post_fail)
        extra.extend(
            _post_blocks(
                tool.name, post_fail.block_messages, post_fail.additional_contexts, "PostToolUseFailure"
            )
        )
    else:
        post = await run_post_tool_use(
            ctx.hooks,
            tool_name=tool.name,
            tool_input=tool_input,
            tool_use_id=tool_use_id,
            tool_response=_response_for_hooks(output),
            base=base,
            duration_ms=_elapsed_ms(started),
            tool=tool,
        )
        ctx.hook_signals.take(post)
        if post.updated_mcp_tool_output is not None:
            # The hook's replacement is what the model gets (MCP tools): applied before mapping.
            output = ToolOutput(
                content=_as_content(post.updated_mcp_tool_output.value),
                context_modifier=output.context_modifier,
            )
        if post.block_messages or post.additional_contexts:
            extra.extend(
                _post_blocks(tool.name, post.block_messages, post.additional_contexts, "PostToolUse")
            )

    try:
        result = (
            tool.map_result(output, tool_use_id)
            if tool.map_result is not None
            else map_tool_output(tool.name, output, tool_use_id)
        )
        result = maybe_persist_large_result(result, tool, ctx.session_dir, ctx.replacement_state)
    except (OSError, TypeError, ValueError) as exc:
        return ToolRunOutcome(
            synthetic_error_result(tool_use_id, f"Error: {tool.name}'s result could not be delivered: {exc}"),
            tuple(extra),
            failed=True,
        )
    return ToolRunOutcome(
        result, tuple(extra), context_modifier=output.context_modifier, failed=output.is_error
    )


def _post_blocks(
    tool_name: str, blocks: Sequence[str], contexts: Sequence[str], event: str
) -> list[dict[str, Any]]:
    texts = [system_reminder(message) for message in blocks]
    texts.extend(system_reminder(f"{event}:{tool_name} hook additional context: {c}") for c in contexts)
    return [_text_block(text) for text in texts]


def _plain_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, Mapping) and b.get("type") == "text"
        )
    return str(content)


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _response_for_hooks(output: ToolOutput) -> Any:
    # The tool's own response shape when it has one (Bash: stdout, stderr, ...: HOOK-6).
    if output.hook_response is not None:
        return output.hook_response
    content = output.content
    if isinstance(content, str | Mapping) or not isinstance(content, Sequence):
        # Whatever it is, the hook sees it as it is; a bad output is reported after the hooks.
        return content
    return [dict(block) if isinstance(block, Mapping) else block for block in content]


def _as_content(value: Any) -> str | Sequence[Mapping[str, Any]] | Mapping[str, Any]:
    if isinstance(value, str | Mapping):
        return value
    if isinstance(value, Sequence) and all(isinstance(b, Mapping) for b in value):
        return list(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class BatchResult:
    """One assistant turn's tool calls, done: the next user message's content and the details.

    ``user_content`` holds one tool_result per tool_use, in tool_use order, first (PAIR-1, PAIR-5),
    then the blocks the hooks added. ``state`` is the shared state after context changes (EXEC-4).
    """

    user_content: list[dict[str, Any]]
    outcomes: list[ToolRunOutcome]
    state: ToolState


async def run_tool_uses(
    blocks: Sequence[ToolUseBlockParam],
    ctx: ExecutionContext,
    *,
    abort: asyncio.Event | None = None,
    call_timeout: float | None = None,
    state: ToolState | None = None,
    grace_period: float = 1.0,
) -> BatchResult:
    """Run one assistant message's tool_use blocks through the streaming executor and the budget."""
    executor = new_batch_executor(
        ctx, abort=abort, call_timeout=call_timeout, state=state, grace_period=grace_period
    )
    outcomes = await executor.run_batch(blocks)
    return BatchResult(finish_batch(blocks, outcomes, ctx), outcomes, executor.state)


def new_batch_executor(
    ctx: ExecutionContext,
    *,
    abort: asyncio.Event | None = None,
    call_timeout: float | None = None,
    state: ToolState | None = None,
    grace_period: float = 1.0,
) -> StreamingToolExecutor:
    """A streaming executor that runs each tool_use through :func:`run_tool_use` with ``ctx``.

    For a caller that feeds tool_use blocks as they stream in (the agent loop); finish with
    :func:`finish_batch`. Classification is as in :func:`run_tool_uses` (CONC-3).
    """
    # Each block is looked up and validated once, by its first predicate; the other predicate and
    # run_tool_use reuse that (by tool_use id, for this very block object and input object).
    checked: dict[str, tuple[ToolUseBlockParam, CheckedInput | None]] = {}

    def check(block: ToolUseBlockParam) -> CheckedInput | None:
        entry = checked.get(block["id"])
        if entry is not None and entry[0] is block:
            found = entry[1]
            if found is None or found[1] is block.get("input"):
                return found
        tool = ctx.find_tool(block["name"])
        tool_input = block.get("input")
        found = None if tool is None else (tool, tool_input, validate_tool_input(tool, tool_input))
        checked[block["id"]] = (block, found)
        return found

    def is_safe(block: ToolUseBlockParam) -> bool:
        found = check(block)
        # An unknown tool or an invalid input fails before it runs; it still counts as unsafe (CONC-3).
        return (
            found is not None
            and found[2] is None
            and found[0].is_concurrency_safe(cast(Mapping[str, Any], found[1]))
        )

    def is_shell(block: ToolUseBlockParam) -> bool:
        found = check(block)
        return found is not None and found[2] is None and found[0].is_shell

    async def run_one(block: ToolUseBlockParam, control: CallControl) -> ToolRunOutcome:
        entry = checked.pop(block["id"], None)
        token = PRECHECKED.set(entry[1] if entry is not None and entry[0] is block else None)
        try:
            return await run_tool_use(block, control, ctx)
        finally:
            PRECHECKED.reset(token)

    return StreamingToolExecutor(
        run_one,
        is_concurrency_safe=is_safe,
        is_shell=is_shell,
        call_timeout=call_timeout,
        abort=abort,
        grace_period=grace_period,
        state=state,
    )


def finish_batch(
    blocks: Sequence[ToolUseBlockParam], outcomes: Sequence[ToolRunOutcome], ctx: ExecutionContext
) -> list[dict[str, Any]]:
    """The next user message's content for one batch (RESULT-3, PAIR-1, PAIR-5).

    The results under the message budget, in tool_use order, then the blocks the hooks added.
    """
    unlimited = [
        block["id"]
        for block in blocks
        if (tool := ctx.find_tool(block["name"])) is not None and math.isinf(tool.max_result_size_chars)
    ]
    results = apply_message_budget(
        [o.result for o in outcomes], ctx.replacement_state, ctx.session_dir, exempt_ids=unlimited
    )
    content: list[dict[str, Any]] = [dict(r) for r in results]
    for outcome in outcomes:
        content.extend(dict(block) for block in outcome.extra_blocks)
    return content
