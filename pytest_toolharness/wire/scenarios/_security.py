"""Wire scenarios for the security requirements: permission rules against hooks, hook protocol, modes.

Every guarded behaviour is an MCP tool of the suite's server, so whether a call *ran* is read from
the server's call log, never from what the harness says; every hook is a suite command hook that
logs the input it read (:func:`~pytest_toolharness.wire.scenarios._core.logged_hook_command`), so
whether it *was asked* is read from its own log. A check then needs both: the hook ran (else the
behaviour was not exercised) and the call ran or not as the requirement says.

``security``: one turn, tool search off. Each call meets one rule/hook combination:

========== ======================== ============================ =================================
tool       rule                     PreToolUse hook              expected
========== ======================== ============================ =================================
g_deny     allow + deny (whole)     allow                        hidden from the model (PERM-10)
Bash touch allow Bash + deny touch    allow                        not run: no file (PERM-1, PERM-2)
g_ask      ask                      allow                        not run: no way to ask (PERM-2)
g_free     none                     allow                        runs: a hook's allow grants
g_hookdeny allow                    JSON deny                    not run, error (PERM-3)
g_exit2    allow                    exit 2                       not run, error (PERM-3, HOOK-3)
g_exit1    allow                    exit 1 (non-blocking)        runs (HOOK-3)
g_garbage  allow                    stdout not JSON, exit 0      runs (HOOK-3)
g_rewrite  allow                    allow + updatedInput         runs on the new input (EXEC-2)
g_context  allow                    (PostToolUse) context        its text reaches the model (EXEC-5)
Read {}    (schema failure)         logs every tool              the hook never sees it (EXEC-1)
========== ======================== ============================ =================================

Two more PreToolUse hooks log what they match: alternatives ``g_hookdeny|g_exit1`` (answering
allow, so g_hookdeny meets a deny and an allow: HOOK-2) and the regular expression
``g_(free|rewrite)``; with ``*`` and the exact names that is every matcher kind (HOOK-1).

``modes``: ``dontAsk`` turns the ask for an MCP tool without a rule into a deny (PERM-7); ``plan``
refuses the write tool (PERM-9): two runs, each one turn.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from pytest_toolharness.processes import HOOK_PYTHON
from pytest_toolharness.specs import ToolBehavior
from pytest_toolharness.wire.model_api import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.scenarios._core import (
    CLAUDE_CODE_NAMES,
    ToolNames,
    WireScenario,
    logged_hook_command,
    logged_hook_program,
    mcp_spec,
)

__all__ = [
    "CONTEXT_MARK",
    "DENIED_FILE",
    "MODES",
    "PLAN_FILE",
    "PLUGIN_DIR",
    "PROMPT_CONTEXT",
    "REWRITTEN_TEXT",
    "SECURITY_GUARDS",
    "SESSION_CONTEXT",
    "STOP_REASON",
    "UNREACHABLE_HOOK_URL",
    "HookSourceIds",
    "ModeIds",
    "PostIds",
    "SecurityIds",
    "StopIds",
    "hook_sources_scenario",
    "mode_scenario",
    "post_scenario",
    "security_scenario",
    "stop_scenario",
]

#: The text the PostToolUse hook adds as context; the model must be shown it.
CONTEXT_MARK = "suite-context-7f3a"
#: The input the rewriting hook puts in place of the model's.
REWRITTEN_TEXT = "rewritten-by-hook"

_TEXT = {"type": "string", "description": "Any text"}
_PREFIX = "01Sec"


def _pre(decision: str, **extra: Any) -> str:
    output = {"hookEventName": "PreToolUse", "permissionDecision": decision, **extra}
    if decision == "deny":
        output["permissionDecisionReason"] = "denied by the suite hook"
    return json.dumps({"hookSpecificOutput": output})


class SecurityIds:
    """The tool_use ids of :func:`security_scenario`."""

    DENY = tool_use_id(1, _PREFIX)
    ASK = tool_use_id(2, _PREFIX)
    FREE = tool_use_id(3, _PREFIX)
    HOOK_DENY = tool_use_id(4, _PREFIX)
    EXIT2 = tool_use_id(5, _PREFIX)
    EXIT1 = tool_use_id(6, _PREFIX)
    GARBAGE = tool_use_id(7, _PREFIX)
    REWRITE = tool_use_id(8, _PREFIX)
    CONTEXT = tool_use_id(9, _PREFIX)
    INVALID = tool_use_id(10, _PREFIX)
    SHELL_DENY = tool_use_id(11, _PREFIX)


#: The file the denied shell command would create (relative to the working directory).
DENIED_FILE = "suite-deny-ran.txt"
_DENIED_COMMAND = f"touch {DENIED_FILE}"


#: For each guarded MCP tool: (its tool_use id, rules it is in, the PreToolUse hook's answer
#: as (exit code, stdout), whether it must run).
SECURITY_GUARDS: Mapping[str, tuple[str, tuple[str, ...], tuple[int, str], bool]] = {
    "g_deny": (SecurityIds.DENY, ("allow", "deny"), (0, _pre("allow")), False),
    "g_ask": (SecurityIds.ASK, ("ask",), (0, _pre("allow")), False),
    "g_free": (SecurityIds.FREE, (), (0, _pre("allow")), True),
    "g_hookdeny": (SecurityIds.HOOK_DENY, ("allow",), (0, _pre("deny")), False),
    "g_exit2": (SecurityIds.EXIT2, ("allow",), (2, ""), False),
    "g_exit1": (SecurityIds.EXIT1, ("allow",), (1, ""), True),
    "g_garbage": (SecurityIds.GARBAGE, ("allow",), (0, "this is not JSON {"), True),
    "g_rewrite": (
        SecurityIds.REWRITE,
        ("allow",),
        (0, _pre("allow", updatedInput={"text": REWRITTEN_TEXT})),
        True,
    ),
}


def security_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Rules against hooks and the hook protocol in one turn (see the module docstring)."""
    specs = {
        tool: mcp_spec(
            tool, f"Guarded tool {tool}.", ToolBehavior("text", text=f"{tool}-ran"), names=names, text=_TEXT
        )
        for tool in (*SECURITY_GUARDS, "g_context")
    }
    rules: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    pre_hooks = [
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": logged_hook_command("pre-all")}],
        }
    ]
    for tool, (_, in_rules, (exit_code, stdout), _) in SECURITY_GUARDS.items():
        for kind in in_rules:
            rules[kind].append(specs[tool].name)
        stderr = "blocked by the suite hook (exit 2)" if exit_code == 2 else ""
        if exit_code == 1:
            stderr = "a non-blocking hook error"
        command = logged_hook_command(f"pre-{tool}", exit_code=exit_code, stdout=stdout, stderr=stderr)
        pre_hooks.append({"matcher": specs[tool].name, "hooks": [{"type": "command", "command": command}]})
    # Matchers (HOOK-1): alternatives and a regular expression beside "*" and the exact names; the
    # alternatives' allow meets g_hookdeny's deny, and the most restrictive must win (HOOK-2).
    alternatives = f"{specs['g_hookdeny'].name}|{specs['g_exit1'].name}"
    pre_hooks.append(
        {
            "matcher": alternatives,
            "hooks": [{"type": "command", "command": logged_hook_command("pre-alt", stdout=_pre("allow"))}],
        }
    )
    regex = names.mcp("g_") + "(free|rewrite)"
    pre_hooks.append(
        {"matcher": regex, "hooks": [{"type": "command", "command": logged_hook_command("pre-regex")}]}
    )
    rules["allow"].append(specs["g_context"].name)
    shell = names.builtin("shell")
    rules["allow"].append(shell)
    rules["deny"].append(f"{shell}({_DENIED_COMMAND})")
    shell_hook = logged_hook_command("pre-shell", stdout=_pre("allow"))
    pre_hooks.append({"matcher": shell, "hooks": [{"type": "command", "command": shell_hook}]})
    context = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": CONTEXT_MARK}}
    )
    post_hooks = [
        {
            "matcher": specs["g_context"].name,
            "hooks": [{"type": "command", "command": logged_hook_command("post-g_context", stdout=context)}],
        }
    ]
    calls = [
        ToolUseBlock(ids, specs[tool].name, {"text": f"from the model to {tool}"})
        for tool, (ids, *_rest) in SECURITY_GUARDS.items()
    ]
    calls.append(ToolUseBlock(SecurityIds.CONTEXT, specs["g_context"].name, {"text": "context please"}))
    calls.append(ToolUseBlock(SecurityIds.INVALID, names.builtin("read"), {}))
    calls.append(ToolUseBlock(SecurityIds.SHELL_DENY, shell, {"command": _DENIED_COMMAND}))
    return WireScenario(
        name="security",
        prompt="Use the tools as the conversation asks.",
        steps=(AssistantTurn((TextBlock("Trying every guard."), *calls)),),
        mcp_tools=tuple(specs.values()),
        settings={"permissions": rules, "hooks": {"PreToolUse": pre_hooks, "PostToolUse": post_hooks}},
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"mcp", "permission_rules", "command_hooks"}),
    )


