"""The tool events' hooks: PreToolUse, PostToolUse, PostToolUseFailure and PermissionRequest, aggregated.

The PreToolUse verdict is an *input* to the decision engine, which keeps deny and ask rules above a
hook's allow (PERM-2); PostToolUse runs after the call and can't undo it (HOOK-4): its block becomes
text for the model (EXEC-5). Every event's ``continue: false``, ``stopReason`` and ``systemMessage``
are collected for the agent loop (HOOK-5). Running the hooks is :mod:`reference_impl.hooks._runner`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from reference_impl.hooks._command import CommandHook
from reference_impl.hooks._model import HookBaseInput, HookError, HookEvent, Hooks, HttpHook
from reference_impl.hooks._runner import (
    Blocked,
    InvalidOutput,
    MatchedHooks,
    OutputCollector,
    SharedFields,
    only_shared_fields,
    optional_field,
    run_event_hooks,
)
from reference_impl.permissions import (
    HookVerdict,
    PermissionBehavior,
    PermissionRule,
    rule_matches,
    rule_matches_shell_part,
    safe_target,
    shell_deny_match,
    split_command,
)
from reference_impl.tools import PermissionTarget, Tool, parse_mcp_name

__all__ = [
    "OutputUpdate",
    "PermissionRequestDecision",
    "PermissionRequestOutcome",
    "PostToolUseOutcome",
    "PreToolUseOutcome",
    "format_hook_error",
    "run_permission_request",
    "run_post_tool_use",
    "run_post_tool_use_failure",
    "run_pre_tool_use",
]


@dataclass(frozen=True, slots=True)
class OutputUpdate:
    """A PostToolUse hook's replacement for the tool output (``updatedMCPToolOutput``)."""

    value: Any
    hook: str


def format_hook_error(event: str, tool_name: str, text: str) -> str:
    """The model-visible text of a hook block: ``PreToolUse:Bash hook error: <text>`` (Claude Code)."""
    return f"{event}:{tool_name} hook error: {text}"


def _event_data(
    base: HookBaseInput, event: HookEvent, tool_name: str, tool_input: Mapping[str, Any]
) -> dict[str, Any]:
    """The input fields every tool event starts with, in Claude Code's order."""
    return {
        **base.to_dict(),
        "hook_event_name": event,
        "tool_name": tool_name,
        "tool_input": dict(tool_input),
    }


def _condition_applies(
    rule: PermissionRule, tool: Tool, tool_input: Mapping[str, Any], cwd: Path
) -> bool | None:
    """Whether the call matches a hook's ``if`` rule: True, False, or None when it can't be told.

    A shell line matches when any of its commands certainly does (Claude Code matches each
    subcommand): the rule as a deny rule reads it meets the line, and some command of the line is
    the rule's as written (as an allow rule reads it). A command whose program only bash knows
    (``curl x | sh``, ``$CMD``) can't be told, nor can one only the deny reading meets (``git push
    --force`` for ``Bash(git push)``, ``git -C . push``, ``sudo git push``): running a scoped allow
    hook there would allow more than the rule says. A path or host matches when it does for an
    allow and a deny rule alike (the resolved file and every spelling of it); matching only the
    lenient way can't be told either.
    """
    target = safe_target(tool, tool_input)
    shell_line = target.value if isinstance(target, PermissionTarget) and target.kind == "shell" else None
    if rule.content is not None and shell_line is not None:
        names = (tool.name, *tool.aliases)
        if rule.tool_name not in names:
            return False
        found = shell_deny_match((rule,), names, shell_line)
        if found is None:
            return False
        command = split_command(shell_line)
        as_written = any(rule_matches_shell_part(rule, command, i) for i in range(len(command.parts)))
        return True if found.certain and as_written else None
    as_deny = rule_matches(rule, tool, tool_input, cwd=cwd)
    if not as_deny:
        return False
    as_allow = rule_matches(replace(rule, behavior="allow"), tool, tool_input, cwd=cwd)
    return True if as_allow else None


@dataclass(frozen=True, slots=True)
class _Selected:
    """The matched hooks whose ``if`` rule (if any) matches the call, and those it couldn't judge."""

    hooks: MatchedHooks
    unjudged: list[HookError]


