"""What ``run_tool_use`` needs from the session (:class:`ExecutionContext`); the decisions made (PERM-13)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reference_impl.execution._results import ContentReplacementState
from reference_impl.hooks import HookBaseInput, Hooks, HookSignals
from reference_impl.permissions import CanUseTool, PermissionContext, PermissionDecision
from reference_impl.tools import Tool, ToolProgress, find_tool_by_name

__all__ = ["DecisionLog", "ExecutionContext"]


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