class ModeIds:
    """The tool_use ids of :func:`mode_scenario`."""

    UNRULED = tool_use_id(21, _PREFIX)
    ALLOWED = tool_use_id(22, _PREFIX)
    WRITE = tool_use_id(23, _PREFIX)
    SHELL_DENY = tool_use_id(24, _PREFIX)


#: The file the plan-mode scenario asks the write tool to create (relative to the working directory).
PLAN_FILE = "written-in-plan-mode.txt"


#: The modes :func:`mode_scenario` takes.
MODES = ("default", "dontAsk", "plan", "bypassPermissions")


def mode_scenario(mode: str, names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """One turn in permission mode ``mode``: an MCP tool no rule names, an allowed read-only one, more.

    default: the unruled tool needs asking and nobody can be asked, so it never runs (PERM-6).
    dontAsk: the same ask becomes a deny (PERM-7). plan: the write tool must not create its file
    (PERM-9). bypassPermissions: the unruled tool runs, but the shell command a deny rule names does
    not (PERM-5). The allowed read-only tool runs in every mode: the proof the server works.
    """
    if mode not in MODES:
        raise ValueError(f"mode_scenario takes one of {MODES}, not {mode!r}")
    unruled = mcp_spec(
        "m_unruled", "A tool no rule names.", ToolBehavior("text", text="unruled-ran"), names=names
    )
    allowed = mcp_spec(
        "m_allowed", "A read-only lookup.", ToolBehavior("text", text="allowed-ran"), names=names
    )
    allowed = dataclasses.replace(allowed, read_only=True)
    shell = names.builtin("shell")
    calls = [ToolUseBlock(ModeIds.ALLOWED, allowed.name, {})]
    permissions: dict[str, Any] = {"allow": [allowed.name], "defaultMode": mode}
    if mode == "plan":
        calls.append(
            ToolUseBlock(
                ModeIds.WRITE, names.builtin("write"), {"file_path": PLAN_FILE, "content": "written"}
            )
        )
    else:
        calls.insert(0, ToolUseBlock(ModeIds.UNRULED, unruled.name, {}))
    if mode == "bypassPermissions":
        permissions["deny"] = [f"{shell}({_DENIED_COMMAND})"]
        calls.append(ToolUseBlock(ModeIds.SHELL_DENY, shell, {"command": _DENIED_COMMAND}))
    env = {"ENABLE_TOOL_SEARCH": "false"}
    if mode == "bypassPermissions":
        # Claude Code refuses bypassPermissions as root unless told it is in a sandbox (CI runs as root).
        env["IS_SANDBOX"] = "1"
    return WireScenario(
        name=f"mode-{mode}",
        prompt="Use the tools as the conversation asks.",
        steps=(AssistantTurn((TextBlock(f"In {mode} mode."), *calls)),),
        mcp_tools=(unruled, allowed),
        settings={"permissions": permissions},
        env=env,
        roles=frozenset({"mcp", "permission_rules", "permission_modes"}),
    )


class StopIds:
    """The tool_use ids of :func:`stop_scenario`."""

    STOP = tool_use_id(31, _PREFIX)
    OTHER = tool_use_id(32, _PREFIX)
    AFTER = tool_use_id(33, _PREFIX)


#: The stopReason of the stopping hook: for the user, never the model.
STOP_REASON = "suite-stop-reason-5c1e"

#: The additionalContext of the stop scenario's UserPromptSubmit and SessionStart hooks (HOOK-7).
PROMPT_CONTEXT = "suite-prompt-context-7d2a"
SESSION_CONTEXT = "suite-session-context-3b9f"


def _lifecycle_context(event: str, context: str) -> list[dict[str, Any]]:
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}})
    command = logged_hook_command(f"life-{event}", stdout=answer)
    return [{"hooks": [{"type": "command", "command": command}]}]