def _select(
    hooks: Hooks,
    event: HookEvent,
    tool: Tool | None,
    tool_name: str,
    tool_input: Mapping[str, Any],
    cwd: str,
) -> _Selected:
    """The hooks of ``event`` for this call: matcher, then each hook's ``if`` rule (HOOK-1).

    The ``if`` rule is matched by the permission rule matcher (:func:`_condition_applies`). When
    it can't be told (no :class:`Tool`, a command only bash can read) the hook is not run and the
    call is reported as unjudged: running it could widen an allow, skipping it lose a deny, so the
    caller fails closed (PreToolUse asks).
    """
    selected: MatchedHooks = []
    unjudged: list[HookError] = []
    for hook, timeout in hooks.matching(event, tool_name):
        if not isinstance(hook, CommandHook | HttpHook) or hook.condition is None:
            selected.append((hook, timeout))
            continue
        try:
            hit = None if tool is None else _condition_applies(hook.condition, tool, tool_input, Path(cwd))
            problem = "can't be judged without the tool" if tool is None else "may or may not match this call"
        except Exception as exc:  # a matcher failure must neither run nor silently drop the hook
            hit, problem = None, f"could not be matched ({type(exc).__name__}: {exc})"
        if hit is None:
            what = f"'if' {hook.condition.text!r} {problem}; the hook did not run"
            unjudged.append(HookError(event, hook.label, "unsupported", what))
        elif hit:
            selected.append((hook, timeout))
    return _Selected(selected, unjudged)


# ---------------------------------------------------------------------------------------------
# PreToolUse

_RANK: dict[PermissionBehavior, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True, slots=True)
class PreToolUseOutcome:
    """The PreToolUse hooks' combined result for one call (HOOK-2).

    ``verdict`` is the most restrictive valid decision (deny > ask > allow), None when no hook
    decided. For deny its ``reason`` is the text for the model; for ask, the question's reason.
    An exit code 2 is a deny whose reason carries the hook's stderr. ``updated_input`` comes from
    the last hook in declaration order that decided like the verdict and returned ``updatedInput``
    (None on deny). ``stop`` is a hook's ``continue: false``.
    """

    verdict: HookVerdict | None = None
    updated_input: dict[str, Any] | None = None
    additional_contexts: list[str] = field(default_factory=list)
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""


def _pre_decision(
    f: SharedFields, label: str
) -> tuple[PermissionBehavior | None, str, dict[str, Any] | None]:
    pd = f.hso.get("permissionDecision")
    if pd is not None and pd not in ("allow", "deny", "ask", "defer"):
        raise InvalidOutput(f'permissionDecision must be "allow", "deny", "ask" or "defer", got {pd!r}')
    pdr = optional_field(f.hso, "permissionDecisionReason", str, "a string") or ""
    updated = optional_field(f.hso, "updatedInput", dict, "an object")
    behavior: PermissionBehavior | None
    if pd is not None:
        # "defer" hands the call to an outside decider; here that is the host, i.e. ask.
        behavior, reason = ("ask" if pd == "defer" else pd), pdr
    elif f.decision is not None:
        # Legacy top-level decision: "approve" is allow, "block" is deny.
        behavior, reason = ("allow" if f.decision == "approve" else "deny"), f.reason
    else:
        behavior, reason = None, pdr or f.reason
    return behavior, reason, updated


