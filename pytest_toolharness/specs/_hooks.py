"""Hook specs: the hooks the suite installs, their event, matcher and what they answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, get_args

__all__ = [
    "HOOK_ALSO_FIELDS",
    "HookAlso",
    "HookOutcomeKind",
    "HookSpec",
]

HookOutcomeKind: TypeAlias = Literal[
    "allow",
    "ask",
    "deny",
    "defer",
    "none",
    "update_input",
    "context",
    "block",
    "exit2",
    "exit1",
    "garbage",
    "plain_text",
    "crash",
    "hang",
    "legacy_approve",
    "legacy_block",
    "update_output",
    "stop",
    "system_message",
    "block_once",
    "deny_interrupt",
    "echo_headers",
]

HookAlso: TypeAlias = Literal["context", "system_message", "stop", "suppress_output"]
StopReasonGiven: TypeAlias = Literal["text", "empty", "absent"]
"""How a ``continue: false`` answer gives its ``stopReason``: a text, ``""``, or not at all."""
"""An output field a hook's JSON answer can carry beside its outcome's own (:attr:`HookSpec.also`)."""

HOOK_ALSO_FIELDS: tuple[HookAlso, ...] = get_args(HookAlso)
"""Every :data:`HookAlso`, in order."""

# Outcomes whose answer is a JSON object on exit 0, so that further fields can go in the same object.
_JSON_OUTCOMES: frozenset[str] = frozenset(
    {"allow", "ask", "deny", "defer", "none", "update_input", "context", "block", "block_once", "legacy_approve",
     "legacy_block", "update_output", "stop", "system_message"}
)  # fmt: skip

_TOOL_EVENTS: tuple[str, ...] = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")
"""The events about one tool call: the ones whose hooks can carry ``if`` (:attr:`HookSpec.if_rule`)."""


@dataclass(frozen=True, slots=True)
class HookSpec:
    """A hook the suite installs: its event, matcher and what it answers.

        ``outcome``: ``allow`` / ``ask`` / ``deny`` / ``defer`` (PreToolUse permission decisions; ``defer``
        hands the call to a decider outside the harness, which with a host is the host), ``none`` (exit 0,
        no decision), ``update_input`` (allow with ``updated_input``), ``context`` (additional context),
        ``block`` (PostToolUse block), ``exit2`` (blocking error with ``reason`` on stderr), ``exit1``
        (non-blocking error), ``garbage`` (non-JSON output), ``plain_text`` (``context`` as plain text on
        stdout, exit 0: UserPromptSubmit and SessionStart add it as context, HOOK-7), ``crash`` (the hook itself fails), ``hang``
        (never answers within its timeout), ``legacy_approve`` / ``legacy_block`` (``decision`` field),
        ``update_output`` (PostToolUse ``updatedMCPToolOutput``), ``stop`` (``continue: false`` with
        ``stopReason`` = ``reason``), ``system_message`` (``systemMessage`` = ``context``), ``block_once``
        (Stop / SubagentStop: block with ``reason`` unless the input says ``stop_hook_active``; see
        :meth:`output_for`), ``deny_interrupt`` (PermissionRequest: deny with ``interrupt: true``, which
        also stops the batch; capability ``host_interrupt``), ``echo_headers`` (an http hook's endpoint
    denies with the JSON object of :attr:`headers` as it received them as the reason: what the harness
    sent, seen through the denial the model gets). ``as_command`` says whether to run it as a command hook (a real subprocess)
        or an in-process callback.

        Lifecycle events (UserPromptSubmit, Stop, SessionStart, ...) are run by an agent loop
        (``agent_loop``); ``context`` and ``block`` answer them in their own shape (``additionalContext``
        under ``hookSpecificOutput``, ``decision: "block"``). ``hook_type`` ``http`` serves the answer from an
        HTTP endpoint instead of a program, ``run_async`` makes it an async command hook, and
        ``from_plugin`` installs it through a plugin's ``hooks/hooks.json`` (HOOK-8; capability
        ``hook_sources``).

        ``exit_code`` is the status an ``exit1`` hook exits with: any non-blocking error's (1, 3..255).
        ``headers`` and ``allowed_env_vars`` are an http hook's ``headers`` and ``allowedEnvVars``: a value may
        name environment variables (``$NAME``, ``${NAME}``), which the harness fills from its own environment
        only when ``allowed_env_vars`` lists them, and with nothing otherwise (Claude Code's rule).

        ``stdout_outcome``: an ``exit2`` or ``exit1`` command hook also prints the JSON answer of that
        outcome on stdout (HOOK-3: stdout is read only on exit 0, so it must change nothing).

        ``if_rule`` is the handler's ``if`` (Claude Code's permission-rule syntax, ``"Bash(git push *)"``):
        the hook runs only for the calls that rule matches, judged by the harness's own rule matcher
        (a compound shell line matches when any of its commands does). A tool event's command or http
        hook takes it (``as_command``, ``hook_type="http"``, ``run_async`` or ``from_plugin``: an
        in-process callback has no ``if``); capability ``hook_if``.

        ``on_failure`` is the handler's ``onFailure``: ``"block"`` makes the hook's failure (an exit
        status other than 0 and 2, a crash, a timeout, an http error status) block the call as an exit
        code 2 would; ``"continue"`` (the default) leaves it a non-blocking error. For a command, http
        or plugin hook that is not async; capability ``hook_on_failure``.

        ``also`` adds further output fields to the same JSON answer (one hook saying several things at
        once): ``context`` (``additionalContext`` = ``context``), ``system_message`` (``systemMessage`` =
        ``system_message`` or ``context``), ``stop`` (``continue: false``, ``stopReason`` = ``stop_reason``
        or ``reason``; with ``stop_reason_given`` ``"empty"`` it is ``""``, with ``"absent"`` the key is left
        out: ``{"continue": false}`` alone still stops), ``suppress_output`` (``suppressOutput: true``). Only outcomes answered in JSON
        take them (not exit codes, garbage, crashes or hangs); ``PermissionRequest`` takes none but
        ``system_message``, ``stop`` and ``suppress_output``.
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
    also: tuple[HookAlso, ...] = ()
    exit_code: int = 1
    stop_reason: str | None = None
    stop_reason_given: StopReasonGiven = "text"
    system_message: str | None = None
    stdout_outcome: HookOutcomeKind | None = None
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env_vars: tuple[str, ...] = ()
    if_rule: str | None = None
    on_failure: Literal["continue", "block"] = "continue"

    def __post_init__(self) -> None:
        if self.stdout_outcome is not None and (
            self.outcome not in ("exit2", "exit1") or self.stdout_outcome not in _JSON_OUTCOMES
        ):
            raise ValueError(
                "HookSpec.stdout_outcome is the JSON answer an exit2 or exit1 hook prints beside its "
                f"status, got {self.stdout_outcome!r} on outcome {self.outcome!r}"
            )
        if self.exit_code in (0, 2) or not 0 < self.exit_code < 256:
            raise ValueError(
                f"HookSpec.exit_code is a non-blocking error's status (1, 3..255), got {self.exit_code}"
            )
        if (
            self.headers or self.allowed_env_vars or self.outcome == "echo_headers"
        ) and self.hook_type != "http":
            raise ValueError(
                "HookSpec.headers, allowed_env_vars and echo_headers are an http hook's (hook_type='http')"
            )
        if self.if_rule is not None:
            self._check_if_rule()
        if self.on_failure not in ("continue", "block"):
            raise ValueError(f'HookSpec.on_failure is "continue" or "block", got {self.on_failure!r}')
        if self.on_failure == "block" and (
            self.run_async or not (self.as_command or self.hook_type == "http" or self.from_plugin)
        ):
            raise ValueError(
                'HookSpec.on_failure "block" is a settings handler\'s key, for a command, http or plugin '
                "hook that is not async (an async hook can't block; an in-process callback has no onFailure)"
            )
        unknown = [f for f in self.also if f not in HOOK_ALSO_FIELDS]
        if unknown:
            raise ValueError(
                f"HookSpec.also: unknown field(s) {unknown}; expected some of {HOOK_ALSO_FIELDS}"
            )
        if self.also and self.outcome not in _JSON_OUTCOMES:
            raise ValueError(
                f"HookSpec.also {list(self.also)} needs an outcome answered in JSON, not {self.outcome!r}"
            )
        if "context" in self.also and self.outcome == "system_message":
            raise ValueError(
                "HookSpec.also: a system_message outcome says its context to the user, not the model"
            )
        if "context" in self.also and self.event == "PermissionRequest":
            raise ValueError("HookSpec.also: PermissionRequest answers have no additionalContext")

    def _check_if_rule(self) -> None:
        if not isinstance(self.if_rule, str) or not self.if_rule.strip():
            raise ValueError(f"HookSpec.if_rule is a permission rule string, got {self.if_rule!r}")
        if self.event not in _TOOL_EVENTS:
            raise ValueError(f"HookSpec.if_rule is for the tool events {_TOOL_EVENTS}, not {self.event!r}")
        # Only a settings handler has an ``if`` key; an in-process callback is a bare function.
        if not (self.as_command or self.hook_type == "http" or self.run_async or self.from_plugin):
            raise ValueError(
                "HookSpec.if_rule is a settings handler's key: install the hook as a command "
                "(as_command=True), an http, async or plugin hook, not an in-process callback"
            )

    def says(self, field: HookAlso | HookOutcomeKind) -> bool:
        """Whether this hook's answer carries ``field``, as its outcome or among :attr:`also`."""
        return field in self.also or self.outcome == field

    @property
    def stop_text(self) -> str:
        """The ``stopReason`` this hook answers when it :meth:`says` ``stop``."""
        return self.stop_reason if self.stop_reason is not None and self.outcome != "stop" else self.reason

    @property
    def system_message_text(self) -> str:
        """The ``systemMessage`` this hook answers when it :meth:`says` ``system_message``."""
        if self.system_message is not None and self.outcome != "system_message":
            return self.system_message
        return self.context

    def output_for(self, hook_input: Mapping[str, Any]) -> dict[str, Any] | None:
        """The output for this input: :meth:`output_json`, but ``block_once`` stops blocking.

        Once the input says ``stop_hook_active``, ``block_once`` says nothing: the guard a Stop hook
        must have against endless loops.
        """
        if self.outcome == "block_once" and hook_input.get("stop_hook_active"):
            return self._with_also({})
        return self.output_json()

    def output_json(self) -> dict[str, Any] | None:
        """The JSON the hook prints on exit 0 (None when it prints nothing or not JSON), with :attr:`also`."""
        output = self._outcome_json()
        return output if output is None else self._with_also(output)

    def _with_also(self, output: dict[str, Any]) -> dict[str, Any]:
        for extra in self.also:
            if extra == "context":
                specific = output.setdefault("hookSpecificOutput", {"hookEventName": self.event})
                specific["additionalContext"] = self.context
            elif extra == "system_message":
                output["systemMessage"] = self.system_message_text
            elif extra == "stop":
                output.update(self._stop_json())
            else:
                output["suppressOutput"] = True
        return output

    def _stop_json(self) -> dict[str, Any]:
        """``continue: false`` and the ``stopReason`` as :attr:`stop_reason_given` says."""
        if self.stop_reason_given == "absent":
            return {"continue": False}
        return {"continue": False, "stopReason": self.stop_text if self.stop_reason_given == "text" else ""}

    def _outcome_json(self) -> dict[str, Any] | None:
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
            if self.outcome == "stop":
                return self._stop_json()
            if self.outcome == "system_message":
                return {"systemMessage": self.context}
            return {} if self.outcome == "none" else None
        specific: dict[str, Any] = {"hookEventName": self.event}
        if self.outcome in ("allow", "ask", "deny", "defer"):
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
            return self._stop_json()
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