def stop_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """A PostToolUse hook answers ``continue: false`` (HOOK-5): the loop stops after that turn.

    Turn 1 calls s_stop (its PostToolUse hook stops) and s_other; turn 2 would call s_after, which
    must never run; the stopReason must never reach the model. A SessionStart and a UserPromptSubmit
    hook (logged as ``life-<event>``) each add context, which the first request must carry (HOOK-7).
    """
    stop, other, after = (
        mcp_spec(tool, f"Tool {tool}.", ToolBehavior("text", text=f"{tool}-ran"), names=names)
        for tool in ("s_stop", "s_other", "s_after")
    )
    answer = json.dumps({"continue": False, "stopReason": STOP_REASON})
    hooks = {
        "PostToolUse": [
            {
                "matcher": stop.name,
                "hooks": [{"type": "command", "command": logged_hook_command("post-s_stop", stdout=answer)}],
            }
        ],
        "SessionStart": _lifecycle_context("SessionStart", SESSION_CONTEXT),
        "UserPromptSubmit": _lifecycle_context("UserPromptSubmit", PROMPT_CONTEXT),
    }
    first = AssistantTurn(
        (
            TextBlock("Two calls."),
            ToolUseBlock(StopIds.STOP, stop.name, {}),
            ToolUseBlock(StopIds.OTHER, other.name, {}),
        )
    )
    second = AssistantTurn((ToolUseBlock(StopIds.AFTER, after.name, {}),))
    return WireScenario(
        name="stop",
        prompt="Use the tools as the conversation asks.",
        steps=(first, second),
        mcp_tools=(stop, other, after),
        settings={"permissions": {"allow": [stop.name, other.name, after.name]}, "hooks": hooks},
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"mcp", "command_hooks"}),
    )


