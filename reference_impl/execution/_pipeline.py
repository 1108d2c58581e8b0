"""``run_tool_use``: one tool_use block through the whole pipeline (004 §3, §5.3–§5.10; EXEC-1..5).

The stages run in this order, and a stage that rejects ends the call with an error tool_result
(the tool's ``call`` never runs):

1. lookup by name, then by deprecated alias (EXEC-3);
2. schema validation (pydantic model or JSON schema);
3. the tool's own ``validate_input``;
4. PreToolUse hooks (only ever on validated input);
5. the permission decision (rules, the tool's own check, mode, the hooks' verdict);
6. on ask: PermissionRequest hooks, then the host (``can_use_tool``), else deny (PERM-8);
7. the call, with its context and abort signal;
8. result mapping and the per-tool size limit (RESULT-1, RESULT-2, PAIR-4);
9. PostToolUse hooks after success, PostToolUseFailure hooks after failure (EXEC-5).

An input replaced by a hook or the host is validated again and judged again, so a rewrite can't
smuggle in what a rule denies (EXEC-2).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import jsonschema
from anthropic.types import ToolUseBlockParam
from pydantic import ValidationError

from reference_impl._wire import wire_json
from reference_impl.execution._results import (
    ContentReplacementState,
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
from reference_impl.hooks import (
    HookBaseInput,
    Hooks,
    HookSignals,
    run_permission_request,
    run_post_tool_use,
    run_post_tool_use_failure,
    run_pre_tool_use,
)
from reference_impl.permissions import (
    CanUseTool,
    DecisionReason,
    PermissionContext,
    PermissionDecision,
    PermissionResultAllow,
    ToolPermissionContext,
    decide_permission,
    internal_error_decision,
)
from reference_impl.request import system_reminder
from reference_impl.tools import Tool, ToolContext, ToolOutput, ToolProgress, ToolState, find_tool_by_name

__all__ = [
    "BatchResult",
    "DecisionLog",
    "ExecutionContext",
    "finish_batch",
    "new_batch_executor",
    "run_tool_use",
    "run_tool_uses",
    "validate_tool_input",
]


@dataclass(slots=True)
class DecisionLog:
    """Every permission decision made in a session, by tool_use id (PERM-13)."""

    decisions: dict[str, PermissionDecision] = field(default_factory=dict)

    def record(self, tool_use_id: str, decision: PermissionDecision) -> None:
        """Keep the final decision for a call."""
        self.decisions[tool_use_id] = decision


@dataclass
class ExecutionContext:
    """What ``run_tool_use`` needs from the session.

    ``tools`` is the current pool; ``base_tools`` are the tools whose deprecated aliases old
    transcripts may still use. ``can_use_tool`` is the host; None (or a permission context with
    ``can_prompt=False``) means nobody can be asked. ``state`` is the shared harness state the
    tools see (the ToolSearch tool reads ``tools`` and ``deferred_tool_names`` from it).
    """

    tools: Sequence[Tool]
    permission_context: PermissionContext
    session_dir: Path
    hooks: Hooks = field(default_factory=Hooks)
    can_use_tool: CanUseTool | None = None
    base_tools: Sequence[Tool] = ()
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    transcript_path: str = ""
    replacement_state: ContentReplacementState = field(default_factory=ContentReplacementState)
    decision_log: DecisionLog = field(default_factory=DecisionLog)
    progress: list[ToolProgress] = field(default_factory=list)
    prompt_id: str | None = None
    hook_signals: HookSignals = field(default_factory=HookSignals)
    """What the hooks said to the loop and the user (``continue: false``, ``systemMessage``: HOOK-5)."""
    _hook_base: tuple[str, str, PermissionContext, HookBaseInput] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def hook_base(self) -> HookBaseInput:
        """The fields every hook input carries."""
        memo = self._hook_base
        # Made once per call otherwise; reused while none of what it is made of was replaced.
        if (
            memo is not None
            and memo[0] is self.session_id
            and memo[1] is self.transcript_path
            and memo[2] is self.permission_context
            and memo[3].prompt_id == self.prompt_id
        ):
            return memo[3]
        base = HookBaseInput(
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            cwd=str(self.permission_context.cwd),
            permission_mode=self.permission_context.mode,
            prompt_id=self.prompt_id,
        )
        self._hook_base = (self.session_id, self.transcript_path, self.permission_context, base)
        return base

    def find_tool(self, name: str) -> Tool | None:
        """The pool's tool by name; else a base tool whose deprecated alias this is (EXEC-3)."""
        tool = find_tool_by_name(self.tools, name)
        if tool is None:
            alias_owner = find_tool_by_name(self.base_tools, name)
            if alias_owner is not None and name in alias_owner.aliases:
                tool = alias_owner
        return tool


