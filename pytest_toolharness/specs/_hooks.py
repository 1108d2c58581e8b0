"""Hook specs: the hooks the suite installs, their event, matcher and what they answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = [
    "HookOutcomeKind",
    "HookSpec",
]

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