class PostIds:
    """The tool_use ids of :func:`post_scenario`."""

    BLOCKED_AFTER = tool_use_id(41, _PREFIX)
    PERMISSION = tool_use_id(42, _PREFIX)


#: The reason the PostToolUse hook gives for its after-the-fact block.
POST_BLOCK_REASON = "suite-post-block-9d2b"


def post_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """After the call, and when nobody can ask: HOOK-4 and PERM-8.

    One turn: ``p_done`` (allowed) runs, then its PostToolUse hook answers ``decision: block``: the
    call already ran, so its result must stay the tool's own output, not become a denial (HOOK-4).
    ``p_unruled`` has no rule (it would be asked about, and nobody can answer in print mode); a
    PermissionRequest hook allows it, so it runs (PERM-8).
    """
    done, unruled = (
        mcp_spec(tool, f"Tool {tool}.", ToolBehavior("text", text=f"{tool}-ran"), names=names)
        for tool in ("p_done", "p_unruled")
    )
    block = json.dumps({"decision": "block", "reason": POST_BLOCK_REASON})
    allow = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
    )
    hooks = {
        "PostToolUse": [
            {
                "matcher": done.name,
                "hooks": [{"type": "command", "command": logged_hook_command("post-p_done", stdout=block)}],
            }
        ],
        "PermissionRequest": [
            {
                "matcher": unruled.name,
                "hooks": [{"type": "command", "command": logged_hook_command("permission", stdout=allow)}],
            }
        ],
    }
    turn = AssistantTurn(
        (
            TextBlock("Two calls."),
            ToolUseBlock(PostIds.BLOCKED_AFTER, done.name, {}),
            ToolUseBlock(PostIds.PERMISSION, unruled.name, {}),
        )
    )
    return WireScenario(
        name="post",
        prompt="Use the tools as the conversation asks.",
        steps=(turn,),
        mcp_tools=(done, unruled),
        settings={"permissions": {"allow": [done.name]}, "hooks": hooks},
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"mcp", "permission_rules", "command_hooks"}),
    )