def _error(tool_use_id: str, text: str) -> ToolRunOutcome:
    # Rejected before the call: nothing ran, so it is not a failure that cancels shell siblings.
    return ToolRunOutcome(synthetic_error_result(tool_use_id, text))


def validate_tool_input(tool: Tool, tool_input: object) -> str | None:
    """Check ``tool_input`` against the tool's schema; the problem as text, or None when valid."""
    if not isinstance(tool_input, Mapping):
        return f"The input must be an object, not {type(tool_input).__name__}"
    if tool.input_model is not None:
        try:
            tool.input_model.model_validate(dict(tool_input))
        except ValidationError as exc:
            return "\n".join(
                f"The parameter `{'.'.join(str(p) for p in err['loc']) or '(root)'}` {err['msg'].lower()}"
                if err["type"] != "missing"
                else f"The required parameter `{'.'.join(str(p) for p in err['loc'])}` is missing"
                for err in exc.errors()
            )
        return None
    try:
        validator = _validator_for(wire_json(tool.input_json_schema or {"type": "object"}))
    except jsonschema.SchemaError as exc:
        return f"The tool's input schema is invalid: {exc.message}"
    errors = sorted(validator.iter_errors(dict(tool_input)), key=lambda e: list(e.path))
    if not errors:
        return None
    return "\n".join(_describe_schema_error(err) for err in errors)


