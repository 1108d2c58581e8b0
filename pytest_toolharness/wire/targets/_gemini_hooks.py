"""The scenario's Claude Code command hooks as Gemini CLI hooks: events, matchers, and a protocol bridge.

The Gemini CLI runs command hooks much as Claude Code does (JSON on stdin, exit 2 blocks with stderr
as the reason, JSON on stdout), under other event names and with other output fields; its own
``gemini hooks migrate --from-claude`` maps the events (``PreToolUse`` -> ``BeforeTool``,
``PostToolUse`` -> ``AfterTool``) and keeps the commands. The profile does the same, anchors each
matcher (a Gemini matcher is a regular expression searched in the name), and runs each command
through a bridge (:data:`BRIDGE_SOURCE`, written into the run's home) that translates what the
CLI can't read:

- the input's ``hook_event_name`` back to Claude Code's name, so a hook sees the event it was
  written for;
- the output's ``hookSpecificOutput.permissionDecision``: ``deny`` -> ``decision: "deny"`` with the
  reason, ``ask`` -> ``deny`` too (headless, there is no user to ask), ``allow`` -> ``decision:
  "allow"``; ``updatedInput`` -> ``hookSpecificOutput.tool_input``; a PostToolUse ``decision:
  "block"`` -> ``deny``; ``additionalContext``, ``continue``, ``stopReason``, ``systemMessage`` as
  they are.

Exit codes and stderr pass through; output that is not a JSON object passes through unchanged, so
the CLI's own handling of garbage is what the suite judges. Other events (Stop, SessionStart, ...)
are Claude Code profile matters and are not translated.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = ["BRIDGE_SOURCE", "EVENTS", "gemini_hooks"]

#: Claude Code's hook events and the Gemini CLI's (as its own migration command maps them).
EVENTS = {"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool"}

BRIDGE_SOURCE = r"""
import json, subprocess, sys

EVENTS = {"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse"}


def translate(answer):
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    result = {k: answer[k] for k in ("continue", "stopReason", "systemMessage", "suppressOutput") if k in answer}
    decision = specific.get("permissionDecision")
    if decision in ("deny", "ask"):
        reason = specific.get("permissionDecisionReason") or "a hook decided " + decision
        result.update(decision="deny", reason=reason if decision == "deny" else "asked, and no user to ask: " + reason)
    elif decision == "allow":
        result["decision"] = "allow"
    elif answer.get("decision") == "block":
        result.update(decision="deny", reason=answer.get("reason") or "blocked by a hook")
    extra = {}
    if isinstance(specific.get("updatedInput"), dict):
        extra["tool_input"] = specific["updatedInput"]
    if "additionalContext" in specific:
        extra["additionalContext"] = specific["additionalContext"]
    if extra:
        result["hookSpecificOutput"] = extra
    return result


raw = sys.stdin.buffer.read()
try:
    data = json.loads(raw)
except ValueError:
    data = None
if isinstance(data, dict):
    data["hook_event_name"] = EVENTS.get(data.get("hook_event_name"), data.get("hook_event_name"))
    raw = json.dumps(data).encode()
done = subprocess.run(sys.argv[1], shell=True, input=raw, capture_output=True)
sys.stderr.buffer.write(done.stderr)
out = done.stdout
if done.returncode == 0 and out.strip():
    try:
        answer = json.loads(out)
    except ValueError:
        answer = None
    if isinstance(answer, dict):
        out = json.dumps(translate(answer)).encode()
sys.stdout.buffer.write(out)
sys.exit(done.returncode)
"""


def _matcher(matcher: Any) -> str | None:
    if not isinstance(matcher, str) or matcher.strip() in ("", "*"):
        return None  # every tool
    return f"^(?:{matcher})$"


def gemini_hooks(settings: dict[str, Any], bridge: Path) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` section of Gemini's settings for the scenario's Claude Code ``hooks``."""
    hooks = settings.get("hooks") or {}
    if not isinstance(hooks, dict):
        raise ValueError("settings: 'hooks' must be an object")
    translated: dict[str, list[dict[str, Any]]] = {}
    for claude_event, gemini_event in EVENTS.items():
        for group in hooks.get(claude_event) or ():
            if not isinstance(group, dict):
                raise ValueError(f"settings: a {claude_event} hook group must be an object")
            commands = [
                {
                    "type": "command",
                    "command": f"{shlex.quote(sys.executable)} {shlex.quote(str(bridge))} {shlex.quote(h['command'])}",
                    # Gemini counts milliseconds, Claude Code seconds (default 600).
                    "timeout": int(float(h.get("timeout", 600)) * 1000),
                }
                for h in group.get("hooks") or ()
                if isinstance(h, dict) and h.get("type") == "command" and isinstance(h.get("command"), str)
            ]
            entry: dict[str, Any] = {"hooks": commands}
            matcher = _matcher(group.get("matcher"))
            if matcher is not None:
                re.compile(matcher)  # a bad matcher is the scenario's error, named here
                entry["matcher"] = matcher
            translated.setdefault(gemini_event, []).append(entry)
    return translated
