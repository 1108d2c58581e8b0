"""Hooks: what a hook is, which hooks the settings declare, and running them around tool calls and the loop.

``_model`` is the hook model and settings parsing; ``_command`` and ``_http`` run one command or http
hook; ``_runner`` runs an event's hooks and reads their outputs; ``_tool_events`` aggregates the tool
events' hooks (PreToolUse, PostToolUse, PermissionRequest) and ``_lifecycle`` the loop's lifecycle
events. Imports run one way: ``_lifecycle`` -> ``_tool_events`` -> ``_runner`` -> the rest.
"""

from __future__ import annotations

from reference_impl.hooks._command import (
    CommandHook,
    HookRunResult,
    run_command_hook,
)
from reference_impl.hooks._http import HttpHookResult, run_http_hook
from reference_impl.hooks._lifecycle import HookSignals, LifecycleOutcome, run_lifecycle
from reference_impl.hooks._model import (
    LIFECYCLE_EVENTS,
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
    HttpHook,
    LifecycleEvent,
    UnsupportedHook,
    compile_matcher,
    hooks_from_plugin,
    hooks_from_settings,
    hooks_from_settings_files,
)
from reference_impl.hooks._runner import BackgroundHookResult, collect_background
from reference_impl.hooks._tool_events import (
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
    "LIFECYCLE_EVENTS",
    "BackgroundHookResult",
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
    "HookSignals",
    "Hooks",
    "HttpHook",
    "HttpHookResult",
    "LifecycleEvent",
    "LifecycleOutcome",
    "OutputUpdate",
    "PermissionRequestDecision",
    "PermissionRequestOutcome",
    "PostToolUseOutcome",
    "PreToolUseOutcome",
    "UnsupportedHook",
    "collect_background",
    "compile_matcher",
    "hooks_from_plugin",
    "hooks_from_settings",
    "hooks_from_settings_files",
    "run_command_hook",
    "run_http_hook",
    "run_lifecycle",
    "run_permission_request",
    "run_post_tool_use",
    "run_post_tool_use_failure",
    "run_pre_tool_use",
]
