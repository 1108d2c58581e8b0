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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeAlias

from reference_impl.permissions._decisions import DecisionReason, HookVerdict, PermissionDecision
from reference_impl.permissions._paths import is_within, lexical_path, resolved_path
from reference_impl.permissions._rules import (
    Call,
    PermissionRule,
    RuleMatch,
    allow_match,
    call_keys,
    describe_call,
    first_match,
    rule_applies_to_tool,
    rule_keys,
)
from reference_impl.permissions._settings import PERMISSION_MODES, PermissionMode, SettingsFile
from reference_impl.tools import (
    PermissionTarget,
    Tool,
    ToolContext,
    ToolPermissionCheck,
)

__all__ = [
    "PERMISSION_MODES",
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "Classifier",
    "PermissionContext",
    "PermissionMode",
    "context_from_settings",
    "decide_permission",
    "internal_error_decision",
    "is_tool_denied_as_whole",
    "protected_reason",
]

Classifier: TypeAlias = Callable[[Tool, Mapping[str, Any]], str]
"""The auto-mode classifier: returns ``"allow"`` or ``"deny"``; anything else, or raising, fails closed."""


@dataclass(frozen=True, slots=True)
class PermissionContext:
    """Everything the engine needs besides the call: mode, rules from every source, directories.

    ``can_prompt`` is False when nobody can be asked (headless, background agents); the engine
    still returns ``ask`` and the executor resolves it (PERM-8), except that a failed auto-mode
    classification denies directly. ``project_root`` anchors ``/x`` path rules (default: cwd).
    """

    mode: PermissionMode = "default"
    rules: tuple[PermissionRule, ...] = ()
    cwd: Path = field(default_factory=Path.cwd)
    additional_dirs: tuple[Path, ...] = ()
    can_prompt: bool = True
    classifier: Classifier | None = None
    project_root: Path | None = None
    block_writes_outside_working_dirs: bool = False
    deny_instead_of_prompting: bool = False

    def __post_init__(self) -> None:
        if self.mode not in PERMISSION_MODES:
            raise ValueError(
                f"unknown permission mode {self.mode!r} (expected one of {', '.join(PERMISSION_MODES)})"
            )

    @property
    def working_dirs(self) -> tuple[Path, ...]:
        """The working directory and the additional ones."""
        return (self.cwd, *self.additional_dirs)

    def with_mode(self, mode: PermissionMode) -> PermissionContext:
        """A copy in another mode."""
        return replace(self, mode=mode)


def context_from_settings(
    files: Iterable[SettingsFile],
    *,
    cwd: Path,
    mode: PermissionMode | None = None,
    extra_rules: Iterable[PermissionRule] = (),
    additional_dirs: Iterable[Path] = (),
    can_prompt: bool = True,
    classifier: Classifier | None = None,
    project_root: Path | None = None,
) -> PermissionContext:
    """Build a context from loaded settings files (all sources together; precedence is by behavior).

    The mode is ``mode`` if given, else the last file's ``defaultMode``, else ``default``; when any
    file sets ``disableBypassPermissionsMode`` a bypassPermissions mode falls back to ``default``.
    Relative ``additionalDirectories`` are taken relative to ``cwd``.
    """
    files = tuple(files)
    rules = [rule for settings in files for rule in settings.rules]
    rules.extend(extra_rules)
    chosen: PermissionMode = "default"
    for settings in files:
        if settings.permissions.default_mode is not None:
            chosen = settings.permissions.default_mode
    if mode is not None:
        chosen = mode
    if chosen == "bypassPermissions" and any(f.permissions.disable_bypass_permissions_mode for f in files):
        chosen = "default"
    directories = [Path(d) for d in additional_dirs]
    for settings in files:
        directories.extend(cwd / Path(d).expanduser() for d in settings.permissions.additional_directories)
    # True from any source wins (a repository can't turn these off).
    block_writes = any(f.permissions.block_writes_outside_working_directories for f in files)
    deny_instead = any(f.permissions.deny_instead_of_prompting for f in files)
    return PermissionContext(
        block_writes_outside_working_dirs=block_writes,
        deny_instead_of_prompting=deny_instead,
        mode=chosen,
        rules=tuple(rules),
        cwd=cwd,
        additional_dirs=tuple(dict.fromkeys(directories)),
        can_prompt=can_prompt,
        classifier=classifier,
        project_root=project_root,
    )


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
    )
    return (found.rules[0], found.detail) if found is not None else None


