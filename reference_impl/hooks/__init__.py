"""Hooks: the hook model and settings parsing (``_model``), running and aggregating hooks (``_runner``), command hooks as subprocesses (``_command``)."""

from __future__ import annotations

from reference_impl.hooks._command import (
    CommandHook,
    HookRunResult,
    run_command_hook,
)
from reference_impl.hooks._model import (
    HookBaseInput,
    HookCallback,
    HookConfig,
    HookConfigError,
    HookContext,
    HookEntry,
    HookError,
    HookErrorKind,
    HookEvent,
    HookMatcher,
    Hooks,
    UnsupportedHook,
    compile_matcher,
    hooks_from_settings,
)
from reference_impl.hooks._runner import (
    OutputUpdate,
    PermissionRequestDecision,
    PermissionRequestOutcome,
    PostToolUseOutcome,
    PreToolUseOutcome,
    run_permission_request,
    run_post_tool_use,
    run_post_tool_use_failure,
    run_pre_tool_use,
)

__all__ = [
    "CommandHook",
    "HookBaseInput",
    "HookCallback",
    "HookConfig",
    "HookConfigError",
    "HookContext",
    "HookEntry",
    "HookError",
    "HookErrorKind",
    "HookEvent",
    "HookMatcher",
    "HookRunResult",
    "Hooks",
    "OutputUpdate",
    "PermissionRequestDecision",
    "PermissionRequestOutcome",
    "PostToolUseOutcome",
    "PreToolUseOutcome",
    "UnsupportedHook",
    "compile_matcher",
    "hooks_from_settings",
    "run_command_hook",
    "run_permission_request",
    "run_post_tool_use",
    "run_post_tool_use_failure",
    "run_pre_tool_use",
]
