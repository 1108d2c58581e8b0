"""The permission decision engine: rules, the tool's own check, safety checks, modes and hooks.

:func:`decide_permission` is pure (no prompting, no I/O besides resolving paths). Its order
follows Claude Code's ``hasPermissionsToUseTool`` and ``resolveHookPermissionDecision``
(004 §5.5-5.6, §7.1, §7.3):

1. a deny rule (any source) denies (PERM-1, PERM-4); then a hook's deny denies (PERM-3);
2. plan mode denies a tool that is not read-only (PERM-9);
3. an ask rule asks, whatever the hook or mode say (PERM-2, PERM-5);
4. the tool's ``check_permissions``: deny denies; an ask marked ``safety_check`` asks even in
   bypassPermissions (PERM-5); a tool that ``requires_user_interaction`` always asks;
5. a hook's ask asks; a hook's allow allows (the deny/ask rules and safety checks above held);
6. bypassPermissions allows; allow rules allow (for shell commands every part must be allowed);
   the tool's allow allows; acceptEdits (and auto) allow edits inside the working directories;
   a read-only read inside the working directories is allowed;
7. anything left (a passthrough) asks (PERM-6).

An ask then meets the mode: dontAsk turns it into a deny (PERM-7); auto hands an ordinary ask
to the classifier, which fails closed (an error or an answer other than allow/deny keeps the
ask, or denies when nobody can be asked). Every decision carries a :class:`DecisionReason`
(PERM-13). Asking the host and PermissionRequest hooks happen later, in the executor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reference_impl.permissions._context import PermissionContext
from reference_impl.permissions._decisions import DecisionReason, HookVerdict, PermissionDecision
from reference_impl.permissions._paths import is_within, resolved_path
from reference_impl.permissions._protected_paths import protected_reason, protected_write
from reference_impl.permissions._rule_matches import RuleMatch
from reference_impl.permissions._rule_syntax import PermissionRule
from reference_impl.permissions._rules import (
    Call,
    allow_match,
    call_keys,
    describe_call,
    first_match,
    rule_applies_to_tool,
    rule_keys,
    vouched,
)
from reference_impl.tools import (
    PermissionTarget,
    Tool,
    ToolContext,
    ToolPermissionCheck,
)

__all__ = ["decide_permission", "internal_error_decision", "is_tool_denied_as_whole"]


def is_tool_denied_as_whole(tool: Tool, context: PermissionContext) -> bool:
    """Whether a whole-tool deny rule removes ``tool`` from the pool (PERM-10).

    Whole-tool rules are ``Tool``, ``Tool(*)``, ``mcp__server``, ``mcp__server__*``, ``mcp__*``
    and ``mcp__server__tool``.

    Use as ``assemble_tool_pool(..., is_denied=lambda t: is_tool_denied_as_whole(t, context))``.
    """
    return any(
        r.is_whole_tool and rule_applies_to_tool(r, tool) for r in _candidates(context, tool, "deny", None)
    )


class _RuleIndex:
    """Rule positions by behavior and by the names through which a rule can apply to a tool.

    A rule can only match a tool through one of :func:`rule_keys` (its tool name), and a call of
    a tool only through :func:`call_keys` (the tool's names and aliases, its MCP server's rule
    names, the ``Read`` / ``Edit`` families for path targets). Looking those keys up gives a
    superset of the rules that can match, in the order written; each is still checked by the
    matcher, so decisions are the same as a scan of every rule.
    """

    def __init__(self, rules: tuple[PermissionRule, ...]) -> None:
        self.rules = rules
        self.positions: dict[tuple[str, str], list[int]] = {}
        # Candidate lists per (tool, behavior, path target?): tools hash by identity and are held here.
        self.memo: dict[tuple[Tool, str, bool], list[PermissionRule]] = {}
        for position, rule in enumerate(rules):
            for key in rule_keys(rule):
                self.positions.setdefault((rule.behavior, key), []).append(position)


_INDEXES: dict[int, _RuleIndex] = {}
_MAX_INDEXES = 16


def _rule_index(rules: tuple[PermissionRule, ...]) -> _RuleIndex:
    # Keyed by identity: a context's rules tuple is immutable, and the entry holds it so the id
    # can't be reused while cached.
    index = _INDEXES.get(id(rules))
    if index is None or index.rules is not rules:
        if len(_INDEXES) >= _MAX_INDEXES:
            del _INDEXES[next(iter(_INDEXES))]
        index = _INDEXES[id(rules)] = _RuleIndex(rules)
    return index


def _candidates(
    context: PermissionContext,
    tool: Tool,
    behavior: str,
    target: PermissionTarget | Exception | None,
) -> list[PermissionRule]:
    """The ``behavior`` rules that could match a call of ``tool`` with ``target``, in rule order."""
    rules = context.rules
    if len(rules) <= 8:
        return [r for r in rules if r.behavior == behavior]
    index = _rule_index(rules)
    paths = isinstance(target, Exception) or (target is not None and target.kind in ("read", "edit"))
    memo_key = (tool, behavior, paths)
    cached = index.memo.get(memo_key)
    if cached is not None:
        return cached
    found: set[int] = set()
    for key in call_keys(tool, paths=paths):
        found.update(index.positions.get((behavior, key), ()))
    candidates = [rules[position] for position in sorted(found)]
    if len(index.memo) >= 4096:
        index.memo.clear()
    index.memo[memo_key] = candidates
    return candidates


def _describe(tool: Tool, target: PermissionTarget | None) -> str:
    if target is None:
        return tool.name
    if target.kind == "shell":
        return f"{tool.name} with command {target.value}"
    return f"{tool.name} on {target.value}"


def _rule_reason(rule: PermissionRule, detail: str) -> DecisionReason:
    return DecisionReason(stage="rule", detail=detail, rule=rule.text, source=rule.source)


def _allow_rule(call: Call, context: PermissionContext) -> tuple[PermissionRule, str] | None:
    found = allow_match(
        _candidates(context, call.tool, "allow", call.target if call.error is None else _ERROR),
        call,
        cwd=context.cwd,
        project_root=context.project_root,
        additional_dirs=context.additional_dirs,
    )
    return (found.rules[0], found.detail) if found is not None else None


def _matching(call: Call, context: PermissionContext, behavior: str) -> RuleMatch | None:
    guards = _candidates(context, call.tool, behavior, call.target if call.error is None else _ERROR)
    found = first_match(guards, call, cwd=context.cwd, project_root=context.project_root)
    # Only commands the engine does not read make it uncertain: an allow rule naming each of them
    # is the user's explicit trust of that form (PERM-17), unless the line names what a rule guards.
    if (
        found is not None
        and found.unread is not None
        and vouched(_candidates(context, call.tool, "allow", call.target), call, found, guards)
    ):
        return None
    return found


_ERROR = TypeError("the call's target could not be described")


def _is_read_only(tool: Tool, tool_input: Mapping[str, Any]) -> bool:
    try:
        return bool(tool.is_read_only(tool_input))
    except Exception:  # a predicate that fails is treated as "writes" (fail closed)
        return False


def _in_working_dirs(target: PermissionTarget, context: PermissionContext, *, for_edit: bool = False) -> bool:
    try:
        path = resolved_path(target.value, context.cwd) if target.value.strip() else ""
    except (OSError, ValueError):
        return False
    if not path or (for_edit and protected_reason(target.value, context.cwd) is not None):
        return False
    return is_within(path, context.working_dirs)


def _tool_check(tool: Tool, tool_input: Mapping[str, Any], tool_context: ToolContext) -> ToolPermissionCheck:
    try:
        check = tool.check_permissions(tool_input, tool_context)
    except Exception as error:
        # A crashing check must not fail open: ask, and mark it so bypassPermissions honours it.
        return ToolPermissionCheck(
            behavior="ask", message=f"{tool.name}'s permission check failed: {error!r}", safety_check=True
        )
    if not isinstance(check, ToolPermissionCheck) or check.behavior not in (
        "allow",
        "ask",
        "deny",
        "passthrough",
    ):
        return ToolPermissionCheck(
            behavior="ask", message=f"{tool.name}'s permission check returned {check!r}", safety_check=True
        )
    return check


def _plan_message(tool: Tool, target: PermissionTarget | None) -> str:
    if target is not None and target.kind in ("edit", "read") and target.value:
        return f"Cannot write to {target.value} while in plan mode."
    if target is not None and target.kind == "shell":
        return f"Cannot run {target.value} while in plan mode: the command is not read-only."
    return f"Cannot use {tool.name} while in plan mode: it is not read-only."


def decide_permission(
    tool: Tool,
    tool_input: Mapping[str, Any],
    context: PermissionContext,
    *,
    hook_verdict: HookVerdict | None = None,
    tool_context: ToolContext | None = None,
) -> PermissionDecision:
    """Decide allow / ask / deny for one validated call, with its reason (see the module docstring).

    ``hook_verdict`` is the PreToolUse hooks' aggregated opinion; ``tool_context`` is passed to
    ``tool.check_permissions`` (a minimal one is made from the context when omitted).
    """
    try:
        decision = _decide(tool, tool_input, context, hook_verdict, tool_context)
        if decision.behavior != "ask":
            return decision
        # Only the final "nothing decided" ask may be settled by the auto-mode classifier; an ask
        # that a rule, safety check, hook or interactive tool insisted on goes to a person. A
        # "tool" ask is the tool's own only for a tool that does not require user interaction
        # (one that does is asked about before its own ask is reached).
        ordinary = decision.reason.stage == "default" or (
            decision.reason.stage == "tool" and not tool.requires_user_interaction
        )
        decision = _apply_mode_to_ask(tool, tool_input, context, decision, ordinary=ordinary)
        if decision.behavior == "ask" and context.deny_instead_of_prompting:
            return PermissionDecision(
                behavior="deny",
                reason=replace(
                    decision.reason,
                    detail=f"denyInsteadOfPrompting: the call would need approval ({decision.reason.detail})",
                ),
                message=f"Permission to use {tool.name} was not granted: it would need approval and "
                "denyInsteadOfPrompting is set.",
            )
        return decision
    except Exception as error:  # PERM-14: deciding never raises; an internal error denies
        return internal_error_decision(getattr(tool, "name", repr(tool)), error)


def internal_error_decision(tool_name: str, error: BaseException) -> PermissionDecision:
    """The decision when deciding itself failed: deny, with the error as the reason (PERM-14)."""
    detail = f"the permission check failed: {type(error).__name__}: {error}"[:500]
    return PermissionDecision(
        behavior="deny",
        reason=DecisionReason(stage="safety", detail=detail),
        message=f"Permission to use {tool_name} was denied: {detail}.",
    )


def _decide(
    tool: Tool,
    tool_input: Mapping[str, Any],
    context: PermissionContext,
    hook_verdict: HookVerdict | None,
    tool_context: ToolContext | None,
) -> PermissionDecision:
    call = describe_call(tool, tool_input)
    target = call.target
    what = _describe(tool, target)
    mode = context.mode

    deny = _matching(call, context, "deny")
    if deny is not None and deny.certain:
        return PermissionDecision(
            behavior="deny",
            reason=_rule_reason(deny.rule, f"denied by rule {deny.rule.text}"),
            message=f"Permission to use {what} has been denied.",
        )
    if (
        context.block_writes_outside_working_dirs
        and target is not None
        and target.kind == "edit"
        and not _in_working_dirs(target, context)
    ):
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(
                stage="safety", detail="blockWritesOutsideWorkingDirectories: the path is outside"
            ),
            message=f"Cannot write to {target.value}: it is outside the working directories "
            "(blockWritesOutsideWorkingDirectories).",
        )
    if hook_verdict is not None and hook_verdict.behavior == "deny":
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(stage="hook", detail=hook_verdict.reason, hook=hook_verdict.hook or None),
            message=hook_verdict.reason or f"A PreToolUse hook denied {what}.",
        )
    if mode == "plan" and not _is_read_only(tool, tool_input):
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(stage="mode", detail="plan mode allows only read-only tools", mode=mode),
            message=_plan_message(tool, target),
        )
    ask = _matching(call, context, "ask")
    if ask is not None:
        return PermissionDecision(
            behavior="ask",
            reason=_rule_reason(ask.rule, f"rule {ask.rule.text} requires asking ({ask.detail})"),
            message=f"Allow {what}?",
        )
    if deny is not None:
        # A command whose name is only known at run time may be what a deny rule forbids: ask.
        return PermissionDecision(
            behavior="ask",
            reason=_rule_reason(deny.rule, deny.detail),
            message=f"Allow {what}? It may run what rule {deny.rule.text} denies.",
        )

    check = _tool_check(
        tool, tool_input, tool_context or ToolContext(tool_use_id="", abort=asyncio.Event(), cwd=context.cwd)
    )
    updated = check.updated_input
    if check.behavior == "deny":
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(stage="tool", detail=check.message or f"{tool.name} refused this input"),
            message=check.message or f"Permission to use {what} has been denied.",
        )
    if check.behavior == "ask" and check.safety_check:
        return PermissionDecision(
            behavior="ask",
            reason=DecisionReason(stage="safety", detail=check.message or "safety check"),
            message=check.message or f"Allow {what}?",
            updated_input=updated,
        )
    if tool.requires_user_interaction:
        return PermissionDecision(
            behavior="ask",
            reason=DecisionReason(stage="tool", detail=f"{tool.name} requires user interaction"),
            message=check.message or f"Allow {what}?",
            updated_input=updated,
        )
    if hook_verdict is not None and hook_verdict.behavior == "ask":
        return PermissionDecision(
            behavior="ask",
            reason=DecisionReason(stage="hook", detail=hook_verdict.reason, hook=hook_verdict.hook or None),
            message=hook_verdict.reason or f"Allow {what}?",
            updated_input=updated,
        )
    if hook_verdict is not None and hook_verdict.behavior == "allow":
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(stage="hook", detail=hook_verdict.reason, hook=hook_verdict.hook or None),
            updated_input=updated,
        )
    # Before the mode and the allow rules, in every mode: neither a mode nor a rule naming a program
    # grants writing a protected path (PERM-15).
    protected = protected_write(call, context.cwd)
    if protected is not None:
        return PermissionDecision(
            behavior="ask",
            reason=DecisionReason(stage="safety", detail=protected),
            message=f"Allow {what}? {protected}.",
            updated_input=updated,
        )
    if mode == "bypassPermissions":
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(stage="mode", detail="bypassPermissions mode", mode=mode),
            updated_input=updated,
        )
    allowed = _allow_rule(call, context)
    if allowed is not None:
        rule, detail = allowed
        return PermissionDecision(behavior="allow", reason=_rule_reason(rule, detail), updated_input=updated)
    if check.behavior == "allow":
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(stage="tool", detail=check.message or f"{tool.name} allowed this input"),
            updated_input=updated,
        )
    if (
        mode in ("acceptEdits", "auto")
        and target is not None
        and target.kind == "edit"
        and _in_working_dirs(target, context, for_edit=True)
    ):
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(stage="mode", detail="file edit inside the working directories", mode=mode),
            updated_input=updated,
        )
    if (
        target is not None
        and target.kind == "read"
        and _is_read_only(tool, tool_input)
        and _in_working_dirs(target, context)
    ):
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(stage="default", detail="read-only access inside the working directories"),
            updated_input=updated,
        )
    detail = check.message or (
        f"{tool.name} asked for confirmation"
        if check.behavior == "ask"
        else "no rule or mode allows this call"
    )
    return PermissionDecision(
        behavior="ask",
        reason=DecisionReason(stage="tool" if check.behavior == "ask" else "default", detail=detail),
        message=f"Allow {what}?",
        updated_input=updated,
    )


def _apply_mode_to_ask(
    tool: Tool,
    tool_input: Mapping[str, Any],
    context: PermissionContext,
    decision: PermissionDecision,
    *,
    ordinary: bool,
) -> PermissionDecision:
    """An ask as the mode settles it: dontAsk denies; auto mode's classifier settles an ordinary ask."""
    mode = context.mode
    if mode == "dontAsk":
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(
                stage="mode",
                detail=f"dontAsk mode denies calls that would need approval ({decision.reason.detail})",
                rule=decision.reason.rule,
                source=decision.reason.source,
                mode=mode,
            ),
            message=f"Permission to use {tool.name} was not granted: the dontAsk permission mode denies "
            "anything not allowed in advance.",
        )
    if mode != "auto" or not ordinary:
        return decision
    verdict: object
    if context.classifier is None:
        verdict = None
        problem = "no classifier is configured"
    else:
        try:
            verdict = context.classifier(tool, tool_input)
            problem = f"the classifier answered {verdict!r}"
        except Exception as error:
            verdict = None
            problem = f"the classifier failed: {error!r}"
    if verdict == "allow":
        return PermissionDecision(
            behavior="allow",
            reason=DecisionReason(
                stage="classifier", detail="auto mode classifier allowed the call", mode=mode
            ),
            updated_input=decision.updated_input,
        )
    if verdict == "deny":
        return PermissionDecision(
            behavior="deny",
            reason=DecisionReason(
                stage="classifier", detail="auto mode classifier denied the call", mode=mode
            ),
            message=f"Permission to use {tool.name} was denied by the auto mode classifier.",
        )
    # Fail closed: anything else never allows; ask when someone can answer, else deny.
    if context.can_prompt:
        return replace(
            decision, reason=replace(decision.reason, detail=f"{decision.reason.detail}; {problem}")
        )
    return PermissionDecision(
        behavior="deny",
        reason=DecisionReason(stage="classifier", detail=f"{problem}; nobody can be asked", mode=mode),
        message=f"Permission to use {tool.name} was not granted: {problem}.",
    )
