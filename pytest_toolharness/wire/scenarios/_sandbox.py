"""The wire scenario for the shell sandbox: writes outside the workdir and to protected paths (SBX-1, SBX-2).

``sandbox``: ``allow Bash`` (so no permission rule stands in the way: whatever stops a command is
the sandbox) and ``sandbox.enabled`` with ``failIfUnavailable``; one shell call a turn. The control
writes a file in the working directory; the escapes write next to it (``..``,
``/proc/self/root``, a symbolic link, a Python program, ``$HOME/../..``); the protected ones
overwrite the harness's settings, add a skill, a git hook, a git ``core.fsmonitor``. Whether a
write happened is read from the files; that the sandbox (not the harness's own checks) stopped an
escape from the operating system's error in its result.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_toolharness.specs import ToolBehavior
from pytest_toolharness.wire.model_api import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.scenarios._core import CLAUDE_CODE_NAMES, ToolNames, WireScenario, mcp_spec
from pytest_toolharness.wire.scenarios._rules import call_ids, one_call_per_turn

__all__ = [
    "NO_SANDBOX_PATH",
    "SANDBOX_CONTROL",
    "SANDBOX_ESCAPES",
    "SANDBOX_PROTECTED",
    "SANDBOX_RULE_CALLS",
    "SANDBOX_SETTINGS_TEXT",
    "UNAVAILABLE_FILE",
    "UNSANDBOXED",
    "UnavailableIds",
    "sandbox_ids",
    "sandbox_rules_ids",
    "sandbox_rules_scenario",
    "sandbox_scenario",
    "sandbox_unavailable_scenario",
]

#: The control: a write inside the working directory, which the sandbox allows.
SANDBOX_CONTROL = "sbx-inside.txt"
#: label → (command, the file it would write, relative to the working directory's parent).
SANDBOX_ESCAPES: Mapping[str, tuple[str, str]] = {
    "dot-dot": ("echo pwned > ../sbx-dot-dot.txt", "sbx-dot-dot.txt"),
    "proc-root": ("echo pwned > /proc/self/root$PWD/../sbx-proc-root.txt", "sbx-proc-root.txt"),
    "symlink": ("ln -s .. sbx-up && echo pwned > sbx-up/sbx-symlink.txt", "sbx-symlink.txt"),
    "python": ("python3 -c \"open('../sbx-python.txt', 'w').write('pwned')\"", "sbx-python.txt"),
    "home": ("echo pwned > $HOME/../../sbx-home.txt", "sbx-home.txt"),
}
#: The harness's settings file in the working directory, and what it holds before the run.
SANDBOX_SETTINGS_TEXT = '{"permissions": {}}\n'
#: label → command writing a protected path inside the working directory.
SANDBOX_PROTECTED: Mapping[str, str] = {
    "settings": "echo '{}' > .claude/settings.local.json",
    "skill": "mkdir -p .claude/skills/evil && echo x > .claude/skills/evil/SKILL.md",
    "git-hook": "echo evil > .git/hooks/pre-commit",
    "git-config": "git config core.fsmonitor 'touch pwned'",
}
SANDBOX_BASE = 601
#: The ``sandbox`` scenario's call asking to leave the sandbox (``allowUnsandboxedCommands: false``):
#: (its command, the file it would write next to the working directory).
UNSANDBOXED = ("echo pwned > ../sbx-unsandboxed.txt", "sbx-unsandboxed.txt")

#: ``sandbox-rules``: label → (command, extra input, what it would create relative to the working
#: directory, whether it must run). No allow rule; ``autoAllowBashIfSandboxed`` runs a sandboxed
#: command unasked (SBX-6), a deny and an ask rule still apply; a request to leave the sandbox and
#: an excluded command go through the permission decision (SBX-4): nothing allows them, nobody can
#: be asked, so they never run.
SANDBOX_RULE_CALLS: Mapping[str, tuple[str, Mapping[str, bool], str, bool]] = {
    "control": ("echo ran > sbx6-auto.txt", {}, "sbx6-auto.txt", True),
    "deny": ("touch sbx6-deny.txt", {}, "sbx6-deny.txt", False),
    "ask": ("mkdir sbx6-ask", {}, "sbx6-ask", False),
    "unsandboxed": (
        "echo pwned > ../sbx4-unsandboxed.txt",
        {"dangerouslyDisableSandbox": True},
        "../sbx4-unsandboxed.txt",
        False,
    ),
    "excluded": ("cp sbx6-auto.txt ../sbx4-excluded.txt", {}, "../sbx4-excluded.txt", False),
}
SANDBOX_RULES_BASE = 651

# A git repository as git finds one (HEAD, objects/, refs/), so `git config` writes its config.
_GIT = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n\trepositoryformatversion = 0\n",
    ".git/objects/.keep": "",
    ".git/refs/heads/.keep": "",
    ".git/hooks/.keep": "",
}


def _calls() -> dict[str, dict[str, object]]:
    calls: dict[str, dict[str, object]] = {
        "control": {"command": f"echo ran > {SANDBOX_CONTROL}", "description": "the control"}
    }
    calls.update({label: {"command": c, "description": label} for label, (c, _) in SANDBOX_ESCAPES.items()})
    calls.update({label: {"command": c, "description": label} for label, c in SANDBOX_PROTECTED.items()})
    calls["unsandboxed"] = {
        "command": UNSANDBOXED[0],
        "description": "unsandboxed",
        "dangerouslyDisableSandbox": True,
    }
    return calls


def sandbox_ids() -> dict[str, str]:
    """Label → tool_use id of :func:`sandbox_scenario`'s calls (``control`` first)."""
    return call_ids(_calls(), SANDBOX_BASE)