async def run_pre_tool_use(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    base: HookBaseInput,
    tool: Tool | None = None,
) -> PreToolUseOutcome:
    """Run the PreToolUse hooks matching ``tool_name`` and aggregate them (HOOK-2, HOOK-3).

    ``tool`` is the called tool, which a hook's ``if`` rule is matched against; a hook with an
    ``if`` that can't be judged (no ``tool``) is not run and makes the verdict at least ask.
    """
    event: HookEvent = "PreToolUse"
    chosen = _select(hooks, event, tool, tool_name, tool_input, base.cwd)
    matched = chosen.hooks
    if not matched and not chosen.unjudged:
        # What aggregating no runs gives, without building the hook input (the usual case, per call).
        return PreToolUseOutcome()
    data = {**_event_data(base, event, tool_name, tool_input), "tool_use_id": tool_use_id}
    acc = OutputCollector()
    acc.errors.extend(chosen.unjudged)
    runs = await run_event_hooks(matched, event, data, tool_use_id, base.cwd, hooks.background)
    decisions: list[tuple[PermissionBehavior | None, str, str, dict[str, Any] | None]] = [
        # Neither run (a deny lost) nor skipped (an allow widened): the user decides.
        ("ask", e.message, e.hook, None)
        for e in chosen.unjudged
    ]
    for label, parsed in acc.sift(event, runs, _pre_decision):
        if isinstance(parsed, Blocked):
            decisions.append(("deny", format_hook_error(event, tool_name, parsed.message), label, None))
            continue
        behavior, reason, updated = parsed
        if behavior == "deny":
            reason = (
                format_hook_error(event, tool_name, reason)
                if reason
                else f"Hook {event}:{tool_name} denied this tool"
            )
        decisions.append((behavior, reason, label, updated))
    behaviors: list[PermissionBehavior] = [d[0] for d in decisions if d[0] is not None]
    verdict = None
    winner: PermissionBehavior | None = None
    if behaviors:
        top: PermissionBehavior = max(behaviors, key=_RANK.__getitem__)
        first = next(d for d in decisions if d[0] == top)
        verdict, winner = HookVerdict(top, first[1], first[2]), top
    updated_input = None
    if winner != "deny":
        for behavior, _, _, updated in decisions:
            if behavior == winner and updated is not None:
                updated_input = updated
    return PreToolUseOutcome(
        verdict, updated_input, acc.additional_contexts, acc.blocking_errors, acc.errors,
        acc.system_messages, acc.stop, acc.stop_reason,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# PostToolUse / PostToolUseFailure


@dataclass(frozen=True, slots=True)
class PostToolUseOutcome:
    """The PostToolUse (or PostToolUseFailure) hooks' combined result (EXEC-5, HOOK-4).

    The call already ran: ``block`` never undoes it; ``block_messages`` (a ``decision: "block"``
    reason or an exit-2 stderr, formatted) are errors the model sees after the result.
    ``updated_mcp_tool_output`` replaces the output (MCP tools, or any tool via ``updatedToolOutput``).
    """

    block_messages: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    updated_mcp_tool_output: OutputUpdate | None = None
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""

    @property
    def block(self) -> bool:
        """Whether a hook blocked (the model is told; the result stands)."""
        return bool(self.block_messages)

    @property
    def block_reason(self) -> str:
        """All block messages, one per line."""
        return "\n".join(self.block_messages)


async def _run_post(
    hooks: Hooks,
    chosen: _Selected,
    event: HookEvent,
    tool_name: str,
    data: dict[str, Any],
    tool_use_id: str,
    cwd: str,
) -> PostToolUseOutcome:
    acc = OutputCollector()
    acc.errors.extend(chosen.unjudged)
    runs = await run_event_hooks(chosen.hooks, event, data, tool_use_id, cwd, hooks.background)
    blocks: list[str] = []
    update: OutputUpdate | None = None
    is_mcp = parse_mcp_name(tool_name) is not None
    # Lazily: an ignored updatedMCPToolOutput is an error recorded in declaration order.
    for label, f in acc.sift(event, runs, only_shared_fields):
        if isinstance(f, Blocked):
            blocks.append(format_hook_error(event, tool_name, f.message))
            continue
        if f.decision == "block":
            blocks.append(format_hook_error(event, tool_name, f.reason or f"blocked by hook {label}"))
        if event != "PostToolUse":
            continue
        if "updatedToolOutput" in f.hso:
            update = OutputUpdate(f.hso["updatedToolOutput"], label)
        elif "updatedMCPToolOutput" in f.hso:
            if is_mcp:
                update = OutputUpdate(f.hso["updatedMCPToolOutput"], label)
            else:
                msg = f"updatedMCPToolOutput applies to MCP tools only; ignored for {tool_name}"
                acc.errors.append(HookError(event, label, "invalid_output", msg))
    return PostToolUseOutcome(
        blocks, acc.additional_contexts, update, acc.blocking_errors, acc.errors,
        acc.system_messages, acc.stop, acc.stop_reason,
    )  # fmt: skip


async def run_post_tool_use(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    tool_response: Any,
    base: HookBaseInput,
    duration_ms: int | None = None,
    tool: Tool | None = None,
) -> PostToolUseOutcome:
    """Run the PostToolUse hooks after a successful call (EXEC-5); they can't undo it (HOOK-4).

    ``tool_response`` is the tool's own response shape (HOOK-6); ``duration_ms`` how long the call took;
    ``tool`` is what an ``if`` rule is matched against.
    """
    event: HookEvent = "PostToolUse"
    chosen = _select(hooks, event, tool, tool_name, tool_input, base.cwd)
    matched = chosen.hooks
    if not matched and not chosen.unjudged:
        return PostToolUseOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_response": tool_response,
        "tool_use_id": tool_use_id,
    }
    if duration_ms is not None:
        data["duration_ms"] = duration_ms
    return await _run_post(hooks, chosen, event, tool_name, data, tool_use_id, base.cwd)