def _matching(call: Call, context: PermissionContext, behavior: str) -> RuleMatch | None:
    return first_match(
        _candidates(context, call.tool, behavior, call.target if call.error is None else _ERROR),
        call,
        cwd=context.cwd,
        project_root=context.project_root,
    )


_ERROR = TypeError("the call's target could not be described")


def _is_read_only(tool: Tool, tool_input: Mapping[str, Any]) -> bool:
    try:
        return bool(tool.is_read_only(tool_input))
    except Exception:  # a predicate that fails is treated as "writes" (fail closed)
        return False


PROTECTED_DIRECTORIES = frozenset({".git", ".claude", ".vscode", ".idea", ".husky"})
"""Directories whose files are never edited without asking, whatever the mode (PERM-15)."""

PROTECTED_FILES = frozenset(
    {".mcp.json", ".gitmodules", ".gitconfig", ".gitattributes", ".bashrc", ".bash_profile", ".bash_login"}
    | {".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".envrc", ".npmrc"}
    | {".pypirc", ".netrc", ".inputrc", ".tcshrc", ".cshrc", ".kshrc", ".config/fish/config.fish"}
)
"""Files that make code run later, or configure the harness, git or a shell (PERM-15)."""


def protected_reason(path: str, cwd: Path) -> str | None:
    """Why writing ``path`` (any spelling; both its lexical and resolved forms) must be asked about."""
    try:
        forms = {lexical_path(path, cwd), resolved_path(path, cwd)}
    except (OSError, ValueError):
        return f"the path {path!r} can't be resolved"
    for form in forms:
        segments = form.split("/")
        hit = PROTECTED_DIRECTORIES.intersection(segments[:-1]) or PROTECTED_DIRECTORIES.intersection(
            segments[-1:]
        )
        if hit:
            return f"{path} is inside the protected directory {sorted(hit)[0]}"
        if segments[-1] in PROTECTED_FILES or "/".join(segments[-3:]) in PROTECTED_FILES:
            return f"{path} is a protected file ({segments[-1]})"
    return None


def _protected_write(call: Call, context: PermissionContext) -> str | None:
    """Why this call writes a protected path (a file tool's edit or a shell redirection), if it does."""
    target = call.target
    if target is None:
        return None
    if target.kind == "edit":
        return protected_reason(target.value, context.cwd)
    shell = call.shell
    if shell is None:
        return None
    for written in shell.writes:
        if written is None:
            return "the command writes to a file only known when it runs"
        reason = protected_reason(written, context.cwd)
        if reason is not None:
            return reason
    return None


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
        # that a rule, safety check, hook or interactive tool insisted on goes to a person.
        ordinary = decision.reason.stage == "default" or (
            decision.reason.stage == "tool" and decision.reason.detail != _INTERACTIVE.format(tool.name)
        )
        decision = _resolve_ask(tool, tool_input, context, decision, ordinary=ordinary)
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


_INTERACTIVE = "{} requires user interaction"


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
            reason=DecisionReason(stage="tool", detail=_INTERACTIVE.format(tool.name)),
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
    # Only the modes that allow without asking need it (in the others an edit is asked about anyway).
    protected = (
        _protected_write(call, context) if mode in ("bypassPermissions", "acceptEdits", "auto") else None
    )
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


def _resolve_ask(
    tool: Tool,
    tool_input: Mapping[str, Any],
    context: PermissionContext,
    decision: PermissionDecision,
    *,
    ordinary: bool,
) -> PermissionDecision:
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