def sandbox_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """The sandbox on, every shell command allowed: the control, the escapes, the protected writes."""
    shell = names.builtin("shell")
    return WireScenario(
        name="sandbox",
        prompt="Use the tools as the conversation asks.",
        steps=one_call_per_turn(names, "shell", _calls(), SANDBOX_BASE),
        settings={
            "permissions": {"allow": [shell]},
            "sandbox": {
                "enabled": True,
                "failIfUnavailable": True,
                "autoAllowBashIfSandboxed": True,
                "allowUnsandboxedCommands": False,
            },
        },
        files={**_GIT, ".claude/settings.local.json": SANDBOX_SETTINGS_TEXT},
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"shell_tool", "permission_rules", "sandbox"}),
    )


def sandbox_rules_ids() -> dict[str, str]:
    """Label → tool_use id of :func:`sandbox_rules_scenario`'s calls."""
    return call_ids(SANDBOX_RULE_CALLS, SANDBOX_RULES_BASE)


def sandbox_rules_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """The sandbox on with ``autoAllowBashIfSandboxed`` and no allow rule: :data:`SANDBOX_RULE_CALLS`."""
    shell = names.builtin("shell")
    calls = {
        label: {"command": command, "description": label, **extra}
        for label, (command, extra, _, _) in SANDBOX_RULE_CALLS.items()
    }
    return WireScenario(
        name="sandbox-rules",
        prompt="Use the tools as the conversation asks.",
        steps=one_call_per_turn(names, "shell", calls, SANDBOX_RULES_BASE),
        settings={
            "permissions": {"deny": [f"{shell}(touch:*)"], "ask": [f"{shell}(mkdir:*)"]},
            "sandbox": {
                "enabled": True,
                "failIfUnavailable": True,
                "autoAllowBashIfSandboxed": True,
                "excludedCommands": ["cp:*"],
            },
        },
        env={"ENABLE_TOOL_SEARCH": "false"},
        roles=frozenset({"shell_tool", "permission_rules", "sandbox"}),
    )


#: ``sandbox-unavailable``: a ``PATH`` without bubblewrap or socat, so the sandbox can't start.
NO_SANDBOX_PATH = "/nonexistent-toolharness-bin"
#: What the shell call of ``sandbox-unavailable`` would create (relative to the working directory).
UNAVAILABLE_FILE = "sbx5-ran.txt"


class UnavailableIds:
    """The tool_use ids of :func:`sandbox_unavailable_scenario`."""

    SHELL = tool_use_id(701, "01Rul")
    MCP = tool_use_id(702, "01Rul")


def sandbox_unavailable_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """The sandbox required (``failIfUnavailable``) but unable to start (no bubblewrap on ``PATH``): SBX-5.

    One turn: a shell call (allowed) and an MCP call (allowed). The harness may refuse to start,
    saying why, or run and refuse the shell call; it must never run the command unsandboxed.
    """
    shell = names.builtin("shell")
    echo = mcp_spec("u_echo", "Echo.", ToolBehavior("text", text="u_echo-ran"), names=names)
    turn = AssistantTurn(
        (
            TextBlock("A command and a lookup."),
            ToolUseBlock(
                UnavailableIds.SHELL, shell, {"command": f"echo ran > {UNAVAILABLE_FILE}", "description": "x"}
            ),
            ToolUseBlock(UnavailableIds.MCP, echo.name, {}),
        )
    )
    return WireScenario(
        name="sandbox-unavailable",
        prompt="Use the tools as the conversation asks.",
        steps=(turn,),
        mcp_tools=(echo,),
        settings={
            "permissions": {"allow": [shell, echo.name]},
            "sandbox": {"enabled": True, "failIfUnavailable": True},
        },
        env={"ENABLE_TOOL_SEARCH": "false", "PATH": NO_SANDBOX_PATH},
        roles=frozenset({"mcp", "shell_tool", "permission_rules", "sandbox"}),
    )
