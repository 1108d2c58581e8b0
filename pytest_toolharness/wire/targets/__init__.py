"""Targets: the harnesses a wire run drives from outside, their profiles, and the adapter that runs them.

A target is a command run against the scripted model API (``_command``); a profile says what one agent
CLI calls the scenarios' roles and how to run it (``_profiles``, one module per built-in CLI,
``_roles`` for profiles that write their own config); the :class:`WireAdapter` runs a scenario on a target.
"""

from __future__ import annotations

from pytest_toolharness.wire.targets._claude_code import (
    CLAUDE_BIN_ENV,
    ClaudeCodeTarget,
    claude_version,
    find_claude_binary,
)
from pytest_toolharness.wire.targets._cline import CLINE_BIN_ENV, ClineTarget
from pytest_toolharness.wire.targets._codex import CODEX_BIN_ENV, CodexTarget
from pytest_toolharness.wire.targets._command import (
    PLACEHOLDERS,
    CommandTarget,
    ReferenceTarget,
    Target,
    TargetError,
    TargetInvocation,
    TargetOutcome,
    base_environment,
    run_target,
)
from pytest_toolharness.wire.targets._gemini_cli import GEMINI_BIN_ENV, GeminiCliTarget
from pytest_toolharness.wire.targets._opencode import OPENCODE_BIN_ENV, OpencodeTarget
from pytest_toolharness.wire.targets._profiles import (
    BUILTIN_PROFILES,
    ENTRY_POINT_GROUP,
    ClaudeCodeProfile,
    ClineProfile,
    CodexProfile,
    GeminiCliProfile,
    OpencodeProfile,
    ReferenceProfile,
    TargetProfile,
    find_on_path,
    load_profiles,
    profile_named,
    resolve_target,
)
from pytest_toolharness.wire.targets._roles import (
    ACTIONS,
    McpServer,
    Rule,
    mcp_servers,
    read_settings_file,
    settings_rules,
)
from pytest_toolharness.wire.targets._wire_adapter import (
    DEFAULT_TIMEOUT,
    LIMIT_FACTOR,
    REQUESTS_DIR,
    RESERVED_ENV,
    TargetCutOff,
    WireAdapter,
    WireHarness,
    WireRun,
    check_target_env,
    read_hook_log,
    run_wire_scenario,
    target_names,
    write_scenario_files,
)

__all__ = [
    "ACTIONS",
    "BUILTIN_PROFILES",
    "CLAUDE_BIN_ENV",
    "CLINE_BIN_ENV",
    "CODEX_BIN_ENV",
    "DEFAULT_TIMEOUT",
    "ENTRY_POINT_GROUP",
    "GEMINI_BIN_ENV",
    "LIMIT_FACTOR",
    "OPENCODE_BIN_ENV",
    "PLACEHOLDERS",
    "REQUESTS_DIR",
    "RESERVED_ENV",
    "ClaudeCodeProfile",
    "ClaudeCodeTarget",
    "ClineProfile",
    "ClineTarget",
    "CodexProfile",
    "CodexTarget",
    "CommandTarget",
    "GeminiCliProfile",
    "GeminiCliTarget",
    "McpServer",
    "OpencodeProfile",
    "OpencodeTarget",
    "ReferenceProfile",
    "ReferenceTarget",
    "Rule",
    "Target",
    "TargetCutOff",
    "TargetError",
    "TargetInvocation",
    "TargetOutcome",
    "TargetProfile",
    "WireAdapter",
    "WireHarness",
    "WireRun",
    "base_environment",
    "check_target_env",
    "claude_version",
    "find_claude_binary",
    "find_on_path",
    "load_profiles",
    "mcp_servers",
    "profile_named",
    "read_hook_log",
    "read_settings_file",
    "resolve_target",
    "run_target",
    "run_wire_scenario",
    "settings_rules",
    "target_names",
    "write_scenario_files",
]