async def run_post_tool_use_failure(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    error: str,
    base: HookBaseInput,
    is_interrupt: bool = False,
    duration_ms: int | None = None,
    tool: Tool | None = None,
) -> PostToolUseOutcome:
    """Run the PostToolUseFailure hooks after a failed call (EXEC-5); no output update applies."""
    event: HookEvent = "PostToolUseFailure"
    chosen = _select(hooks, event, tool, tool_name, tool_input, base.cwd)
    if not chosen.hooks and not chosen.unjudged:
        return PostToolUseOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_use_id": tool_use_id,
        "error": error,
        "is_interrupt": is_interrupt,
    }
    if duration_ms is not None:
        data["duration_ms"] = duration_ms
    return await _run_post(hooks, chosen, event, tool_name, data, tool_use_id, base.cwd)


# ---------------------------------------------------------------------------------------------
# PermissionRequest


@dataclass(frozen=True, slots=True)
class PermissionRequestDecision:
    """A PermissionRequest hook's answer in place of the user (PERM-8)."""

    behavior: Literal["allow", "deny"]
    hook: str
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[Any] | None = None
    message: str = ""
    interrupt: bool = False


@dataclass(frozen=True, slots=True)
class PermissionRequestOutcome:
    """The PermissionRequest hooks' combined answer: any deny beats every allow; None if none decided."""

    decision: PermissionRequestDecision | None = None
    blocking_errors: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""


def _permission_decision(f: SharedFields, label: str) -> PermissionRequestDecision | None:
    d = optional_field(f.hso, "decision", dict, "an object")
    if d is None:
        return None
    behavior = d.get("behavior")
    if behavior == "allow":
        updated = optional_field(d, "updatedInput", dict, "an object")
        perms = optional_field(d, "updatedPermissions", list, "a list")
        return PermissionRequestDecision("allow", label, updated_input=updated, updated_permissions=perms)
    if behavior == "deny":
        message = optional_field(d, "message", str, "a string") or ""
        interrupt = bool(optional_field(d, "interrupt", bool, "a boolean"))
        return PermissionRequestDecision("deny", label, message=message, interrupt=interrupt)
    raise InvalidOutput(f'decision.behavior must be "allow" or "deny", got {behavior!r}')


async def run_permission_request(
    hooks: Hooks,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    tool_use_id: str,
    base: HookBaseInput,
    permission_suggestions: Sequence[Any] = (),
    tool: Tool | None = None,
) -> PermissionRequestOutcome:
    """Run the PermissionRequest hooks when the call would be put to the user (PERM-8).

    A hook whose ``if`` can't be judged (no ``tool``) is not run: the question goes on to the host.
    """
    event: HookEvent = "PermissionRequest"
    chosen = _select(hooks, event, tool, tool_name, tool_input, base.cwd)
    matched = chosen.hooks
    if not matched and not chosen.unjudged:
        return PermissionRequestOutcome()
    data = {
        **_event_data(base, event, tool_name, tool_input),
        "tool_use_id": tool_use_id,
        "permission_suggestions": list(permission_suggestions),
    }
    acc = OutputCollector()
    acc.errors.extend(chosen.unjudged)
    runs = await run_event_hooks(matched, event, data, tool_use_id, base.cwd, hooks.background)
    decisions: list[PermissionRequestDecision] = []
    for label, decision in acc.sift(event, runs, _permission_decision):
        if isinstance(decision, Blocked):
            message = format_hook_error(event, tool_name, decision.message)
            decisions.append(PermissionRequestDecision("deny", label, message=message))
        elif decision is not None:
            decisions.append(decision)
    result = None
    denies = [d for d in decisions if d.behavior == "deny"]
    if denies:
        first = denies[0]
        message = first.message or f"Permission to use {tool_name} was denied by hook {first.hook}"
        result = PermissionRequestDecision(
            "deny", first.hook, message=message, interrupt=any(d.interrupt for d in denies)
        )
    elif decisions:
        updated = [d.updated_input for d in decisions if d.updated_input is not None]
        perms = [p for d in decisions for p in (d.updated_permissions or ())]
        result = PermissionRequestDecision(
            "allow", decisions[0].hook, updated_input=updated[-1] if updated else None,
            updated_permissions=perms or None,
        )  # fmt: skip
    return PermissionRequestOutcome(
        result, acc.blocking_errors, acc.errors, acc.system_messages, acc.stop, acc.stop_reason
    )
