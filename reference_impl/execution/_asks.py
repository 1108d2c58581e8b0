"""Settling an ask the engine left: PermissionRequest hooks, then the host, else deny (PERM-8, EXEC-2).

An approval that rewrites the input is checked and judged again, so a rewrite can't smuggle in what a
rule denies. The pipeline (:mod:`reference_impl.execution._pipeline`) calls this at its permission stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.execution._context import ExecutionContext
from reference_impl.execution._input_checks import check_input
from reference_impl.hooks import run_permission_request
from reference_impl.permissions import (
    DecisionReason,
    PermissionDecision,
    PermissionResultAllow,
    ToolPermissionContext,
    decide_permission,
)
from reference_impl.tools import Tool, ToolContext

__all__ = ["settle_ask_with_hooks_or_host"]


async def settle_ask_with_hooks_or_host(
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
        tool=tool,
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
    problem = check_input(tool, updated, tool_context)
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