class HookSourceIds:
    """The tool_use ids of :func:`hook_sources_scenario`."""

    ASYNC = tool_use_id(51, _PREFIX)
    PLUGIN = tool_use_id(52, _PREFIX)
    HTTP = tool_use_id(53, _PREFIX)


#: The plugin folder of :func:`hook_sources_scenario`, in the working directory.
PLUGIN_DIR = "plugins/suite-hooks"
#: A URL nothing listens on (the discard port of 127.0.0.1): an http hook that can't be reached.
UNREACHABLE_HOOK_URL = "http://127.0.0.1:9/hook"


def hook_sources_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Hooks from elsewhere than a settings file's synchronous commands (HOOK-8); one turn, three allowed calls.

    ``h_async``: an async PreToolUse command hook answers deny; an async hook never decides, so the
    call runs. ``h_plugin``: a plugin's PreToolUse hook (its program named through
    ``${CLAUDE_PLUGIN_ROOT}``) answers deny, which blocks as a settings hook's would. ``h_http``: an
    http hook nothing answers is a non-blocking error, so the call runs. The two command hooks log
    as ``async-deny`` and ``plugin-deny``.
    """
    tools = {
        tool: mcp_spec(tool, f"Tool {tool}.", ToolBehavior("text", text=f"{tool}-ran"), names=names)
        for tool in ("h_async", "h_plugin", "h_http")
    }
    deny = _pre("deny")
    plugin_hooks = {
        "description": "the conformance suite's plugin hooks",
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": tools["h_plugin"].name,
                    "hooks": [
                        {
                            "type": "command",
                            "command": f'{HOOK_PYTHON} "${{CLAUDE_PLUGIN_ROOT}}/hooks/deny.py"',
                        }
                    ],
                }
            ]
        },
    }
    files = {
        f"{PLUGIN_DIR}/.claude-plugin/plugin.json": json.dumps({"name": "suite-hooks", "version": "1.0.0"}),
        f"{PLUGIN_DIR}/hooks/hooks.json": json.dumps(plugin_hooks, indent=2),
        f"{PLUGIN_DIR}/hooks/deny.py": logged_hook_program("plugin-deny", stdout=deny),
    }
    settings_hooks = [
        {
            "matcher": tools["h_async"].name,
            "hooks": [
                {"type": "command", "command": logged_hook_command("async-deny", stdout=deny), "async": True}
            ],
        },
        {
            "matcher": tools["h_http"].name,
            "hooks": [{"type": "http", "url": UNREACHABLE_HOOK_URL, "timeout": 5}],
        },
    ]
    turn = AssistantTurn(
        (
            TextBlock("Three calls."),
            ToolUseBlock(HookSourceIds.ASYNC, tools["h_async"].name, {}),
            ToolUseBlock(HookSourceIds.PLUGIN, tools["h_plugin"].name, {}),
            ToolUseBlock(HookSourceIds.HTTP, tools["h_http"].name, {}),
        )
    )
    return WireScenario(
        name="hook-sources",
        prompt="Use the tools as the conversation asks.",
        steps=(turn,),
        mcp_tools=tuple(tools.values()),
        settings={
            "permissions": {"allow": [t.name for t in tools.values()]},
            "hooks": {"PreToolUse": settings_hooks},
        },
        files=files,
        plugin_dirs=(PLUGIN_DIR,),
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"mcp", "permission_rules", "command_hooks", "plugins"}),
    )