@functools.lru_cache(maxsize=1024)
def _validator_for(schema_json: str) -> Any:
    """A checked validator per distinct schema: checking a schema against its meta-schema is slow."""
    schema = json.loads(schema_json)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def _describe_schema_error(err: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "required" and isinstance(err.validator_value, list):
        missing = [
            name
            for name in err.validator_value
            if isinstance(err.instance, Mapping) and name not in err.instance
        ]
        prefix = f"{where}." if where else ""
        return "\n".join(f"The required parameter `{prefix}{name}` is missing" for name in missing)
    return f"The parameter `{where or '(root)'}`: {err.message}"


_Checked = tuple[Tool, object, str | None]

# The schema check the batch executor made when it classified the block that the current task
# runs: (tool, the input object, its problem). Set by new_batch_executor's ``run_one`` around one
# call, in that call's own task, so the classification and the pipeline validate an input once.
_PRECHECKED: contextvars.ContextVar[_Checked | None] = contextvars.ContextVar("_PRECHECKED", default=None)


def _schema_problem(tool: Tool, tool_input: object) -> str | None:
    known = _PRECHECKED.get()
    # The very same tool and input object (a rewritten input is a new object, validated afresh).
    if known is not None and known[0] is tool and known[1] is tool_input:
        return known[2]
    return validate_tool_input(tool, tool_input)


def _check_input(tool: Tool, tool_input: object, context: ToolContext) -> str | None:
    """Schema validation then the tool's own validation; the model-visible problem, or None."""
    problem = _schema_problem(tool, tool_input)
    if problem is not None:
        return f"InputValidationError: {tool.name} failed due to the following issue:\n{problem}"
    try:
        verdict = tool.validate_input(cast(Mapping[str, Any], tool_input), context)
    except Exception as exc:  # a tool's validator that crashes rejects (fail closed)
        return f"{tool.name} could not validate its input: {type(exc).__name__}: {exc}"
    if not verdict.ok:
        return verdict.message or f"{tool.name} rejected its input"
    return None


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
    problem = _check_input(tool, raw_input, tool_context)
    if problem is not None:
        return _error(tool_use_id, problem)
    tool_input: Mapping[str, Any] = dict(cast(Mapping[str, Any], raw_input))
    extra: list[dict[str, Any]] = []
    base = ctx.hook_base()

    pre = await run_pre_tool_use(
        ctx.hooks, tool_name=tool.name, tool_input=tool_input, tool_use_id=tool_use_id, base=base
    )
    ctx.hook_signals.take(pre)
    if pre.additional_contexts:
        extra.extend(
            _text_block(system_reminder(f"PreToolUse:{tool.name} hook additional context: {c}"))
            for c in pre.additional_contexts
        )
    if pre.updated_input is not None:
        problem = _check_input(tool, pre.updated_input, tool_context)
        if problem is not None:
            return _error(tool_use_id, f"A PreToolUse hook's updated input was rejected: {problem}")
        tool_input = dict(pre.updated_input)

    interrupts = False  # a deny from the user (or a hook in their place) that also stops the batch
    try:  # PERM-14: no exception escapes the permission stage; an internal error denies
        decision = decide_permission(
            tool, tool_input, ctx.permission_context, hook_verdict=pre.verdict, tool_context=tool_context
        )
        if decision.behavior == "ask":
            decision, tool_input, interrupts = await _resolve_ask(
                tool, tool_input, decision, ctx, tool_context
            )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        decision = internal_error_decision(tool.name, exc)
    if decision.behavior == "ask":  # pragma: no cover - _resolve_ask always settles an ask
        decision = internal_error_decision(tool.name, RuntimeError("an ask was left unresolved"))
    elif decision.behavior == "allow" and decision.updated_input is not None:
        problem = _check_input(tool, decision.updated_input, tool_context)
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


async def _resolve_ask(
    tool: Tool,
    tool_input: Mapping[str, Any],
    decision: PermissionDecision,
    ctx: ExecutionContext,
    tool_context: ToolContext,
) -> tuple[PermissionDecision, Mapping[str, Any], bool]:
    """Settle an ask: PermissionRequest hooks, then the host, else deny (PERM-8). Never an allow by default.

    The decision, the input it is for, and whether a deny also interrupts the batch.
    """
    request = await run_permission_request(
        ctx.hooks,
        tool_name=tool.name,
        tool_input=tool_input,
        tool_use_id=tool_context.tool_use_id,
        base=ctx.hook_base(),
    )
    ctx.hook_signals.take(request)
    if request.decision is not None:
        answer = request.decision
        if answer.behavior == "deny":
            return (
                PermissionDecision(
                    "deny",
                    DecisionReason("permission_request_hook", hook=answer.hook, detail=answer.message),
                    message=answer.message
                    or f"Permission to use {tool.name} was denied by a PermissionRequest hook.",
                ),
                tool_input,
                answer.interrupt,
            )
        return *_approve(
            tool,
            tool_input,
            answer.updated_input,
            ctx,
            tool_context,
            DecisionReason(
                "permission_request_hook", hook=answer.hook, detail="allowed by a PermissionRequest hook"
            ),
        ), False
    if ctx.can_use_tool is None or not ctx.permission_context.can_prompt:
        return (
            PermissionDecision(
                "deny",
                DecisionReason("headless", detail=decision.message),
                message=f"Permission to use {tool.name} was not granted: {decision.message} Nobody can be asked in this session, and no PermissionRequest hook decided.",
            ),
            tool_input,
            False,
        )
    try:
        host_answer = await ctx.can_use_tool(
            tool.name,
            dict(tool_input),
            ToolPermissionContext(
                signal=tool_context.abort, reason=decision.message, tool_use_id=tool_context.tool_use_id
            ),
        )
    except Exception as exc:  # a failing host never allows
        return (
            PermissionDecision(
                "deny",
                DecisionReason("host", detail=f"the host failed: {exc!r}"),
                message=f"Permission to use {tool.name} was not granted: the permission prompt failed.",
            ),
            tool_input,
            False,
        )
    if isinstance(host_answer, PermissionResultAllow):
        return *_approve(
            tool,
            tool_input,
            host_answer.updated_input,
            ctx,
            tool_context,
            DecisionReason("host", detail="allowed by the host"),
        ), False
    message = (
        getattr(host_answer, "message", "")
        or f"The user doesn't want to proceed with this tool use. The tool use ({tool.name}) was rejected."
    )
    return (
        PermissionDecision("deny", DecisionReason("host", detail="denied by the host"), message=message),
        tool_input,
        getattr(host_answer, "interrupt", False) is True,
    )


def _approve(
    tool: Tool,
    tool_input: Mapping[str, Any],
    updated: Mapping[str, Any] | None,
    ctx: ExecutionContext,
    tool_context: ToolContext,
    reason: DecisionReason,
) -> tuple[PermissionDecision, Mapping[str, Any]]:
    """An approval of an ask; a rewritten input is validated and judged again (EXEC-2)."""
    if updated is None:
        return PermissionDecision("allow", reason), tool_input
    problem = _check_input(tool, updated, tool_context)
    if problem is not None:
        return PermissionDecision(
            "deny", reason, message=f"The approved input was rejected: {problem}"
        ), tool_input
    again = decide_permission(tool, updated, ctx.permission_context, tool_context=tool_context)
    if again.behavior == "deny":
        return again, updated
    # An ask rule stops the engine before the tool's own check; the approval answers the ask, not
    # the tool, so a rewrite the tool itself refuses is still refused.
    try:
        own = tool.check_permissions(updated, tool_context)
    except Exception as exc:  # a check that crashes refuses (fail closed)
        return PermissionDecision(
            "deny", reason, message=f"{tool.name}'s permission check failed: {exc!r}"
        ), updated
    if own.behavior == "deny":
        message = own.message or f"Permission to use {tool.name} with the approved input has been denied."
        return PermissionDecision("deny", DecisionReason("tool", detail=message), message=message), updated
    return PermissionDecision("allow", reason, updated_input=dict(updated)), dict(updated)


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
    checked: dict[str, tuple[ToolUseBlockParam, _Checked | None]] = {}

    def check(block: ToolUseBlockParam) -> _Checked | None:
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
        token = _PRECHECKED.set(entry[1] if entry is not None and entry[0] is block else None)
        try:
            return await run_tool_use(block, control, ctx)
        finally:
            _PRECHECKED.reset(token)

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
