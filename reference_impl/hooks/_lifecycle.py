"""The lifecycle events' hooks (HOOK-7) and what a turn's hooks said to the loop (HOOK-5).

The agent loop runs UserPromptSubmit, Stop, SessionStart and the other lifecycle events through
:func:`run_lifecycle`; :class:`HookSignals` gathers every event's ``continue: false``, ``stopReason``,
``systemMessage`` and errors in the order they ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.hooks._model import MATCHERLESS_EVENTS, HookBaseInput, HookError, Hooks, LifecycleEvent
from reference_impl.hooks._runner import Blocked, OutputCollector, only_shared_fields, run_event_hooks
from reference_impl.hooks._tool_events import PermissionRequestOutcome, PostToolUseOutcome, PreToolUseOutcome

__all__ = [
    "BLOCKING_LIFECYCLE_EVENTS",
    "CONTEXT_FROM_STDOUT_EVENTS",
    "HookSignals",
    "LifecycleOutcome",
    "run_lifecycle",
]


BLOCKING_LIFECYCLE_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "Stop", "SubagentStop"})
"""Lifecycle events a hook can block (``decision: "block"`` or exit 2): the prompt, the stop."""

CONTEXT_FROM_STDOUT_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "SessionStart"})
"""Events whose hooks' plain stdout (exit 0, not JSON) is added as context, as in Claude Code."""


@dataclass(frozen=True, slots=True)
class LifecycleOutcome:
    """The hooks of one lifecycle event, combined (HOOK-5, HOOK-7).

    ``block_reasons``: for UserPromptSubmit, Stop and SubagentStop, each ``decision: "block"`` reason
    and exit-2 stderr, in declaration order (for the other events exit-2 stderr is in
    ``user_notes`` and a decision is ignored). ``additional_contexts``: ``additionalContext`` and, for
    UserPromptSubmit and SessionStart, plain stdout. ``stop``/``stop_reason``: the first
    ``continue: false``. ``system_messages`` are for the user only.
    """

    event: str
    block_reasons: list[str] = field(default_factory=list)
    additional_contexts: list[str] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    user_notes: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""

    @property
    def block(self) -> bool:
        """Whether a hook blocked the prompt (UserPromptSubmit) or the stop (Stop, SubagentStop)."""
        return bool(self.block_reasons)


async def run_lifecycle(
    hooks: Hooks,
    event: LifecycleEvent,
    fields: Mapping[str, Any],
    *,
    base: HookBaseInput,
    match: str | None = None,
) -> LifecycleOutcome:
    """Run ``event``'s hooks with the common fields of ``base`` and the event's own ``fields``.

    ``match`` is the value the event's matchers select on (SessionStart ``source``, PreCompact
    ``trigger``, SessionEnd ``reason``, Notification ``notification_type``); ignored by events without a
    matcher. SessionStart and SessionEnd inputs carry no ``permission_mode`` (as in Claude Code 2.1).
    """
    matched = list(hooks.matching(event, "" if event in MATCHERLESS_EVENTS else (match or "")))
    if not matched:
        return LifecycleOutcome(event)
    with_mode = event not in ("SessionStart", "SessionEnd")
    data = {**base.to_dict(with_mode=with_mode), "hook_event_name": event, **fields}
    acc = OutputCollector()
    runs = await run_event_hooks(matched, event, data, None, base.cwd, hooks.background)
    blocks: list[str] = []
    notes: list[str] = []
    for label, f in acc.sift(event, runs, only_shared_fields):
        if isinstance(f, Blocked):
            (blocks if event in BLOCKING_LIFECYCLE_EVENTS else notes).append(f.message)
        elif f.decision == "block" and event in BLOCKING_LIFECYCLE_EVENTS:
            blocks.append(f.reason or f"blocked by hook {label}")
    contexts = list(acc.additional_contexts)
    if event in CONTEXT_FROM_STDOUT_EVENTS:
        contexts.extend(run.text for run in runs if run.text)
    return LifecycleOutcome(
        event, blocks, contexts, acc.system_messages, notes, acc.errors, acc.stop, acc.stop_reason
    )


@dataclass(slots=True)
class HookSignals:
    """What the hooks of a turn said to the loop and to the user, in the order they ran (HOOK-5).

    ``stop`` is the first ``continue: false`` and ``stop_reason`` its ``stopReason``; the loop stops
    after the turn's results. ``system_messages`` and ``errors`` are shown to the user, never the model.
    """

    stop: bool = False
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    errors: list[HookError] = field(default_factory=list)

    def take(
        self,
        outcome: PreToolUseOutcome | PostToolUseOutcome | PermissionRequestOutcome | LifecycleOutcome,
    ) -> None:
        """Add one event's outcome."""
        if outcome.stop and not self.stop:
            self.stop, self.stop_reason = True, outcome.stop_reason
        self.system_messages.extend(outcome.system_messages)
        self.errors.extend(outcome.errors)
